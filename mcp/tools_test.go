package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

type echoIn struct {
	Message string `json:"message"`
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

func toolServer(t *testing.T) *mcp.Server {
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
		return "hello " + in.Message, nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "sum"}, func(ctx context.Context, req *mcp.ToolRequest, in sumIn) (sumOut, error) {
		return sumOut{Sum: in.A + in.B}, nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		return "", errors.New("the disk is full")
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "boom"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		panic("kaboom")
	}))
	return srv
}

func TestTypedToolInfersSchemaAndCalls(t *testing.T) {
	cs, _ := connect(t, toolServer(t), nil)
	ctx := testkit.Context(t)
	res, err := cs.ListTools(ctx, nil)
	must(t, err)
	if len(res.Tools) != 4 || res.Tools[0].Name != "boom" || res.Tools[1].Name != "echo" {
		t.Fatalf("tools not listed in name order: %+v", res.Tools)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	must(t, json.Unmarshal(res.Tools[1].InputSchema, &schema))
	if schema.Type != "object" || schema.Properties["message"] == nil || len(schema.Required) != 1 || schema.Required[0] != "message" {
		t.Errorf("echo input schema = %s", res.Tools[1].InputSchema)
	}
	if len(res.Tools[1].OutputSchema) != 0 {
		t.Errorf("a string tool has an output schema: %s", res.Tools[1].OutputSchema)
	}
	out, err := cs.CallTool(ctx, "echo", echoIn{Message: "hi"})
	must(t, err)
	if out.IsError || text(t, out) != "hello hi" {
		t.Errorf("echo = %+v", out)
	}
}

func TestToolArgumentsAreValidated(t *testing.T) {
	cs, _ := connect(t, toolServer(t), nil)
	ctx := testkit.Context(t)
	for _, args := range []string{``, `{}`, `{"message":5}`} {
		res, err := cs.CallTool(ctx, "echo", json.RawMessage(args))
		must(t, err)
		if !res.IsError || !strings.Contains(text(t, res), "message") {
			t.Errorf("args %q: want an isError result naming the property, got %+v", args, res)
		}
	}
}

func TestToolErrorsAndPanicsBecomeIsError(t *testing.T) {
	cs, _ := connect(t, toolServer(t), nil)
	ctx := testkit.Context(t)
	res, err := cs.CallTool(ctx, "fail", nil)
	must(t, err)
	if !res.IsError || text(t, res) != "the disk is full" {
		t.Errorf("fail = %+v", res)
	}
	res, err = cs.CallTool(ctx, "boom", nil)
	must(t, err)
	if !res.IsError || text(t, res) != `tool "boom" failed: internal error` {
		t.Errorf("boom = %+v", res)
	}
	// The server keeps serving.
	res, err = cs.CallTool(ctx, "echo", echoIn{Message: "again"})
	must(t, err)
	if text(t, res) != "hello again" {
		t.Errorf("after panic: %+v", res)
	}
}

func TestUnknownToolIsInvalidParams(t *testing.T) {
	cs, _ := connect(t, toolServer(t), nil)
	_, err := cs.CallTool(testkit.Context(t), "not-existing-tool", nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "not-existing-tool") {
		t.Fatalf("err = %v", err)
	}
}

func TestStructuredOutput(t *testing.T) {
	srv := toolServer(t)
	for _, tc := range []struct {
		version    string
		structured bool
	}{{protocol.Version20251125, true}, {protocol.Version20250618, true}, {protocol.Version20250326, false}, {protocol.Version20241105, false}} {
		t.Run(tc.version, func(t *testing.T) {
			cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: tc.version})
			ctx := testkit.Context(t)
			if cs.ProtocolVersion() != tc.version {
				t.Fatalf("negotiated %s", cs.ProtocolVersion())
			}
			list, err := cs.ListTools(ctx, nil)
			must(t, err)
			var sum protocol.Tool
			for _, tl := range list.Tools {
				if tl.Name == "sum" {
					sum = tl
				}
			}
			if (len(sum.OutputSchema) > 0) != tc.structured {
				t.Errorf("outputSchema = %s", sum.OutputSchema)
			}
			res, err := cs.CallTool(ctx, "sum", sumIn{A: 1, B: 2})
			must(t, err)
			if text(t, res) != `{"sum":3}` {
				t.Errorf("text block = %q", text(t, res))
			}
			got, _ := json.Marshal(res.StructuredContent)
			if tc.structured != (string(got) == `{"sum":3}`) {
				t.Errorf("structuredContent = %s", got)
			}
		})
	}
}

