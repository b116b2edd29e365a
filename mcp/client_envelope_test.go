package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// A stateless request whose caller gave _meta of its own carries the caller's
// members beside the session's envelope in one _meta: a progress token and a
// key of its own arrive, while the protocol's keys the caller also set (a
// version, a log level) are the session's. A value encoding/json cannot encode
// fails the request instead of being dropped.
func TestStatelessCallerMetaBesideEnvelope(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}})
	cs, err := connectAuto(t, srv, nil)
	must(t, err)
	ctx := testkit.Context(t)
	must(t, cs.SetLogLevel(ctx, protocol.LevelWarning))
	progressed := func(*protocol.ProgressParams) {}
	p := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`), Meta: protocol.Meta{
		"example.com/trace":             "t1",
		protocol.MetaKeyProtocolVersion: "1999-01-01",
		protocol.MetaKeyLogLevel:        "debug",
		"a<b":                           []any{1.5, true},
	}}
	res, err := cs.CallToolParams(ctx, p, mcp.WithProgress(progressed))
	must(t, err)
	if got := text(t, res); got != "hello hi" {
		t.Errorf("result %q", got)
	}
	meta := metaOf(rec.last(t, protocol.MethodToolsCall).params)
	if meta["example.com/trace"] != "t1" || meta["progressToken"] == nil {
		t.Errorf("the caller's members or the progress token are missing: %v", meta)
	}
	if v, _ := meta["a<b"].([]any); len(v) != 2 || v[0] != 1.5 || v[1] != true {
		t.Errorf(`"a<b" = %v`, meta["a<b"])
	}
	if meta[protocol.MetaKeyProtocolVersion] != protocol.Version20260728 || meta[protocol.MetaKeyLogLevel] != string(protocol.LevelWarning) {
		t.Errorf("the protocol's keys are not the session's: %v", meta)
	}
	if _, ok := meta[protocol.MetaKeyClientInfo].(map[string]any); !ok {
		t.Errorf("no clientInfo: %v", meta)
	}
	if len(p.Meta) != 4 {
		t.Errorf("the caller's _meta was changed: %v", p.Meta)
	}

	bad := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`), Meta: protocol.Meta{"x": func() {}}}
	if _, err := cs.CallToolParams(ctx, bad); err == nil {
		t.Error("a _meta value encoding/json cannot encode did not fail the request")
	}
}
