package view

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/timeline"
)

const testHeader = `{"format":"mcpkit-tap/1","t":"2026-07-28T12:00:00Z","mode":"stdio","command":["server"],"redacted":true}`

func writeCapture(t testing.TB, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cap.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadFileShowsMalformedLines: a garbage line and a torn last line do not stop
// the reading; each becomes a row the views show as a failure, between the
// records around it.
func TestReadFileShowsMalformedLines(t *testing.T) {
	path := writeCapture(t, testHeader,
		`{"seq":1,"t":"2026-07-28T12:00:00.001Z","dir":"c2s","transport":"stdio","session":"stdio","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}}`,
		`this is not JSON`,
		`{"seq":2,"t":"2026-07-28T12:00:00.002Z","dir":"s2c","transport":"stdio","session":"stdio","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`,
		`{"seq":3,"t":"2026-07-28T12:00:00.003Z","dir":"c2s","transport":"stdio","ses`)
	h, recs, err := ReadFile(path)
	if err != nil || h.Mode != "stdio" || len(recs) != 4 {
		t.Fatalf("ReadFile: %d records, %v", len(recs), err)
	}
	hub := NewHub(h, false, timeline.Options{Limit: -1})
	hub.Load(recs)
	snap := hub.Model().Snapshot()
	var rows []Row
	for _, e := range snap.Entries {
		rows = append(rows, RowOf(e, true))
	}
	if len(rows) != 3 || rows[0].Method != "tools/call echo" || rows[0].Status != "ok" {
		t.Fatalf("rows %+v", rows)
	}
	for i, line := range []int{3, 5} {
		r := rows[1+i]
		if !r.Error || !strings.Contains(r.Method, "unreadable-line") || !strings.Contains(r.Method, fmt.Sprintf("capture line %d", line)) {
			t.Errorf("unreadable line %d: %+v", line, r)
		}
	}
	if p := PanelOf(snap); p.FailureCount != 2 || p.Groups[0].Name != timeline.FailInvalidJSON {
		t.Errorf("analysis: %+v", p.Groups)
	}
	if _, _, err := ReadFile(writeCapture(t, `not a capture`)); err == nil {
		t.Error("a file without a capture header is an error")
	}
}