func TestProgressArrivesInOrderBeforeResult(t *testing.T) {
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "count"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
		N int `json:"n"`
	}) (string, error) {
		for i := range in.N {
			if err := req.ReportProgress(ctx, float64(i+1), float64(in.N), fmt.Sprintf("step %d", i+1)); err != nil {
				return "", err
			}
		}
		return "done", nil
	}))
	cs, _ := connect(t, srv, nil)
	var got []float64
	res, err := cs.CallTool(testkit.Context(t), "count", map[string]any{"n": 20},
		mcp.WithProgress(func(p *protocol.ProgressParams) {
			got = append(got, p.Progress)
			if p.Total != 20 || p.Message != fmt.Sprintf("step %g", p.Progress) {
				t.Errorf("progress %+v", p)
			}
		}))
	must(t, err)
	if text(t, res) != "done" || len(got) != 20 {
		t.Fatalf("result %+v after %d progress notifications", res, len(got))
	}
	for i, p := range got {
		if p != float64(i+1) {
			t.Fatalf("progress out of order: %v", got)
		}
	}
	// Without a progress token, ReportProgress sends nothing (the schema checker
	// would flag a notification with no token).
	_, err = cs.CallTool(testkit.Context(t), "count", map[string]any{"n": 3})
	must(t, err)
}

func TestTimeoutCancelsHandler(t *testing.T) {
	srv := newServer(t, nil)
	started, stopped := make(chan struct{}), make(chan error, 1)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return "", ctx.Err()
	}))
	cs, _ := connect(t, srv, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(testkit.Context(t), "wait", nil, mcp.WithTimeout(50*time.Millisecond))
		errc <- err
	}()
	testkit.Receive(t, started)
	if err := testkit.Receive(t, errc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CallTool = %v, want deadline exceeded", err)
	}
	if err := testkit.Receive(t, stopped); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler context ended with %v, want canceled by notifications/cancelled", err)
	}
	must(t, cs.Ping(testkit.Context(t)))
}

func TestToolPagination(t *testing.T) {
	srv := newServer(t, &mcp.ServerOptions{PageSize: 10})
	for i := range 25 {
		must(t, srv.AddRawTool(&protocol.Tool{Name: fmt.Sprintf("t%02d", i)}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return protocol.NewToolResultText("ok"), nil
		}))
	}
	cs, _ := connect(t, srv, nil)
	ctx := testkit.Context(t)
	first, err := cs.ListTools(ctx, nil)
	must(t, err)
	if len(first.Tools) != 10 || first.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q", len(first.Tools), first.NextCursor)
	}
	var names []string
	for tool, err := range cs.Tools(ctx) {
		must(t, err)
		names = append(names, tool.Name)
	}
	if len(names) != 25 || names[0] != "t00" || names[24] != "t24" {
		t.Fatalf("iterated %v", names)
	}
	_, err = cs.ListTools(ctx, &protocol.ListToolsParams{Cursor: "!!not-a-cursor"})
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("bad cursor: %v", err)
	}
}

func TestToolListChanged(t *testing.T) {
	srv := toolServer(t)
	changed := make(chan struct{}, 4)
	cs, _ := connect(t, srv, &mcp.ClientOptions{ToolListChangedHandler: func(ctx context.Context, cs *mcp.ClientSession) {
		changed <- struct{}{}
	}})
	must(t, srv.AddRawTool(&protocol.Tool{Name: "late"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText("late"), nil
	}))
	testkit.Receive(t, changed)
	res, err := cs.CallTool(testkit.Context(t), "late", nil)
	must(t, err)
	if text(t, res) != "late" {
		t.Fatal(res)
	}
	srv.RemoveTools("late")
	testkit.Receive(t, changed)
	if _, err := cs.CallTool(testkit.Context(t), "late", nil); err == nil {
		t.Fatal("removed tool still callable")
	}
}

func TestRawToolWithDraft07Schema(t *testing.T) {
	srv := newServer(t, nil)
	schema := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "raw", InputSchema: schema}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText(string(req.Params.Arguments)), nil
	}))
	cs, _ := connect(t, srv, nil)
	ctx := testkit.Context(t)
	res, err := cs.CallTool(ctx, "raw", map[string]any{"n": 0})
	must(t, err)
	if !res.IsError {
		t.Errorf("minimum not enforced: %+v", res)
	}
	res, err = cs.CallTool(ctx, "raw", map[string]any{"n": 2})
	must(t, err)
	if res.IsError || text(t, res) != `{"n":2}` {
		t.Errorf("valid call: %+v", res)
	}
}

func TestConcurrentCalls(t *testing.T) {
	cs, _ := connect(t, toolServer(t), nil)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprint(i)
			res, err := cs.CallTool(testkit.Context(t), "echo", echoIn{Message: msg})
			if err != nil || res.Content[0].Text != "hello "+msg {
				t.Errorf("call %d: %+v %v", i, res, err)
			}
		}()
	}
	wg.Wait()
}
