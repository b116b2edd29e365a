package timeline

import (
	"strings"
	"testing"
)

// TestSchemaViolationFlagged: a tools/list result whose tool lacks inputSchema
// breaks the 2025-06-18 schema the session negotiated.
func TestSchemaViolationFlagged(t *testing.T) {
	b := newRecs()
	b.msg(c2s, "s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	b.msg(s2c, "s", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	b.msg(c2s, "s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.msg(c2s, "s", req("1", "tools/list"))
	b.msg(s2c, "s", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"broken"}]}}`)
	b.msg(c2s, "s", req("2", "tools/list"))
	b.msg(s2c, "s", `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"fine","inputSchema":{"type":"object"}}]}}`)
	m := New(Options{Schema: true})
	for _, r := range b.list {
		m.Add(r)
	}
	s := m.Snapshot()
	var flagged []string
	for _, e := range s.Entries {
		if len(e.Violations) > 0 {
			flagged = append(flagged, e.ID.String())
		}
	}
	if strings.Join(flagged, " ") != "4" {
		t.Fatalf("entries with violations: %v", flagged)
	}
	v := byID(s, 4, 0).Violations[0]
	if !strings.Contains(v, "2025-06-18") || !strings.Contains(v, "ListToolsResult") {
		t.Errorf("violation = %s", v)
	}
	rep := s.Report(ReportOptions{})
	if len(rep.Failures) != 1 || rep.Failures[0].Name != FailSchemaViolation {
		t.Errorf("failures = %+v", rep.Failures)
	}
}
