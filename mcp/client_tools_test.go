package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// argsRecorder is a server whose one raw tool, "args", accepts any object;
// its middleware keeps the raw params of every tools/call it receives.
func argsRecorder(t *testing.T) (*mcp.Server, <-chan json.RawMessage) {
	t.Helper()
	seen := make(chan json.RawMessage, 16)
	srv := newServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{
		func(next mcp.Invoker) mcp.Invoker {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				if c.Method == protocol.MethodToolsCall {
					seen <- append(json.RawMessage(nil), c.Params...)
				}
				return next(ctx, c)
			}
		},
	}})
	must(t, srv.AddRawTool(&protocol.Tool{Name: "args"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText(string(req.Params.Arguments)), nil
	}))
	return srv, seen
}

// TestCallToolArguments checks each form CallTool takes its arguments in, in
// both eras: what goes on the wire, and what is refused before anything is sent.
func TestCallToolArguments(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y,omitempty"`
	}
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			srv, seen := argsRecorder(t)
			cs, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: version})
			must(t, err)
			for _, c := range []struct {
				name string
				args any
				want string // the arguments member on the wire; "" for none
			}{
				{"nil", nil, ""},
				{"nil map", map[string]any(nil), ""},
				{"nil pointer", (*point)(nil), ""},
				{"struct", point{X: 1}, `{"x":1}`},
				{"pointer", &point{X: 1, Y: 2}, `{"x":1,"y":2}`},
				{"map", map[string]any{"b": []int{1}, "a": "s"}, `{"a":"s","b":[1]}`},
				{"raw", json.RawMessage(`{"keep":"as is"}`), `{"keep":"as is"}`},
				{"bytes", []byte(`{"n":1.50}`), `{"n":1.50}`},
				{"empty raw", json.RawMessage(nil), ""},
				{"empty map", map[string]any{}, `{}`},
				{"map as json.Marshal writes it", trickyArgs, string(mustMarshal(t, trickyArgs))},
			} {
				if _, err := cs.CallTool(t.Context(), "args", c.args); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				var p struct {
					Arguments json.RawMessage `json:"arguments"`
				}
				must(t, json.Unmarshal(<-seen, &p))
				if string(p.Arguments) != c.want {
					t.Errorf("%s: arguments on the wire %s, want %s", c.name, p.Arguments, c.want)
				}
			}
			for _, c := range []struct {
				name string
				args any
				want string
			}{
				{"raw array", json.RawMessage(`[1]`), "must be a JSON object, not an array"},
				{"raw invalid", json.RawMessage(`{"a":`), "not valid JSON"},
				{"raw null", []byte(` null`), "must be a JSON object, not null"},
				{"slice", []int{1}, "must encode as a JSON object, not an array ([]int)"},
				{"string", `{"a":1}`, "must encode as a JSON object, not a string (string)"},
				{"number", 3, "not a number (int)"},
				{"unencodable", map[string]any{"c": make(chan int)}, "encoding the arguments: json: unsupported type: chan int"},
				{"NaN", map[string]any{"a": []any{1.0, math.NaN()}}, "encoding the arguments: json: unsupported value: NaN"},
				{"cycle", cyclicArgs(), "encoding the arguments: json: unsupported value: encountered a cycle via map[string]interface {}"},
			} {
				_, err := cs.CallTool(t.Context(), "args", c.args)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `tool "args"`) {
					t.Errorf("%s: CallTool error %v, want one naming the tool and containing %q", c.name, err, c.want)
				}
			}
			select {
			case p := <-seen:
				t.Errorf("a refused call was sent: %s", p)
			default:
			}
		})
	}
}

// trickyArgs are map arguments with what encoding/json writes in its own way:
// sorted keys, HTML-safe escapes, invalid UTF-8, floats at the thresholds of
// the exponent form, -0, nested values and types only encoding/json knows.
var trickyArgs = map[string]any{
	"z": "<a&b>\u2028\u2029\x00\t\"\\ bad\xff", "a": []any{1e-6, 1e-7, 1e21, 1e20, math.Copysign(0, -1), 0.1, nil, true},
	"m": map[string]any{"y": json.Number("12.5e3"), "x": json.RawMessage(` { "r" : [ 1 ] } `), "w": int64(-7)},
	"s": struct {
		A string `json:"a"`
	}{"<struct>"},
	"é": []string{"x"}, "B": uint8(9),
}

// cyclicArgs returns a map that holds itself.
func cyclicArgs() map[string]any {
	m := map[string]any{"a": 1.0}
	m["self"] = m
	return m
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}

// TestCallToolParamsSendsAsGiven checks that the params form sends the
// fields the caller sets (here a _meta).
func TestCallToolParamsSendsAsGiven(t *testing.T) {
	srv, seen := argsRecorder(t)
	cs, _ := connect(t, srv, nil)
	res, err := cs.CallToolParams(t.Context(), &protocol.CallToolParams{Name: "args", Arguments: json.RawMessage(`{"a":1}`),
		Meta: protocol.Meta{"example.com/k": "v"}})
	must(t, err)
	if got := text(t, res); got != `{"a":1}` {
		t.Errorf("the tool saw %s", got)
	}
	var p struct {
		Meta      map[string]any  `json:"_meta"`
		Arguments json.RawMessage `json:"arguments"`
	}
	must(t, json.Unmarshal(<-seen, &p))
	if p.Meta["example.com/k"] != "v" || string(p.Arguments) != `{"a":1}` {
		t.Errorf("sent _meta %v, arguments %s", p.Meta, p.Arguments)
	}
}

