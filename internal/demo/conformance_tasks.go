package demo

// The fixtures of the conformance suite's tasks scenarios (tasks-*, the
// "io.modelcontextprotocol/tasks" extension, @modelcontextprotocol/conformance
// 0.2.0-alpha.12): the tools they call by name, with the suite's names,
// arguments and texts. They run as tasks in both eras — in 2025-11-25 when the
// client asks (the tools declare task support), in 2026-07-28 when the client
// declares the extension.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// taskSupport returns a tool execution declaring the given task support.
func taskSupport(level protocol.TaskSupport) *protocol.ToolExecution {
	return &protocol.ToolExecution{TaskSupport: level}
}

// greetInput is the input of the greet tool.
type greetInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// slowComputeInput is the input of slow_compute.
type slowComputeInput struct {
	Seconds float64 `json:"seconds" jsonschema:"how long the computation takes, in seconds (0 for at once)"`
	Label   string  `json:"label,omitempty" jsonschema:"a name for the computation, echoed in the result"`
}

// confirmDeleteInput is the input of confirm_delete.
type confirmDeleteInput struct {
	Filename string `json:"filename" jsonschema:"the file to delete once the user confirms"`
}

// taskConfirmForm asks the user for a yes or no.
var taskConfirmForm = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","description":"Go ahead?"}},"required":["confirm"]}`)

// taskNameForm asks the user for a name.
var taskNameForm = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Your name"}},"required":["name"]}`)

// addConformanceTaskFixtures registers the tools of the tasks-* scenarios.
// failing_job's pause is ten count intervals (one second by default), as the
// suite expects ("after ~1s").
func addConformanceTaskFixtures(s *mcp.Server, o *Options) error {
	jobPause := 10 * o.CountInterval
	return errors.Join(
		// tasks-lifecycle, tasks-dispatch-and-envelope, tasks-request-headers:
		// a tool that never runs as a task.
		mcp.AddTool(s, &protocol.Tool{Name: "greet", Description: "Greets someone at once; never a task (conformance: tasks-*)."},
			func(ctx context.Context, req *mcp.ToolRequest, in greetInput) (string, error) {
				return "Hello, " + in.Name + "!", nil
			}),
		// tasks-*: the task-supporting tool; a cancelled computation stops.
		mcp.AddTool(s, &protocol.Tool{Name: "slow_compute", Description: "Computes for the given number of seconds; runs as a task when the client can take one (conformance: tasks-*).",
			Execution: taskSupport(protocol.TaskSupportOptional)},
			func(ctx context.Context, req *mcp.ToolRequest, in slowComputeInput) (string, error) {
				if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
					return "", fmt.Errorf("computation %q stopped: %w", in.Label, err)
				}
				return fmt.Sprintf("Computed %q in %g seconds.", in.Label, in.Seconds), nil
			}),
		// tasks-lifecycle, tasks-dispatch-and-envelope, tasks-required-task-error:
		// task support "required"; the tool itself fails.
		mcp.AddTool(s, &protocol.Tool{Name: "failing_job", Description: "Always fails after a moment with a tool error; must run as a task (conformance: tasks-*).",
			Execution: taskSupport(protocol.TaskSupportRequired)},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				if err := pause(ctx, jobPause); err != nil {
					return "", err
				}
				return "", errors.New("the job failed: this tool always fails (a tool error, not a protocol error)")
			}),
		// tasks-lifecycle: a protocol-level failure, which fails the task with a
		// JSON-RPC error instead of completing it with isError.
		mcp.AddTool(s, &protocol.Tool{Name: "protocol_error_job", Description: "Ends with a JSON-RPC internal error (conformance: tasks-lifecycle).",
			Execution: taskSupport(protocol.TaskSupportOptional)},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (*protocol.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the job's backend is unavailable"}
			}),
		// tasks-mrtr-input, tasks-dispatch-and-envelope: one input request inside the task.
		mcp.AddTool(s, &protocol.Tool{Name: "confirm_delete", Description: "Asks the user to confirm, then deletes the file (nothing is deleted: a demo) (conformance: tasks-mrtr-input).",
			Execution: taskSupport(protocol.TaskSupportOptional)},
			func(ctx context.Context, req *mcp.ToolRequest, in confirmDeleteInput) (string, error) {
				res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: fmt.Sprintf("Delete %s?", in.Filename), RequestedSchema: taskConfirmForm})
				if err != nil {
					return "", err
				}
				if res.Action != protocol.ElicitActionAccept || res.Content["confirm"] != true {
					return fmt.Sprintf("Kept %s.", in.Filename), nil
				}
				return fmt.Sprintf("Deleted %s.", in.Filename), nil
			}),
		// tasks-mrtr-input: two input requests outstanding at once.
		mcp.AddTool(s, &protocol.Tool{Name: "multi_input", Description: "Asks two questions at once (conformance: tasks-mrtr-input).",
			Execution: taskSupport(protocol.TaskSupportOptional)},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				got, err := req.Input(ctx, map[string]protocol.InputRequest{
					"first":  protocol.NewElicitInputRequest(&protocol.ElicitParams{Message: "First question: your name?", RequestedSchema: taskNameForm}),
					"second": protocol.NewElicitInputRequest(&protocol.ElicitParams{Message: "Second question: go ahead?", RequestedSchema: taskConfirmForm}),
				})
				if err != nil {
					return "", err
				}
				var first, second protocol.ElicitResult
				if _, err := got.Decode("first", &first); err != nil {
					return "", err
				}
				if _, err := got.Decode("second", &second); err != nil {
					return "", err
				}
				return fmt.Sprintf("Answers: first=%s %v, second=%s %v.", first.Action, first.Content, second.Action, second.Content), nil
			}),
		// tasks-mrtr-composition: input first (an input_required round trip),
		// then the rest as a task whose result uses the answer.
		mcp.AddTool(s, &protocol.Tool{Name: "test_tool_with_task", Description: "Asks the user's name, then greets them from a task (conformance: tasks-mrtr-composition)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (*protocol.CallToolResult, error) {
				res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: "What is your name?", RequestedSchema: taskNameForm})
				if err != nil {
					return nil, err
				}
				name, _ := res.Content["name"].(string)
				if res.Action != protocol.ElicitActionAccept || name == "" {
					return protocol.NewToolResultText("Hello, stranger!"), nil
				}
				return req.RunAsTask(ctx, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
					return protocol.NewToolResultText("Hello, " + name + "! (greeted from a task)"), nil
				})
			}),
	)
}
