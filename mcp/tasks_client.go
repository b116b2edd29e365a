package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file is the client's side of tasks: following a task a server created
// for a tool call, in both eras. In 2025-11-25 the client asks for a task
// (CallToolAsTask) and fetches the result with tasks/result; with the tasks
// extension (2026-07-28) the server decides, and the task's state, input
// requests and result all come from tasks/get.

// ErrTaskCancelled is returned by AwaitTask for a task that was cancelled: it
// has no result.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
var ErrTaskCancelled = errors.New("mcp: the task was cancelled")

// CallToolAsTask calls the tool name as a task (2025-11-25), with args as
// [ClientSession.CallTool] takes them: the server answers at once with the
// task, which GetTask, AwaitTask and CancelTask follow. ttl asks for how long
// the server keeps it (zero lets the server choose). Only legacy sessions at
// 2025-11-25 can ask; in the stateless era the server decides whether a call
// becomes a task.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
func (cs *ClientSession) CallToolAsTask(ctx context.Context, name string, args any, ttl time.Duration, opts ...RequestOption) (*protocol.Task, error) {
	if cs.stateless != nil || !protocol.HasTasks(cs.ProtocolVersion()) {
		return nil, fmt.Errorf("mcp: tools/call as a task needs protocol 2025-11-25 (this session speaks %s)", cs.ProtocolVersion())
	}
	raw, err := toolArguments(args)
	if err != nil {
		return nil, fmt.Errorf("mcp: calling tool %q as a task: %w", name, err)
	}
	params := protocol.CallToolParams{Name: name, Arguments: raw, Task: &protocol.TaskMetadata{TTL: protocol.Milliseconds(ttl)}}
	var res protocol.CreateTaskResult
	if err := cs.request(ctx, &outgoing{method: protocol.MethodToolsCall, params: &params, meta: &params.Meta}, &res, opts); err != nil {
		return nil, err
	}
	if res.Task.TaskID == "" {
		return nil, errors.New("mcp: tools/call as a task: the server answered without a task")
	}
	return &res.Task, nil
}

// GetTask returns a task's state (tasks/get). In the stateless era it carries
// what the status calls for: the input requests, the result or the error. A
// 2025-11-25 task is reported in the same shape, without those (AwaitTask gets
// its result).
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func (cs *ClientSession) GetTask(ctx context.Context, id string, opts ...RequestOption) (*protocol.DetailedTask, error) {
	p := &protocol.GetTaskParams{TaskID: id}
	out := &outgoing{method: protocol.MethodTasksGet, params: p, meta: &p.Meta}
	if cs.stateless != nil {
		var res protocol.DetailedTask
		if err := cs.request(ctx, out, &res, opts); err != nil {
			return nil, err
		}
		return &res, nil
	}
	var res protocol.GetTaskResult
	if err := cs.request(ctx, out, &res, opts); err != nil {
		return nil, err
	}
	return &protocol.DetailedTask{Meta: res.Meta, ExtensionTask: extensionFromLegacy(res.Task)}, nil
}

// extensionFromLegacy converts a 2025-11-25 task to the extension's shape.
func extensionFromLegacy(t protocol.Task) protocol.ExtensionTask {
	return protocol.ExtensionTask{
		TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTL, PollIntervalMs: t.PollInterval,
	}
}

// CancelTask asks the server to cancel a task (tasks/cancel). In 2025-11-25 a
// task that already ended cannot be cancelled (an error); with the extension
// the request is only acknowledged, and the task may still end otherwise.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func (cs *ClientSession) CancelTask(ctx context.Context, id string, opts ...RequestOption) error {
	p := &protocol.CancelTaskParams{TaskID: id}
	return cs.request(ctx, &outgoing{method: protocol.MethodTasksCancel, params: p, meta: &p.Meta}, nil, opts)
}

