package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// These tests play each scenario against mcpkit's own Streamable HTTP server with
// tools shaped like the suite's test servers, so that the client's side of the
// scenarios is checked without Node. The suite itself runs in ../ (go test
// ./conformance/).

// scenarioServer records what the client sent to the fixture tools.
type scenarioServer struct {
	mu      sync.Mutex
	sums    []float64        // add_numbers results
	elicits []map[string]any // accepted elicitation content
	calls   []string         // tools called
}

func (s *scenarioServer) record(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// start serves the fixture tools over Streamable HTTP on a loopback httptest server
// and returns its MCP endpoint.
func (s *scenarioServer) start(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "scenario-server", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	type addIn struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	err := mcp.AddTool(srv, &protocol.Tool{Name: "add_numbers", Description: "Add two numbers together"},
		func(ctx context.Context, req *mcp.ToolRequest, in addIn) (string, error) {
			s.record(func() { s.sums = append(s.sums, in.A+in.B); s.calls = append(s.calls, "add_numbers") })
			return fmt.Sprintf("The sum of %v and %v is %v", in.A, in.B, in.A+in.B), nil
		})
	if err == nil {
		err = mcp.AddTool(srv, &protocol.Tool{Name: "test_client_elicitation_defaults", Description: "Elicits a form with defaults"},
			func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
				res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: "accept with defaults", RequestedSchema: json.RawMessage(defaultsForm)})
				if err != nil {
					return "", err
				}
				s.record(func() {
					s.elicits = append(s.elicits, res.Content)
					s.calls = append(s.calls, "test_client_elicitation_defaults")
				})
				return "Elicitation completed", nil
			})
	}
	if err == nil {
		err = mcp.AddTool(srv, &protocol.Tool{Name: "test_reconnection", Description: "Answers"},
			func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
				s.record(func() { s.calls = append(s.calls, "test_reconnection") })
				return "Reconnection test completed successfully", nil
			})
	}
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
	hs := testkit.NewServer(t, h)
	t.Cleanup(func() { _ = h.Close() }) // before the server stops
	return hs.URL
}

func runScenario(t *testing.T, name, url string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return run(ctx, name, url, slog.New(slog.DiscardHandler))
}

func TestScenariosAgainstMcpkitServer(t *testing.T) {
	s := &scenarioServer{}
	url := s.start(t)
	for _, name := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"} {
		if err := runScenario(t, name, url); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if want := []string{"add_numbers", "test_client_elicitation_defaults", "test_reconnection"}; !reflect.DeepEqual(s.calls, want) {
		t.Errorf("tools called %v, want %v", s.calls, want)
	}
	if !reflect.DeepEqual(s.sums, []float64{8}) {
		t.Errorf("add_numbers computed %v, want [8]", s.sums)
	}
	want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}
	if len(s.elicits) != 1 || !reflect.DeepEqual(s.elicits[0], want) {
		t.Errorf("elicitation content %v, want every default %v", s.elicits, want)
	}
}

func TestRunRejectsUnknownScenario(t *testing.T) {
	err := runScenario(t, "no-such-scenario", "http://127.0.0.1:1/mcp")
	if err == nil || !strings.Contains(err.Error(), "unknown scenario") {
		t.Errorf("run = %v, want an unknown scenario error", err)
	}
}

// A server without the tool a scenario needs makes the client fail (exit 1), so the
// suite reports the client's error instead of a silent pass.
func TestRunFailsWhenTheToolIsMissing(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "empty", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
	hs := testkit.NewServer(t, h)
	t.Cleanup(func() { _ = h.Close() }) // before the server stops
	err := runScenario(t, "tools_call", hs.URL)
	if err == nil || !strings.Contains(err.Error(), "does not list the tool add_numbers") {
		t.Errorf("run = %v, want a missing tool error", err)
	}
}

