package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// upstreamResult is a result as another server wrote it: structured content,
// isError, a _meta of its own, members and block fields no schema names, and
// what the answering server owns (resultType, its serverInfo).
const upstreamResult = `{"content":[{"type":"text","text":"hi","x-block":1}],"structuredContent":{"n":1,"deep":{"a":[1,2.50,"\u00e9"]}},` +
	`"isError":true,"x-extra":{"k":[true,null]},"resultType":"complete",` +
	`"_meta":{"com.example/trace":"abc","io.modelcontextprotocol/serverInfo":{"name":"up","version":"9"}}}`

// passedOn is upstreamResult without what the answering server owns.
const passedOn = `{"content":[{"type":"text","text":"hi","x-block":1}],"structuredContent":{"n":1,"deep":{"a":[1,2.50,"\u00e9"]}},` +
	`"isError":true,"x-extra":{"k":[true,null]}`

// rawServer has the tool "raw", which answers with the JSON its test sets.
func rawServer(t *testing.T, opts *mcp.ServerOptions, result *string) *mcp.Server {
	t.Helper()
	srv := newServer(t, opts)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "raw", Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional}},
		func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return req.RawResult(json.RawMessage(*result))
		}))
	return srv
}

// TestRawResultPassesThroughInBothEras: a raw result reaches the client byte
// for byte — structured content, isError, _meta, unknown members and fields —
// with only the members the server owns written for the era: none for a
// legacy client, resultType and the server's own identity for a stateless one
// (with and without middleware, which take different paths).
func TestRawResultPassesThroughInBothEras(t *testing.T) {
	result := upstreamResult
	passThrough := func(next mcp.Invoker) mcp.Invoker { return next }
	cases := []struct {
		name    string
		version string
		mw      []mcp.Middleware
		want    string
	}{
		{"legacy", protocol.LatestLegacy, nil, passedOn + `,"_meta":{"com.example/trace":"abc"}}`},
		{"stateless", protocol.Version20260728, nil,
			passedOn + `,"resultType":"complete","_meta":{"com.example/trace":"abc","io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"1.0"}}}`},
		{"stateless with middleware", protocol.Version20260728, []mcp.Middleware{passThrough},
			passedOn + `,"resultType":"complete","_meta":{"com.example/trace":"abc","io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"1.0"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := rawServer(t, &mcp.ServerOptions{Middleware: c.mw}, &result)
			cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: c.version})
			ctx := testkit.Context(t)
			raw, err := cs.CallToolRaw(ctx, &protocol.CallToolParams{Name: "raw"})
			must(t, err)
			if string(raw) != c.want {
				t.Errorf("result\n got %s\nwant %s", raw, c.want)
			}
			res, err := cs.CallTool(ctx, "raw", nil)
			must(t, err)
			if !res.IsError || res.Meta["com.example/trace"] != "abc" || text(t, res) != "hi" ||
				!reflect.DeepEqual(res.StructuredContent, map[string]any{"n": 1.0, "deep": map[string]any{"a": []any{1.0, 2.5, "é"}}}) {
				t.Errorf("decoded result = %+v", res)
			}
		})
	}
}

// TestRawResultAdaptedForOlderVersions: a client of a version that lacks
// something the raw result may hold gets it decoded and adapted like any
// other result (here: no structuredContent, the resource link as text).
func TestRawResultAdaptedForOlderVersions(t *testing.T) {
	result := `{"content":[{"type":"text","text":"a"},{"type":"resource_link","uri":"x://r","name":"r"}],"structuredContent":{"n":1},"resultType":"complete","x-extra":1}`
	srv := rawServer(t, nil, &result)
	cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20250326})
	raw, err := cs.CallToolRaw(testkit.Context(t), &protocol.CallToolParams{Name: "raw"})
	must(t, err)
	want := `{"content":[{"type":"text","text":"a"},{"type":"text","text":"Resource: x://r (r)"}]}`
	if string(raw) != want {
		t.Errorf("result for 2025-03-26\n got %s\nwant %s", raw, want)
	}

	// 2025-06-18 lacks only the sampling tools' blocks: a result that cannot
	// hold one passes as it is, one that may is decoded.
	cs, _ = connect(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20250618})
	for _, c := range []struct{ result, want string }{
		{`{"content":[],"x-extra":1,"resultType":"complete"}`, `{"content":[],"x-extra":1}`},
		{`{"content":[{"type":"text","text":"tool_use"}],"x-extra":1}`, `{"content":[{"type":"text","text":"tool_use"}]}`},
		{`{"content":[{"type":"text","text":"tool\u005fuse"}],"x-extra":1}`, `{"content":[{"type":"text","text":"tool_use"}]}`},
		{`{"content":[{"type":"text","text":"\u00e9"}],"x-extra":1}`, `{"content":[{"type":"text","text":"\u00e9"}],"x-extra":1}`},
	} {
		result = c.result
		raw, err := cs.CallToolRaw(testkit.Context(t), &protocol.CallToolParams{Name: "raw"})
		must(t, err)
		if string(raw) != c.want {
			t.Errorf("result %s for 2025-06-18\n got %s\nwant %s", c.result, raw, c.want)
		}
	}
}

// TestRawResultRefusesWhatIsNotOneObject: RawResult takes one valid JSON
// object; anything else is an error, which the call reports as an isError
// result.
func TestRawResultRefusesWhatIsNotOneObject(t *testing.T) {
	var result string
	srv := rawServer(t, nil, &result)
	cs, _ := connect(t, srv, nil)
	for _, bad := range []string{``, `[]`, `"x"`, `null`, `{`, `{"a":1} {}`, `{"a":01}`, `{"a":"\x"}`} {
		result = bad
		res, err := cs.CallTool(testkit.Context(t), "raw", nil)
		must(t, err)
		if !res.IsError || !strings.Contains(text(t, res), "one JSON object") {
			t.Errorf("raw result %q: %+v, want an isError result", bad, res)
		}
	}
}

// TestRawResultLineBreaksRemoved: a raw result written over several lines is
// sent on one (stdio frames a message per line), its strings untouched.
func TestRawResultLineBreaksRemoved(t *testing.T) {
	result := "{\n  \"content\": [\r\n    {\"type\": \"text\", \"text\": \"two\\nlines\"}\n  ],\n\t\"x\" : 1\n}\n"
	srv := rawServer(t, nil, &result)
	cs, _ := connect(t, srv, nil)
	raw, err := cs.CallToolRaw(testkit.Context(t), &protocol.CallToolParams{Name: "raw"})
	must(t, err)
	if want := `{"content":[{"type":"text","text":"two\nlines"}],"x":1}`; string(raw) != want {
		t.Errorf("result\n got %s\nwant %s", raw, want)
	}
}

// TestRawResultSeenByMiddleware: middleware sees a raw result as a
// RawToolResult, whose JSON is the handler's and whose encoding is what the
// client receives.
func TestRawResultSeenByMiddleware(t *testing.T) {
	result := upstreamResult
	seen := make(chan mcp.RawToolResult, 1)
	mw := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			res, err := next(ctx, c)
			if r, ok := res.(mcp.RawToolResult); ok {
				seen <- r
			}
			return res, err
		}
	}
	srv := rawServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{mw}}, &result)
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: version})
		raw, err := cs.CallToolRaw(testkit.Context(t), &protocol.CallToolParams{Name: "raw"})
		must(t, err)
		r := testkit.Receive(t, seen)
		if string(r.JSON()) != upstreamResult {
			t.Errorf("%s: JSON() = %s, want the handler's", version, r.JSON())
		}
		if enc, err := json.Marshal(r); err != nil || !bytes.Equal(enc, raw) {
			t.Errorf("%s: the middleware's encoding %s (%v) is not what was sent: %s", version, enc, err, raw)
		}
		dec, err := r.Decode()
		must(t, err)
		if dec.ResultType != "" || len(dec.Meta) != 1 || !dec.IsError {
			t.Errorf("%s: Decode() = %+v, want the result without what the server owns", version, dec)
		}
	}
}

// TestRawResultInTask: a task stores a raw result decoded, as it would the
// same result returned as a value.
func TestRawResultInTask(t *testing.T) {
	result := `{"content":[{"type":"text","text":"done"}],"structuredContent":{"n":2},"resultType":"complete","_meta":{"k":"v"}}`
	srv := rawServer(t, &mcp.ServerOptions{Tasks: &mcp.TaskOptions{PollInterval: time.Millisecond}}, &result)
	cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20251125})
	ctx := testkit.Context(t)
	task, err := cs.CallToolAsTask(ctx, "raw", nil, time.Minute)
	must(t, err)
	res, err := cs.AwaitTask(ctx, task.TaskID)
	must(t, err)
	if text(t, res) != "done" || !reflect.DeepEqual(res.StructuredContent, map[string]any{"n": 2.0}) || res.ResultType != "" || res.Meta["k"] != "v" {
		t.Errorf("task result = %+v", res)
	}
}

// TestTypedHandlerTextAfterRawResult: a typed handler that made a raw result
// and then returned a string sends the string.
func TestTypedHandlerTextAfterRawResult(t *testing.T) {
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "t"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		if _, err := req.RawResult(json.RawMessage(`{"content":[{"type":"text","text":"raw"}]}`)); err != nil {
			return "", err
		}
		return "text", nil
	}))
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: version})
		res, err := cs.CallTool(testkit.Context(t), "t", nil)
		must(t, err)
		if got := text(t, res); got != "text" {
			t.Errorf("%s: %q, want the string the handler returned", version, got)
		}
	}
}
