package timeline

import (
	"bytes"
	"strings"
	"testing"
)

// TestCallLabels: a call's row names what it called.
func TestCallLabels(t *testing.T) {
	b := newRecs()
	b.msg(c2s, "stdio", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	b.msg(c2s, "stdio", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"demo://greeting"}}`)
	b.msg(c2s, "stdio", `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet"}}`)
	b.msg(c2s, "stdio", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	b.msg(c2s, "stdio", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":7}}`)
	s := b.model(0).Snapshot()
	for i, want := range []string{"tools/call echo", "resources/read demo://greeting", "prompts/get greet", "tools/list", "tools/call"} {
		if got := s.Entries[i].Label(); got != want {
			t.Errorf("entry %d label %q, want %q", i, got, want)
		}
	}
}

// probeCapture is what mcpkit's own client did before issue 21 against a
// stateful server: a ping without a session and a server/discover, each answered
// 400 with id null, then the real session.
func probeCapture() *recs {
	b := newRecs()
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	refusal := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: No valid session ID provided"}}`
	b.http(c2s, "conn-1", 1, "POST", 0, `{"jsonrpc":"2.0","id":"mcpkit-auth","method":"ping"}`) // 1
	b.http(s2c, "conn-1", 1, "POST", 400, refusal)                                              // 2
	b.event("http-error", s2c, "conn-1", 1, 400, "400 Bad Request")                             // 3
	b.http(c2s, "conn-1", 2, "POST", 0, discover)                                               // 4
	b.http(s2c, "conn-1", 2, "POST", 400, refusal)                                              // 5
	b.event("http-error", s2c, "conn-1", 2, 400, "400 Bad Request")                             // 6
	b.http(c2s, "conn-2", 3, "POST", 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	b.http(s2c, "S1", 3, "POST", 200, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	b.http(c2s, "S1", 4, "POST", 0, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	b.http(s2c, "S1", 4, "POST", 200, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	return b
}

// TestProbesAreNotFailures: each refused probe is one row, labelled, not a
// failure; its id-null reply is no schema violation; the report counts no
// failure and two probes.
func TestProbesAreNotFailures(t *testing.T) {
	b := probeCapture()
	m := New(Options{Limit: -1, Schema: true})
	for _, r := range b.list {
		m.Add(r)
	}
	s := m.Snapshot()
	if len(s.Entries) != 4 {
		t.Fatalf("want 4 rows (2 probes, initialize, the call), got %d: %v", len(s.Entries), ids(s))
	}
	for _, c := range []struct {
		seq   uint64
		probe string
	}{{1, ProbeSessionless}, {4, ProbeEra}} {
		e := byID(s, c.seq, 0)
		if e.Probe != c.probe || !e.ProbeRefused() || e.Failed() || e.Response == nil || e.Refusal == nil || e.ErrorCode != -32600 {
			t.Errorf("probe %d: %+v", c.seq, e)
		}
		if len(e.Violations) != 0 {
			t.Errorf("probe %d: an id-null error reply is valid JSON-RPC, got violations %v", c.seq, e.Violations)
		}
	}
	f := Filter{ErrorsOnly: true}
	if got := s.Apply(f); len(got) != 0 {
		t.Errorf("errors only shows %d probe rows", len(got))
	}
	rep := s.Report(ReportOptions{})
	if len(rep.Failures) != 0 || rep.Probes != 2 {
		t.Errorf("report: failures %+v, probes %d", rep.Failures, rep.Probes)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, ms := range rep.Methods {
		if ms.Errors != 0 {
			t.Errorf("%s: a refused probe counted as an error: %+v", ms.Method, ms)
		}
	}
	if !strings.Contains(out.String(), "No failures found.") || !strings.Contains(out.String(), "2 client probes refused") ||
		!strings.Contains(out.String(), "2 refused, 0 unanswered (2 of them client probes: not failures)") {
		t.Errorf("stats text:\n%s", out.String())
	}
}

// TestFailureGroups: failures come by kind, gravest first, identical ones merged
// with their count.
func TestFailureGroups(t *testing.T) {
	rep := &Report{Failures: []Failure{
		{Name: FailSchemaViolation, Detail: "2025-06-18 server X: bad", Records: []uint64{1}},
		{Name: FailSchemaViolation, Detail: "2025-06-18 server X: bad", Records: []uint64{4}},
		{Name: FailSessionLost, Detail: "404", Records: []uint64{5}},
		{Name: FailSchemaViolation, Detail: "2025-06-18 server Y: other", Records: []uint64{6}},
	}}
	g := rep.Groups()
	if len(g) != 2 || g[0].Name != FailSessionLost || g[1].Name != FailSchemaViolation || g[1].Count != 3 {
		t.Fatalf("groups %+v", g)
	}
	if v := g[1].Failures; len(v) != 2 || v[0].Count != 2 || len(v[0].Records) != 2 || v[1].Count != 1 {
		t.Errorf("merged violations %+v", v)
	}
}

func TestCleanSchemaText(t *testing.T) {
	in := "jsonschema validation failed with 'embed:///internal/specs/spec/2026-07-28/schema.json#/$defs/JSONRPCErrorResponse' - at '/id': got null, want string; see 'embed:///internal/specs/spec/2026-07-28/schema.json#/$defs/RequestId'"
	got := cleanSchemaText(in)
	if strings.Contains(got, "embed:") || !strings.Contains(got, "at '/id'") || !strings.Contains(got, "'RequestId'") {
		t.Errorf("cleaned: %q", got)
	}
}
