package testkit_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// allVersions are the protocol versions whose schema the repository must carry.
var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func TestVersions(t *testing.T) {
	if got := testkit.Versions(); !slices.Equal(got, allVersions) {
		t.Errorf("Versions() = %v, want %v", got, allVersions)
	}
}

func TestSchemas(t *testing.T) {
	for _, v := range allVersions {
		var doc struct {
			Schema      string         `json:"$schema"`
			Defs        map[string]any `json:"$defs"`
			Definitions map[string]any `json:"definitions"`
		}
		if err := json.Unmarshal(testkit.Schema(v), &doc); err != nil {
			t.Errorf("Schema(%s): %v", v, err)
			continue
		}
		if len(doc.Defs)+len(doc.Definitions) < 50 || doc.Schema == "" {
			t.Errorf("Schema(%s): $schema %q, %d definitions; not an MCP schema", v, doc.Schema, len(doc.Defs)+len(doc.Definitions))
		}
		fromFS, err := fs.ReadFile(testkit.SpecFS(), v+"/schema.json")
		if err != nil || string(fromFS) != string(testkit.Schema(v)) {
			t.Errorf("SpecFS %s/schema.json differs from Schema(%s) (err %v)", v, v, err)
		}
	}
	for _, bad := range []string{"", "1999-01-01", "2026-07-28/examples", "../spec/2025-06-18", "/2025-06-18"} {
		if got := testkit.Schema(bad); got != nil {
			t.Errorf("Schema(%q) = %d bytes, want nil", bad, len(got))
		}
	}
}

func TestSchemaReturnsACopy(t *testing.T) {
	a := testkit.Schema("2025-06-18")
	a[0] = 'X'
	if b := testkit.Schema("2025-06-18"); b[0] == 'X' {
		t.Error("a change to one Schema result shows in the next")
	}
}

func TestExamples(t *testing.T) {
	ex := testkit.Examples("2026-07-28")
	if len(ex) < 120 {
		t.Fatalf("Examples(2026-07-28) = %d examples, want the 129 shipped with the schema", len(ex))
	}
	defs := map[string]bool{}
	for i, e := range ex {
		defs[e.Definition] = true
		if !json.Valid(e.JSON) || !strings.HasSuffix(e.Name, ".json") || e.Definition == "" {
			t.Errorf("example %s/%s: not a named JSON document", e.Definition, e.Name)
		}
		if i > 0 {
			prev := ex[i-1]
			if prev.Definition > e.Definition || prev.Definition == e.Definition && prev.Name >= e.Name {
				t.Errorf("examples out of order: %s/%s before %s/%s", prev.Definition, prev.Name, e.Definition, e.Name)
			}
		}
	}
	for _, def := range []string{"CallToolRequest", "CallToolResult", "DiscoverResult", "InputRequiredResult"} {
		if !defs[def] {
			t.Errorf("no example of %s", def)
		}
	}
	if got := testkit.Examples("2025-06-18"); got != nil {
		t.Errorf("Examples(2025-06-18) = %d examples, want none", len(got))
	}
}

func TestWireCaptures(t *testing.T) {
	names := []string{testkit.CaptureCSharpStreamableHTTP, testkit.CaptureRooCode, testkit.CaptureVSCode}
	if got := testkit.WireCaptures(); !slices.Equal(got, names) {
		t.Errorf("WireCaptures() = %v, want %v", got, names)
	}
	for _, name := range names {
		var capture struct {
			Title string `json:"title"`
		}
		testkit.LoadWireCapture(t, name, &capture)
		if capture.Title == "" {
			t.Errorf("%s has no title", name)
		}
	}
	if got := testkit.WireCapture("nope.json"); got != nil {
		t.Errorf("WireCapture(nope.json) = %d bytes, want nil", len(got))
	}
}

// fatalTB records Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	fatals []string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
}

func TestLoadWireCaptureFailsClearly(t *testing.T) {
	tb := &fatalTB{TB: t}
	var v any
	testkit.LoadWireCapture(tb, "missing.json", &v)
	if len(tb.fatals) != 1 || !strings.Contains(tb.fatals[0], `"missing.json"`) || !strings.Contains(tb.fatals[0], testkit.CaptureRooCode) {
		t.Errorf("Fatalf for a missing capture = %q, want one naming it and the captures there are", tb.fatals)
	}
	tb.fatals = nil
	var wrongShape []int
	testkit.LoadWireCapture(tb, testkit.CaptureRooCode, &wrongShape)
	if len(tb.fatals) != 1 || !strings.Contains(tb.fatals[0], testkit.CaptureRooCode) {
		t.Errorf("Fatalf for an undecodable capture = %q, want one naming it", tb.fatals)
	}
}
