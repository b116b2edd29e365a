package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/timeline"
)

func loadApps(t *testing.T) *timeline.Snapshot {
	t.Helper()
	h, recs, err := ReadFile("testdata/apps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hub := NewHub(h, false, timeline.Options{Limit: -1})
	hub.Load(recs)
	return hub.Model().Snapshot()
}

// TestDuplicatesOf: a name two servers list is flagged with both servers (as
// their initialize answers name them, the names untouched) and their
// tools/list entries; a name one server lists is not.
func TestDuplicatesOf(t *testing.T) {
	d := DuplicatesOf(loadApps(t))
	if len(d) != 1 {
		t.Fatalf("duplicates = %+v, want one (search)", d)
	}
	got := d[0]
	if got.Name != "search" || strings.Join(got.Servers, "|") != "weather|docs <b>bold</b>" || strings.Join(got.Entries, ",") != "5,7" {
		t.Errorf("duplicate = %+v", got)
	}
	if got.Text != `"search" is listed by weather and docs <b>bold</b>` {
		t.Errorf("text = %q", got.Text)
	}
}

// TestDuplicatesOfOneServer: the same server in two sessions is one server
// (no duplicate), and a name listed twice in one list is flagged.
func TestDuplicatesOfOneServer(t *testing.T) {
	init := func(seq int, session string) []string {
		return []string{
			`{"seq":` + itoa(seq) + `,"t":"2026-07-28T12:00:00Z","dir":"c2s","transport":"stdio","session":"` + session + `","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}`,
			`{"seq":` + itoa(seq+1) + `,"t":"2026-07-28T12:00:00Z","dir":"s2c","transport":"stdio","session":"` + session + `","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"same","version":"1"}}}}`,
		}
	}
	list := func(seq int, session, tools string) []string {
		return []string{
			`{"seq":` + itoa(seq) + `,"t":"2026-07-28T12:00:00Z","dir":"c2s","transport":"stdio","session":"` + session + `","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}`,
			`{"seq":` + itoa(seq+1) + `,"t":"2026-07-28T12:00:00Z","dir":"s2c","transport":"stdio","session":"` + session + `","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":` + tools + `}}}`,
		}
	}
	lines := []string{testHeader}
	lines = append(lines, init(1, "a")...)
	lines = append(lines, init(3, "b")...)
	lines = append(lines, list(5, "a", `[{"name":"x","inputSchema":{"type":"object"}}]`)...)
	lines = append(lines, list(7, "b", `[{"name":"x","inputSchema":{"type":"object"}},{"name":"y","inputSchema":{"type":"object"}},{"name":"y","inputSchema":{"type":"object"}}]`)...)
	h, recs, err := ReadFile(writeCapture(t, lines...))
	if err != nil {
		t.Fatal(err)
	}
	hub := NewHub(h, false, timeline.Options{Limit: -1})
	hub.Load(recs)
	d := DuplicatesOf(hub.Model().Snapshot())
	if len(d) != 1 || d[0].Name != "y" || d[0].Text != `"y" is listed 2 times by same` {
		t.Fatalf("duplicates = %+v, want y listed twice by one server", d)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAppsAndPreview: the view the capture read is found with its server, the
// tool that links to it and its declared domains; the tools/call of that tool
// previews it with the call's arguments and result; a call of another tool
// and a plain entry preview nothing.
func TestAppsAndPreview(t *testing.T) {
	snap := loadApps(t)
	views := AppsOf(snap)
	if len(views) != 1 {
		t.Fatalf("views = %+v", views)
	}
	v := views[0]
	if v.URI != "ui://weather/forecast.html" || v.Server != "weather 1.2.0" || v.Session != "s-weather" || v.Entry != "9" ||
		strings.Join(v.Tools, ",") != "forecast" || strings.Join(v.Declared, ",") != "connectDomains https://api.weather.example" || v.Bytes < 1000 {
		t.Errorf("view = %+v", v)
	}
	entry := func(id string) *timeline.Entry {
		t.Helper()
		eid, err := ParseEntryID(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range snap.Entries {
			if e.ID == eid {
				return e
			}
		}
		t.Fatalf("no entry %s", id)
		return nil
	}
	p, ok := PreviewOf(snap, entry("11")) // the tools/call
	if !ok || p.Tool != "forecast" || p.View.Entry != "9" || string(p.Input) != `{"city":"Paris"}` || !strings.Contains(string(p.Result), `"tempC":21`) {
		t.Fatalf("preview of the call = %+v, %v", p, ok)
	}
	// A call in another session of the same server, which read no view: the
	// view the first session read, with this call's data.
	if p, ok := PreviewOf(snap, entry("17")); !ok || p.View.Entry != "9" || p.View.Session != "s-weather" || string(p.Input) != `{"city":"Oslo"}` {
		t.Errorf("preview of the other session's call = %+v, %v", p, ok)
	}
	if p, ok := PreviewOf(snap, entry("9")); !ok || p.Tool != "" || p.View.URI != v.URI {
		t.Errorf("preview of the read = %+v, %v", p, ok)
	}
	for _, id := range []string{"1", "5", "7"} {
		if p, ok := PreviewOf(snap, entry(id)); ok {
			t.Errorf("entry %s previews %+v", id, p)
		}
	}
	doc, csp, err := AppDocument(entry("9"), v.URI)
	if err != nil || !strings.HasPrefix(doc, "<!doctype html>") || csp == nil || len(csp.ConnectDomains) != 1 {
		t.Errorf("document: %d bytes, %+v, %v", len(doc), csp, err)
	}
	if _, _, err := AppDocument(entry("9"), "ui://weather/other.html"); err == nil {
		t.Error("a URI the answer does not hold gave a document")
	}
	if _, _, err := AppDocument(entry("11"), v.URI); err == nil {
		t.Error("a tools/call gave a document")
	}
}
