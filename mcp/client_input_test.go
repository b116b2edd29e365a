package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// answering are client options whose handlers answer as a user and a model would,
// counting the calls.
func answering(elicits, samples *atomic.Int32) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			elicits.Add(1)
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "ada"}}, nil
		},
		CreateMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			samples.Add(1)
			return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Content: protocol.SamplingContent{protocol.NewTextContent("fine")}, Model: "m"}, nil
		},
	}
}

func TestClientAnswersInputRequiredThroughItsHandlers(t *testing.T) {
	var rec recorder
	srv := newServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}})
	must(t, askingTool(srv))
	var elicits, samples atomic.Int32
	var seenIncoming []string
	opts := answering(&elicits, &samples)
	// Client middleware sees the answered input requests as incoming calls, as
	// it sees a legacy server's requests.
	opts.Middleware = []mcp.Middleware{func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction == mcp.Incoming {
				seenIncoming = append(seenIncoming, c.Method)
			}
			return next(ctx, c)
		}
	}}
	cs, err := connectAuto(t, srv, opts)
	must(t, err)
	res, err := cs.CallTool(testkit.Context(t), "ask", nil)
	must(t, err)
	if got := text(t, res); got != "ada/fine" {
		t.Errorf("result %q, want ada/fine", got)
	}
	if elicits.Load() != 1 || samples.Load() != 1 {
		t.Errorf("handlers ran %d and %d times, want once each", elicits.Load(), samples.Load())
	}
	if n := rec.count(protocol.MethodToolsCall); n != 3 {
		t.Errorf("the server saw %d tools/call, want 3 (two input rounds)", n)
	}
	if strings.Join(seenIncoming, ",") != "elicitation/create,sampling/createMessage" {
		t.Errorf("client middleware saw %v", seenIncoming)
	}
	// The last retry carries only the last round's answer and the state.
	last := rec.last(t, protocol.MethodToolsCall).params
	responses, _ := last["inputResponses"].(map[string]any)
	if len(responses) != 1 || responses["sampling-2"] == nil || last["requestState"] == "" {
		t.Errorf("last retry params = %v", last)
	}
}

func TestClientInputRequiredSameHandlersBothEras(t *testing.T) {
	for _, version := range []string{"", protocol.LatestLegacy} {
		srv := newServer(t, nil)
		must(t, askingTool(srv))
		var elicits, samples atomic.Int32
		opts := answering(&elicits, &samples)
		opts.ProtocolVersion = version
		cs, err := connectAuto(t, srv, opts)
		must(t, err)
		res, err := cs.CallTool(testkit.Context(t), "ask", nil)
		must(t, err)
		if got := text(t, res); got != "ada/fine" || elicits.Load() != 1 || samples.Load() != 1 {
			t.Errorf("stateless=%v: result %q, handlers %d/%d", cs.IsStateless(), got, elicits.Load(), samples.Load())
		}
	}
}

func TestClientAnswersRootsAndPromptInput(t *testing.T) {
	srv := newServer(t, nil)
	must(t, srv.AddPrompt(&protocol.Prompt{Name: "where"}, func(ctx context.Context, r *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
		roots, err := r.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser,
			Content: protocol.NewTextContent("root " + roots.Roots[0].URI)}}}, nil
	}))
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{Roots: []protocol.Root{{URI: "file:///work", Name: "work"}}})
	must(t, err)
	res, err := cs.GetPrompt(testkit.Context(t), "where", nil)
	must(t, err)
	if len(res.Messages) != 1 || res.Messages[0].Content.Text != "root file:///work" {
		t.Errorf("prompt = %+v", res.Messages)
	}
}

