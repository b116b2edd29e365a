package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestCloseJSON: each prefix of streamed arguments gives the object as far
// as it is known: complete members kept, an unfinished string value shown
// as far as it goes, an unfinished key, number or literal left out.
func TestCloseJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{`, `{}`},
		{`{"ci`, `{}`},
		{`{"city"`, `{}`},
		{`{"city":`, `{}`},
		{`{"city":"Ly`, `{"city":"Ly"}`},
		{`{"city":"Ly\`, `{"city":"Ly"}`},
		{`{"city":"L\u00`, `{}`},
		{`{"city":"Lyon","points":1`, `{"city":"Lyon"}`},
		{`{"city":"Lyon","points":12,`, `{"city":"Lyon","points":12}`},
		{`{"a":[1,{"b":tr`, `{"a":[1,{}]}`},
		{`{"a":[1,{"b":true}`, `{"a":[1,{"b":true}]}`},
		{`{"a":{"b":[]}} trailing`, `{"a":{"b":[]}}`},
		{` {"q":"say \"hi`, ` {"q":"say \"hi"}`},
	} {
		got, ok := closeJSON(c.in)
		if !ok || string(got) != c.want {
			t.Errorf("closeJSON(%q) = %s, %v; want %s", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{``, `  `, `[1,2`, `"x"`, `12`, `{]`, strings.Repeat("[", 10), `{"a":` + strings.Repeat("[", maxPartialDepth+1), "{" + strings.Repeat(" ", maxPartial)} {
		if got, ok := closeJSON(in); ok {
			t.Errorf("closeJSON(%.40q) = %s, want no object", in, got)
		}
	}
}

// FuzzCloseJSON: whatever the model writes, a recovered value is a valid
// JSON object; and every prefix of a valid object is recovered.
func FuzzCloseJSON(f *testing.F) {
	for _, s := range []string{`{"city":"Lyon","points":12}`, `{"a":[1,{"b":true,"c":null}],"d":"\u00e9\"x"}`, `{"a":1e-5,"b":-0.5}`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > maxPartial {
			return
		}
		if out, ok := closeJSON(s); ok {
			if v, err := decodeObject(out); err != nil || v == nil {
				t.Fatalf("closeJSON(%q) = %s: %v", s, out, err)
			}
		}
		// Only an object's prefixes must be recovered: "null" decodes into a
		// map too (as a nil one), and closeJSON rightly refuses it.
		if whole, err := decodeObject([]byte(s)); err != nil || whole == nil || strings.Count(s, "[") > maxPartialDepth || strings.Count(s, "{") > maxPartialDepth {
			return
		}
		for i := 1; i <= len(s); i++ {
			if strings.TrimSpace(s[:i]) == "" {
				continue
			}
			if _, ok := closeJSON(s[:i]); !ok {
				t.Fatalf("closeJSON(%q), a prefix of the object %q, recovered nothing", s[:i], s)
			}
		}
	})
}

// decodeObject decodes b, one JSON object, keeping numbers as written: the
// page is handed the arguments' text, and a number no float64 holds (1e700)
// is still JSON.
func decodeObject(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more after the object")
	}
	return v, nil
}

// TestPartialArgumentsThrottled: a long string value streamed in small
// fragments reaches the page in steps, not once per fragment, and the last
// partial arguments before the end are complete; past maxPartial nothing
// more is sent.
func TestPartialArgumentsThrottled(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	call := &host.Call{ID: "c1", Name: "show", Tool: &host.Tool{Name: "show", MCP: protocol.Tool{Name: "show",
		Meta: protocol.Meta{"ui": map[string]any{"resourceUri": "ui://lab/show.html"}}}}}
	s.writing[call.ID] = &writingCall{} // its view is opened already
	text := strings.Repeat("abcdefghij", 100)
	whole := `{"text":"` + text + `","n":1}`
	for _, f := range llmtestFragments(whole) {
		s.toolArguments(call, f)
	}
	evs, _, _ := s.hub.since(0)
	if len(evs) < 3 || len(evs) > len(whole)/partialStep+10 {
		t.Fatalf("%d partial arguments for %d bytes in %d fragments", len(evs), len(whole), len(llmtestFragments(whole)))
	}
	var last event
	if err := json.Unmarshal(evs[len(evs)-1], &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "args" || string(last.Args) != whole {
		t.Errorf("the last partial arguments: %s", evs[len(evs)-1])
	}
	s.toolArguments(call, strings.Repeat(" ", maxPartial))
	if more, _, _ := s.hub.since(0); len(more) != len(evs) {
		t.Errorf("partial arguments past maxPartial: %d events", len(more)-len(evs))
	}
}

// llmtestFragments cuts s as models stream it: 1 to 6 bytes at a time.
func llmtestFragments(s string) []string {
	var out []string
	for i := 0; len(s) > 0; i++ {
		n := min(1+i%6, len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
