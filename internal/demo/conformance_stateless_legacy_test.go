package demo

// The 2026-07-28 fixtures are one handler for both eras: a client that began with
// initialize gets the same answers, its input asked for with real requests.

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// answeringClient is a legacy client that answers every kind of input request the
// way the suite's stateless scenarios do, and records what it was asked.
type answeringClient struct {
	mu       sync.Mutex
	elicited []string // the messages of the elicitations, in order
	sampled  int
}

func (a *answeringClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Roots: []protocol.Root{{URI: "file:///test/root", Name: "Test Root"}},
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			a.mu.Lock()
			a.elicited = append(a.elicited, p.Message)
			a.mu.Unlock()
			content := map[string]any{"name": "Alice", "ok": true, "color": "blue", "context": "test context"}
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: content}, nil
		},
		CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			a.mu.Lock()
			a.sampled++
			a.mu.Unlock()
			return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: "test-model",
				Content: protocol.SamplingContent{protocol.NewTextContent("Paris.")}}, nil
		},
	}
}

func TestLegacyInputFixtures(t *testing.T) {
	a := &answeringClient{}
	cs := connectFixtures(t, a.options())
	for _, tc := range []struct{ tool, want string }{
		{"test_input_required_result_elicitation", "Hello, Alice!"},
		{"test_input_required_result_sampling", "LLM response: Paris."},
		{"test_input_required_result_list_roots", "Client roots: file:///test/root (Test Root)"},
		{"test_input_required_result_request_state", "state-ok: confirmed true"},
		{"test_input_required_result_tampered_state", "state-ok: confirmed true"},
		{"test_input_required_result_multiple_inputs", "Paris. Alice! Your roots: file:///test/root (Test Root)"},
		{"test_input_required_result_multi_round", "Alice's favorite color is blue."},
		{"test_input_required_result_capabilities", "model: Paris.; name: Alice; roots: file:///test/root (Test Root)"},
		{"test_missing_capability", "LLM response: Paris."},
		{"test_streaming_elicitation", "Hello, Alice!"},
	} {
		res := callFixture(t, cs, tc.tool, nil)
		if res.IsError || textOf(res.Content) != tc.want {
			t.Errorf("%s = %q (isError %v), want %q", tc.tool, textOf(res.Content), res.IsError, tc.want)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// The multi-round tool asked its two questions in order, over the session.
	if i := indexOf(a.elicited, "Step 1: What is your name?"); i < 0 || i+1 >= len(a.elicited) || a.elicited[i+1] != "Step 2: What is your favorite color?" {
		t.Errorf("elicitations = %q", a.elicited)
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func TestLegacyInputPrompt(t *testing.T) {
	cs := connectFixtures(t, (&answeringClient{}).options())
	res, err := cs.GetPrompt(context.Background(), "test_input_required_result_prompt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Content.Text != "Answer using this context: test context" {
		t.Errorf("prompt = %+v", res.Messages)
	}
}

// A legacy client that declared only sampling is asked only for sampling, and one
// that lacks what a tool needs gets an isError result, never a hang.
func TestLegacyInputCapabilities(t *testing.T) {
	a := &answeringClient{}
	opts := a.options()
	opts.ElicitationHandler, opts.Roots = nil, nil
	cs := connectFixtures(t, opts)
	if res := callFixture(t, cs, "test_input_required_result_capabilities", nil); res.IsError || textOf(res.Content) != "model: Paris." {
		t.Errorf("sampling only = %+v", res)
	}
	res := callFixture(t, cs, "test_input_required_result_elicitation", nil)
	if !res.IsError || !strings.Contains(textOf(res.Content), "capability") {
		t.Errorf("elicitation without the capability = %+v", res)
	}
	if res := callFixture(t, connectFixtures(t, nil), "test_missing_capability", nil); !res.IsError {
		t.Errorf("test_missing_capability without sampling = %+v", res)
	}
}
