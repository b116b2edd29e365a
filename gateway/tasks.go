package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Tasks through the gateway.
//
// A client that calls a tool as a task (2025-11-25's "task" param, or a
// 2026-07-28 client that declared the tasks extension) gets a task of the
// gateway: the gateway's own task manager (Options.Server.Tasks, an in-memory
// store by default) gives it a random, unguessable id, keeps it to its owner
// (the authenticated principal, else the legacy session), and answers
// tasks/get, tasks/result, tasks/list, tasks/cancel and tasks/update and the
// status notifications in the client's era. Inside that task the call goes on
// to the server:
//
//   - a legacy server that declares tasks for tools/call (2025-11-25) gets the
//     call as a task of its own: the gateway keeps the server's task id to
//     itself (the client only ever sees the gateway's id, so ids cannot clash
//     across servers), waits for its result with tasks/result, and cancels it
//     with tasks/cancel when the client cancels the gateway's task (or it
//     expires). The server's requests for input during its task reach the
//     client through the gateway's task (status input_required);
//   - any other server is called synchronously and the gateway's task holds
//     the call: the client still polls, and its cancellation cancels the
//     call.
//
// Which tools accept tasks is what their server says, as long as the gateway
// can honour it: a legacy server's tool keeps its execution.taskSupport when
// the server declares tasks; a stateless server's tool keeps "optional" (the
// mcp client does not take tasks of the tasks extension, so the call is
// synchronous upstream) and loses "required" (such a call could not be made);
// anything else is offered without task support, and a 2025-11-25 client
// asking for a task is refused with -32601 as the specification says.

// upstreamTaskCancelTimeout bounds the tasks/cancel sent to a server when the
// gateway's task ends before the server's.
const upstreamTaskCancelTimeout = 10 * time.Second

// taskSupport returns the execution a tool is offered with on the gateway,
// given its server's session (see above).
func taskSupport(cs *mcp.ClientSession, t *protocol.Tool) *protocol.ToolExecution {
	level := t.TaskSupportLevel()
	if level == protocol.TaskSupportForbidden || cs == nil {
		return nil
	}
	if cs.IsStateless() {
		if level == protocol.TaskSupportOptional {
			return &protocol.ToolExecution{TaskSupport: level}
		}
		return nil
	}
	if forwardsTasks(cs) {
		return &protocol.ToolExecution{TaskSupport: level}
	}
	return nil
}

// forwardsTasks reports whether a server takes tools/call as a task: a legacy
// session at 2025-11-25 whose server declared tasks for tools/call.
func forwardsTasks(cs *mcp.ClientSession) bool {
	if cs.IsStateless() || !protocol.HasTasks(cs.ProtocolVersion()) {
		return false
	}
	t := cs.InitializeResult().Capabilities.Tasks
	return t != nil && t.Requests != nil && t.Requests.Tools != nil && t.Requests.Tools.Call != nil
}

// callAsTask forwards a call that runs in a gateway task to the server as a
// task of the server's, and waits for its result. It returns false when the
// server does not take tasks (the caller then calls it synchronously).
func (g *Gateway) callAsTask(c *inflight, req *mcp.ToolRequest, original string) (*protocol.CallToolResult, bool, error) {
	if !forwardsTasks(c.cs) {
		return nil, false, nil
	}
	var ttl time.Duration
	if t := req.Params.Task; t != nil && t.TTL != nil {
		ttl = time.Duration(*t.TTL) * time.Millisecond
	}
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	task, err := c.cs.CallToolAsTask(c.context(), original, args, ttl, c.opts...)
	if err != nil {
		return nil, true, fmt.Errorf("server %q: tools/call as a task: %w", c.u.name, err)
	}
	g.log.Debug("gateway: tool call forwarded as a task", "server", c.u.name, "tool", original, "upstreamTask", task.TaskID)
	res, err := c.cs.AwaitTask(c.context(), task.TaskID)
	if err != nil {
		if c.context().Err() != nil {
			// The gateway's task was cancelled or expired: so is the server's.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(c.context()), upstreamTaskCancelTimeout)
			if cerr := c.cs.CancelTask(cctx, task.TaskID); cerr != nil {
				g.log.Debug("gateway: tasks/cancel", "server", c.u.name, "upstreamTask", task.TaskID, "error", cerr)
			}
			cancel()
			return nil, true, c.context().Err()
		}
		if errors.Is(err, mcp.ErrTaskCancelled) {
			return nil, true, fmt.Errorf("server %q cancelled the task: %w", c.u.name, err)
		}
		return nil, true, fmt.Errorf("server %q: %w", c.u.name, err)
	}
	return res, true, nil
}