type forecast struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// outputServer has one tool per shape of output CallToolAs decodes.
func outputServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "forecast"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
		City string `json:"city"`
	}) (forecast, error) {
		return forecast{City: in.City, Celsius: 21.5}, nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
		return "hello " + in.Name, nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		return "", errors.New("the disk is full")
	}))
	must(t, srv.AddRawTool(&protocol.Tool{Name: "json_text"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText(`{"city":"Oslo","celsius":-3}`), nil
	}))
	must(t, srv.AddRawTool(&protocol.Tool{Name: "two_blocks"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("a"), protocol.NewTextContent("b")}}, nil
	}))
	must(t, srv.AddRawTool(&protocol.Tool{Name: "fail_twice"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{IsError: true, Content: []protocol.Content{
			protocol.NewTextContent("first"), protocol.NewImageContent([]byte{1}, "image/png"), protocol.NewTextContent("second")}}, nil
	}))
	return srv
}

// TestCallToolAs checks the typed helper in both eras: structured output,
// JSON text, plain text into a string, a tool failure as a *ToolError, and
// output that does not fit.
func TestCallToolAs(t *testing.T) {
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			cs, err := connectAuto(t, outputServer(t), &mcp.ClientOptions{ProtocolVersion: version})
			must(t, err)
			ctx := t.Context()

			got, res, err := mcp.CallToolAs[forecast](ctx, cs, "forecast", map[string]string{"city": "Lyon"})
			if err != nil || got != (forecast{City: "Lyon", Celsius: 21.5}) || res == nil || res.StructuredContent == nil {
				t.Errorf("forecast = %+v, %+v, %v", got, res, err)
			}
			got, _, err = mcp.CallToolAs[forecast](ctx, cs, "json_text", nil)
			if err != nil || got != (forecast{City: "Oslo", Celsius: -3}) {
				t.Errorf("json_text = %+v, %v", got, err)
			}
			greeting, _, err := mcp.CallToolAs[string](ctx, cs, "greet", GreetInput{Name: "Ada"})
			if err != nil || greeting != "hello Ada" {
				t.Errorf("greet = %q, %v", greeting, err)
			}
			generic, _, err := mcp.CallToolAs[map[string]any](ctx, cs, "forecast", map[string]string{"city": "Rome"})
			if err != nil || generic["city"] != "Rome" {
				t.Errorf("forecast into a map = %v, %v", generic, err)
			}

			_, res, err = mcp.CallToolAs[string](ctx, cs, "fail", nil)
			var te *mcp.ToolError
			if !errors.As(err, &te) || te.Tool != "fail" || te.Text != "the disk is full" || te.Result != res || !res.IsError {
				t.Errorf("fail: error %v (%+v), result %+v", err, te, res)
			}
			_, _, err = mcp.CallToolAs[string](ctx, cs, "fail_twice", nil)
			if !errors.As(err, &te) || te.Text != "first\nsecond" || err.Error() != "mcp: tool \"fail_twice\" failed: first\nsecond" {
				t.Errorf("fail_twice: error %v", err)
			}

			_, res, err = mcp.CallToolAs[forecast](ctx, cs, "two_blocks", nil)
			if err == nil || !strings.Contains(err.Error(), "no structuredContent, nor a single text block") || res == nil || errors.As(err, &te) {
				t.Errorf("two_blocks: error %v, result %+v", err, res)
			}
			_, _, err = mcp.CallToolAs[forecast](ctx, cs, "greet", GreetInput{Name: "Ada"})
			if err == nil || !strings.Contains(err.Error(), "decoding the output into mcp_test.forecast") {
				t.Errorf("greet into a struct: error %v", err)
			}
			_, res, err = mcp.CallToolAs[forecast](ctx, cs, "nope", nil)
			if err == nil || res != nil || errors.As(err, &te) {
				t.Errorf("an unknown tool: error %v, result %+v; want the call's error and no result", err, res)
			}
		})
	}
}

// TestParamsFormsSendTheirMeta checks ReadResourceParams and GetPromptParams,
// the full-control forms of ReadResource and GetPrompt: the handler sees the
// _meta the caller set, with the URI and the prompt's arguments.
func TestParamsFormsSendTheirMeta(t *testing.T) {
	srv := newServer(t, nil)
	must(t, srv.AddResource(&protocol.Resource{URI: "file:///a.txt", Name: "a"},
		func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{
				protocol.NewTextResourceContents(req.Params.URI, "text/plain", fmt.Sprint(req.Params.Meta["example.com/k"]))}}, nil
		}))
	must(t, srv.AddPrompt(&protocol.Prompt{Name: "greet", Arguments: []protocol.PromptArgument{{Name: "name"}}},
		func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			text := fmt.Sprint(req.Params.Arguments["name"], " ", req.Params.Meta["example.com/k"])
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: protocol.NewTextContent(text)}}}, nil
		}))
	cs, _ := connect(t, srv, nil)
	meta := protocol.Meta{"example.com/k": "v"}
	rr, err := cs.ReadResourceParams(t.Context(), &protocol.ReadResourceParams{URI: "file:///a.txt", Meta: meta})
	must(t, err)
	if len(rr.Contents) != 1 || rr.Contents[0].Text != "v" || rr.Contents[0].URI != "file:///a.txt" {
		t.Errorf("ReadResourceParams = %+v", rr.Contents)
	}
	gp, err := cs.GetPromptParams(t.Context(), &protocol.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}, Meta: meta})
	must(t, err)
	if len(gp.Messages) != 1 || gp.Messages[0].Content.Text != "Ada v" {
		t.Errorf("GetPromptParams = %+v", gp.Messages)
	}
}