// UpdateTask answers some or all of a task's input requests (tasks/update, the
// stateless era). Answers under keys the task is not waiting on are ignored by
// the server.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
func (cs *ClientSession) UpdateTask(ctx context.Context, id string, responses protocol.InputResponses, opts ...RequestOption) error {
	if cs.stateless == nil {
		return fmt.Errorf("mcp: tasks/update: %w", ErrStatelessOnly)
	}
	p := &protocol.UpdateTaskParams{TaskID: id, InputResponses: responses}
	return cs.request(ctx, &outgoing{method: protocol.MethodTasksUpdate, params: p, meta: &p.Meta}, nil, opts)
}

// ListTasks returns one page of the tasks the server keeps for this client
// (tasks/list, 2025-11-25; the extension has no list).
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
func (cs *ClientSession) ListTasks(ctx context.Context, cursor protocol.Cursor, opts ...RequestOption) (*protocol.ListTasksResult, error) {
	if cs.stateless != nil {
		return nil, fmt.Errorf("mcp: tasks/list: %w", ErrLegacyOnly)
	}
	p := &protocol.ListTasksParams{Cursor: cursor}
	var res protocol.ListTasksResult
	if err := cs.request(ctx, &outgoing{method: protocol.MethodTasksList, params: p, meta: &p.Meta}, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// AwaitTask follows a tool-call task to its end and returns the tool's result.
// A task that failed with a JSON-RPC error returns that error (a
// *jsonrpc.Error); a cancelled one ErrTaskCancelled.
//
// In 2025-11-25 it asks for the result at once (tasks/result, which the server
// answers when the task ends). In the stateless era it polls tasks/get at the
// interval the server suggests, and answers the task's input requests through
// the client's handlers (ClientOptions.ElicitationHandler, ...) with
// tasks/update.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func (cs *ClientSession) AwaitTask(ctx context.Context, id string, opts ...RequestOption) (*protocol.CallToolResult, error) {
	if cs.stateless == nil {
		p := &protocol.GetTaskPayloadParams{TaskID: id}
		var res protocol.CallToolResult
		if err := cs.request(ctx, &outgoing{method: protocol.MethodTasksResult, params: p, meta: &p.Meta}, &res, opts); err != nil {
			return nil, err
		}
		return &res, nil
	}
	answered := map[string]bool{}
	for {
		t, err := cs.GetTask(ctx, id, opts...)
		if err != nil {
			return nil, err
		}
		switch t.Status {
		case protocol.TaskStatusCompleted:
			var res protocol.CallToolResult
			if err := json.Unmarshal(t.Result, &res); err != nil {
				return nil, fmt.Errorf("mcp: task %s: decoding its result: %w", id, err)
			}
			return &res, nil
		case protocol.TaskStatusFailed:
			if t.Error != nil {
				return nil, t.Error
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.StatusMessage}
		case protocol.TaskStatusCancelled:
			return nil, ErrTaskCancelled
		case protocol.TaskStatusInputRequired:
			fresh := make(map[string]protocol.InputRequest, len(t.InputRequests))
			for k, v := range t.InputRequests {
				if !answered[k] {
					fresh[k] = v
				}
			}
			if len(fresh) > 0 {
				answers, err := cs.answerInput(ctx, fresh)
				if err != nil {
					return nil, fmt.Errorf("mcp: task %s: %w", id, err)
				}
				if err := cs.UpdateTask(ctx, id, answers, opts...); err != nil {
					return nil, err
				}
				for k := range fresh {
					answered[k] = true
				}
				continue // look again at once: the answers may have moved the task on
			}
		}
		if err := waitPoll(ctx, t.PollIntervalMs); err != nil {
			return nil, err
		}
	}
}

// waitPoll waits the suggested polling interval (one second when none, at
// least a millisecond), or until ctx ends.
func waitPoll(ctx context.Context, intervalMs *int64) error {
	d := time.Second
	if intervalMs != nil {
		d = max(time.Duration(*intervalMs)*time.Millisecond, time.Millisecond)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