func TestClientWithoutTheHandlerGetsTheServersError(t *testing.T) {
	srv := newServer(t, nil)
	must(t, askingTool(srv))
	cs, err := connectAuto(t, srv, nil) // declares no elicitation
	must(t, err)
	_, err = cs.CallTool(testkit.Context(t), "ask", nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != protocol.CodeMissingClientCapability {
		t.Errorf("CallTool = %v, want -32021", err)
	}
}

func TestClientBoundsInputRounds(t *testing.T) {
	srv := newServer(t, nil)
	var runs atomic.Int32
	must(t, srv.AddRawTool(&protocol.Tool{Name: "insatiable"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		// A new key every run: the answers never satisfy it.
		key := "again-" + strings.Repeat("x", int(runs.Add(1)))
		if _, err := r.Input(ctx, map[string]protocol.InputRequest{
			key: protocol.NewElicitInputRequest(&protocol.ElicitParams{Message: "more?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}),
		}); err != nil {
			return nil, err
		}
		return protocol.NewToolResultText("satisfied"), nil
	}))
	var elicits, samples atomic.Int32
	opts := answering(&elicits, &samples)
	opts.MaxInputRounds = 3
	cs, err := connectAuto(t, srv, opts)
	must(t, err)
	_, err = cs.CallTool(testkit.Context(t), "insatiable", nil)
	if err == nil || !strings.Contains(err.Error(), "after 3 rounds") {
		t.Errorf("CallTool = %v", err)
	}
	if elicits.Load() != 3 {
		t.Errorf("the handler answered %d times, want 3", elicits.Load())
	}
}

func TestClientChecksResultType(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result map[string]any
		want   string // "" = success
	}{
		{"absent means complete", map[string]any{"content": []any{}}, ""},
		{"complete", map[string]any{"resultType": "complete", "content": []any{}}, ""},
		{"unknown", map[string]any{"resultType": "partial", "content": []any{}}, `unknown resultType "partial"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
				if m.Method == protocol.MethodServerDiscover {
					return discoverResult(protocol.Version20260728), nil
				}
				return tc.result, nil
			})
			cs, err := connectTo(t, conn, nil)
			must(t, err)
			_, err = cs.CallTool(testkit.Context(t), "x", nil)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("CallTool = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("input_required where no input may be asked", func(t *testing.T) {
		conn := scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
			if m.Method == protocol.MethodServerDiscover {
				return discoverResult(protocol.Version20260728), nil
			}
			return map[string]any{"resultType": "input_required", "requestState": "s"}, nil
		})
		cs, err := connectTo(t, conn, nil)
		must(t, err)
		if _, err := cs.ListPrompts(testkit.Context(t), nil); err == nil || !strings.Contains(err.Error(), "cannot carry") {
			t.Errorf("ListPrompts = %v", err)
		}
	})
}

func TestClientStatelessLogLevelAndLegacyOnlyCalls(t *testing.T) {
	var rec recorder
	srv := newServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}})
	must(t, srv.AddRawTool(&protocol.Tool{Name: "chatty"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		_ = r.Log(ctx, protocol.LevelInfo, "t", "info line")
		_ = r.Log(ctx, protocol.LevelError, "t", "error line")
		return protocol.NewToolResultText("done"), nil
	}))
	logs := make(chan string, 4)
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{LoggingMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.LoggingMessageParams) {
		logs <- string(p.Level)
	}})
	must(t, err)
	ctx := testkit.Context(t)
	must(t, cs.SetLogLevel(ctx, protocol.LevelError))
	if err := cs.SetLogLevel(ctx, "loud"); err == nil {
		t.Error("SetLogLevel accepted an unknown level")
	}
	_, err = cs.CallTool(ctx, "chatty", nil)
	must(t, err)
	if got := testkit.Receive(t, logs); got != "error" {
		t.Errorf("log level received %q, want only error", got)
	}
	if meta := metaOf(rec.last(t, protocol.MethodToolsCall).params); meta[protocol.MetaKeyLogLevel] != "error" {
		t.Errorf("tools/call _meta = %v", meta)
	}
	if n := rec.count(protocol.MethodLoggingSetLevel); n != 0 {
		t.Errorf("logging/setLevel sent %d times in the stateless era", n)
	}
	if err := cs.Subscribe(ctx, &protocol.SubscribeParams{URI: "x://y"}); !errors.Is(err, mcp.ErrLegacyOnly) {
		t.Errorf("Subscribe = %v, want ErrLegacyOnly", err)
	}
	must(t, cs.Ping(ctx))
	if rec.methods()[len(rec.methods())-1] != protocol.MethodServerDiscover {
		t.Errorf("Ping sent %v", rec.methods())
	}
}

func TestClientMiddlewareMergesMeta(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}})
	// Middleware adding a key to the outgoing _meta (as tracing does) must keep
	// the protocol's keys, and the protocol's keys must not drop its own.
	inject := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction == mcp.Outgoing && c.Method == protocol.MethodToolsCall {
				var p map[string]any
				must(t, json.Unmarshal(c.Params, &p))
				meta := metaOf(p)
				if meta[protocol.MetaKeyProtocolVersion] == nil {
					t.Errorf("middleware saw params without the stateless _meta: %s", c.Params)
				}
				meta["traceparent"] = "00-abc-def-01"
				data, err := json.Marshal(p)
				must(t, err)
				c.Params = data
			}
			return next(ctx, c)
		}
	}
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{Middleware: []mcp.Middleware{inject}})
	must(t, err)
	_, err = cs.CallTool(testkit.Context(t), "echo", echoIn{Message: "m"})
	must(t, err)
	meta := metaOf(rec.last(t, protocol.MethodToolsCall).params)
	if meta["traceparent"] != "00-abc-def-01" || meta[protocol.MetaKeyProtocolVersion] != protocol.Version20260728 {
		t.Errorf("the server saw _meta %v", meta)
	}
}
