package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

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
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); _ = h.Close() })
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
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); _ = h.Close() })
	err := runScenario(t, "tools_call", hs.URL)
	if err == nil || !strings.Contains(err.Error(), "does not list the tool add_numbers") {
		t.Errorf("run = %v, want a missing tool error", err)
	}
}