// The 2026-07-28 plays against mcpkit's own server, which is stateless for them: the
// calls the scenario context lists reach the tool (their Mcp-Param headers pass the
// server's check), and the focal schema comes back to the echo tool unchanged.
func TestScenarios2026AgainstMcpkitServer(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "scenario-server", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	var mu sync.Mutex
	var regions []string
	var echoed json.RawMessage
	focal := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"a":{"$anchor":"x","type":"string"}},` +
		`"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"additionalProperties":false}`)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(srv.AddRawTool(&protocol.Tool{Name: "regional", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`)},
		func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			var in struct{ Region string }
			_ = json.Unmarshal(r.Params.Arguments, &in)
			mu.Lock()
			regions = append(regions, in.Region)
			mu.Unlock()
			return protocol.NewToolResultText("ok"), nil
		}))
	must(srv.AddRawTool(&protocol.Tool{Name: schemaFocalTool, InputSchema: focal}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText("ok"), nil
	}))
	must(srv.AddRawTool(&protocol.Tool{Name: schemaEchoTool}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		var in struct{ Schema json.RawMessage }
		_ = json.Unmarshal(r.Params.Arguments, &in)
		mu.Lock()
		echoed = in.Schema
		mu.Unlock()
		return protocol.NewToolResultText("echoed"), nil
	}))
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
	// Check the Mcp-Param headers of each call of "regional" against its arguments,
	// as a server must.
	specs, err := protocol.ParamHeaders(json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`))
	must(err)
	var headerErrs []error
	checked := 0
	hs := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string
			Params struct {
				Name      string
				Arguments json.RawMessage
			}
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" && m.Params.Name == "regional" {
			mu.Lock()
			checked++
			if err := protocol.CheckParamHeaders(r.Header, specs, m.Params.Arguments); err != nil {
				headerErrs = append(headerErrs, err)
			}
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { _ = h.Close() }) // before the server stops

	t.Setenv("MCP_CONFORMANCE_CONTEXT", `{"name":"http-custom-headers","toolCalls":[`+
		`{"name":"regional","arguments":{"region":"Zürich","n":7}},{"name":"regional","arguments":{"region":" padded "}}]}`)
	if err := runScenario(t, "http-custom-headers", hs.URL); err != nil {
		t.Fatalf("http-custom-headers: %v", err)
	}
	if err := runScenario(t, "json-schema-2020-12-preservation", hs.URL); err != nil {
		t.Fatalf("json-schema-2020-12-preservation: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(regions, []string{"Zürich", " padded "}) {
		t.Errorf("the tool saw regions %q", regions)
	}
	if checked != 2 || len(headerErrs) > 0 {
		t.Errorf("%d calls checked; Mcp-Param headers disagree with the arguments: %v", checked, headerErrs)
	}
	var got, want any
	_ = json.Unmarshal(echoed, &got)
	_ = json.Unmarshal(focal, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("echoed schema %s, want %s", echoed, focal)
	}
}

func TestSampleArgumentsFillsRequiredProperties(t *testing.T) {
	got := sampleArguments(json.RawMessage(`{"type":"object","properties":{"region":{"type":"string"},"n":{"type":"integer"},"b":{"type":"boolean"},"opt":{"type":"string"}},"required":["region","n","b"]}`))
	if want := map[string]any{"region": "us-west1", "n": 1, "b": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("sampleArguments = %v", got)
	}
	if got := sampleArguments(json.RawMessage(`not json`)); got == nil || len(got) != 0 {
		t.Errorf("a schema that is not JSON gives %v, want an empty object", got)
	}
}

func TestConfirmAcceptsBooleans(t *testing.T) {
	res, err := confirm(context.Background(), nil, &protocol.ElicitParams{Message: "ok?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirmed":{"type":"boolean"},"note":{"type":"string"}}}`)})
	if err != nil || res.Action != protocol.ElicitActionAccept || !reflect.DeepEqual(res.Content, map[string]any{"confirmed": true}) {
		t.Errorf("confirm = %+v, %v", res, err)
	}
}
