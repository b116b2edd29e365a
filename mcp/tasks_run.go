package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
)

// This file starts tasks (from tools/call, or from a handler's RunAsTask) and
// runs them: the handler in a goroutine the task manager owns, rounds of
// input in the 2026-07-28 era, and the final result or error kept in the store.

// toolTaskLink ties a ToolRequest to the tasks machinery.
type toolTaskLink struct {
	inside  bool // the handler runs inside a task already
	created any  // set by RunAsTask: the CreateTaskResult answering the call
	err     error
}

// handedOff returns what answers the call when the handler handed it to a task
// (RunAsTask): the task it created, or why it could not.
func (l *toolTaskLink) handedOff() (any, error) { return l.created, l.err }

// InTask reports whether the handler runs inside a task: the call became a
// task before the handler started (the tool supports tasks and the client
// took one), or RunAsTask handed it to one. A gateway uses it to forward the
// call as a task in its turn.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func (r *ToolRequest) InTask() bool { return r.task.inside }

// RunAsTask hands the rest of a tool call to a task, when the client can take
// one: fn then runs in the background and the call is answered at once with the
// task. Use it in a handler that must first do something synchronously — ask
// the client for input with an input_required round trip, check arguments
// against the world — and then runs long:
//
//	name, err := askName(ctx, req) // Elicit: answered before the task exists
//	if err != nil {
//		return nil, err
//	}
//	return req.RunAsTask(ctx, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
//		return slowGreeting(ctx, name)
//	})
//
// A task is created only for a 2026-07-28 request whose client declared the
// tasks extension. Otherwise — a legacy client, or a call that already runs in
// a task because the tool declares task support — RunAsTask runs fn at once
// and returns its result, so the same handler serves every client. When it
// created a task, the result it returns is a placeholder the SDK replaces with
// the task; the handler should return it as it is.
//
// Inside the task fn may ask for input again (Elicit, CreateMessage,
// ListRoots, Input): the task waits in status input_required until the client
// answers with tasks/update, then fn runs again from its start with every
// answer so far, as in an input_required round trip.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
func (r *ToolRequest) RunAsTask(ctx context.Context, fn ToolHandler) (*protocol.CallToolResult, error) {
	if r.task.inside || r.stateless == nil || !r.stateless.caps.DeclaresTasksExtension() || r.Params == nil {
		return fn(ctx, r)
	}
	if in := r.stateless.input; in != nil && in.unsettled() {
		return nil, ErrInputRequired // the synchronous part is not finished (or failed)
	}
	s := r.server()
	rec, err := s.tasks.start(ctx, &r.Request, &taskSpec{params: *r.Params, handler: fn}, 0)
	if err != nil {
		r.task.err = err
		return nil, err
	}
	r.task.created = s.tasks.createdResult(rec)
	return &protocol.CallToolResult{Content: []protocol.Content{}}, nil
}

// unsettled reports whether the call's input round trip is unfinished or
// failed: input asked for and not given, a capability or a state missing, an
// answer that did not decode. The call is then answered with that, not a task.
func (in *inputRound) unsettled() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.pending) > 0 || in.missing != nil || in.invalid != nil || in.loadErr != nil
}

// startForCall decides whether a tools/call becomes a task before its handler
// runs. It returns the CreateTaskResult and true when it started one, an error
// when the call cannot run without a task the client does not take, and
// false otherwise (the call runs as usual).
func (m *taskManager) startForCall(ctx context.Context, r *Request, t *serverTool, p *protocol.CallToolParams) (any, bool, error) {
	support := t.tool.TaskSupportLevel()
	var ttl time.Duration
	switch {
	case r.stateless != nil:
		if support == protocol.TaskSupportForbidden {
			return nil, false, nil
		}
		if !r.stateless.caps.DeclaresTasksExtension() {
			if support == protocol.TaskSupportRequired {
				return nil, false, missingCapability(protocol.ClientCapabilities{
					Extensions: map[string]map[string]any{protocol.ExtensionTasks: {}},
				}, "extensions."+protocol.ExtensionTasks)
			}
			return nil, false, nil
		}
	case protocol.HasTasks(r.ProtocolVersion()):
		if p.Task == nil && support != protocol.TaskSupportRequired {
			return nil, false, nil // the common case, decided without a lock
		}
		if !m.s.tasksDeclared() {
			return nil, false, nil // without the capability, task metadata is ignored
		}
		if p.Task == nil {
			if support == protocol.TaskSupportRequired {
				return nil, false, errorf(CodeMethodNotFound, "Method not found: tool %q must be called as a task (execution.taskSupport is \"required\")", p.Name)
			}
			return nil, false, nil
		}
		if support == protocol.TaskSupportForbidden {
			return nil, false, errorf(CodeMethodNotFound, "Method not found: tool %q cannot be called as a task", p.Name)
		}
		if p.Task.TTL != nil {
			ttl = time.Duration(*p.Task.TTL) * time.Millisecond
		}
	default:
		return nil, false, nil // no tasks before 2025-11-25: the call runs as usual
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = emptyObject
	}
	if r.stateless != nil && t.validate(args) != nil {
		return nil, false, nil // the usual path reports invalid arguments at once
	}
	// A 2025-11-25 client that asked for a task gets one even then: the
	// task reports the invalid arguments.
	spec := &taskSpec{params: *p, handler: t.handler, tool: t}
	spec.params.Arguments = args
	rec, err := m.start(ctx, r, spec, ttl)
	if err != nil {
		return nil, false, err
	}
	return m.createdResult(rec), true, nil
}

// createdResult is the answer to a call that became task rec, in the shape of
// the request's era.
func (m *taskManager) createdResult(rec *taskstore.Record) any {
	if protocol.IsStateless(rec.ProtocolVersion) {
		return &protocol.ExtensionCreateTaskResult{
			Meta:          m.s.resultMeta(nil),
			ResultType:    protocol.ResultTypeTask,
			ExtensionTask: extensionTask(rec),
		}
	}
	return &protocol.CreateTaskResult{Task: task20251125(rec)}
}

// taskSpec is what a task runs: a tool handler and the call's params.
type taskSpec struct {
	params  protocol.CallToolParams
	handler ToolHandler
	tool    *serverTool // when set, the arguments are validated against its schema first
}

// taskRun is one running task.
type taskRun struct {
	m         *taskManager
	id        string
	owner     string
	version   string
	spec      *taskSpec
	session   *ServerSession
	meta      protocol.Meta  // the call's _meta (legacy: its progress token stays valid)
	stateless *statelessCall // what the call declared in its 2026-07-28 _meta (nil in the legacy era)

	ctx    context.Context
	cancel context.CancelCauseFunc
}

// start creates the task in the store (so tasks/get finds it as soon as the
// call is answered) and starts its handler. ttl zero means the default.
func (m *taskManager) start(ctx context.Context, r *Request, spec *taskSpec, ttl time.Duration) (*taskstore.Record, error) {
	if ttl <= 0 {
		ttl = m.opts.DefaultTTL
	}
	ttl = min(ttl, m.opts.MaxTTL)
	now := m.opts.Now()
	owner := m.owner(ctx, r)
	rec := &taskstore.Record{
		ID: rand.Text(), Owner: owner, Method: protocol.MethodToolsCall, Name: spec.params.Name,
		ProtocolVersion: r.ProtocolVersion(), Status: protocol.TaskStatusWorking,
		StatusMessage: "The operation is now in progress.",
		CreatedAt:     now, UpdatedAt: now, TTL: ttl, PollInterval: m.opts.PollInterval,
	}
	t := &taskRun{m: m, id: rec.ID, owner: owner, version: rec.ProtocolVersion, spec: spec, session: r.Session, meta: r.Meta}
	if r.stateless != nil {
		mc := *r.stateless
		mc.input, mc.logLevel = nil, "" // tasks get no log notifications (2026-07-28)
		t.stateless, t.meta = &mc, nil  // nor progress
	}
	// The task outlives the request: it keeps the request's values (the
	// principal) but not its cancellation, and ends with its TTL.
	tctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	tctx, cancelDeadline := context.WithDeadline(tctx, time.Now().Add(ttl))
	t.ctx = tctx
	t.cancel = func(cause error) { cancel(cause); cancelDeadline() }

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		t.cancel(errShutdown)
		return nil, errorf(CodeInternalError, "internal error: the server is shutting down")
	}
	limit := m.opts.MaxPerRequestor
	if err := m.store.Create(ctx, rec, max(limit, 0)); err != nil {
		m.mu.Unlock()
		t.cancel(err)
		return nil, m.storeError(err)
	}
	m.running[t.id] = t
	m.wg.Add(1)
	m.mu.Unlock()
	stopOnShutdown := context.AfterFunc(m.base, func() { t.cancel(context.Cause(m.base)) })
	go func() {
		defer m.wg.Done()
		defer stopOnShutdown()
		t.run()
	}()
	return rec, nil
}

// run runs the task to its end: rounds of the handler separated by waits for
// input, then the outcome stored.
func (t *taskRun) run() {
	defer func() {
		t.m.mu.Lock()
		delete(t.m.running, t.id)
		t.m.mu.Unlock()
	}()
	watched := make(chan struct{})
	go t.watch(watched)
	defer func() {
		t.cancel(errTaskDone)
		<-watched
	}()
	var responses protocol.InputResponses
	for {
		res, in, err := t.round(responses)
		var st inputState
		if in != nil {
			st = in.taskState()
		}
		if st.missing == nil && st.invalid == nil && len(st.pending) > 0 && t.ctx.Err() == nil {
			var ok bool
			if responses, ok = t.awaitInput(st.pending); ok {
				continue
			}
			return
		}
		t.finish(res, err, st)
		return
	}
}

// inputState is what a handler's round of input left behind.
type inputState struct {
	pending map[string]protocol.InputRequest // asked for, not answered
	missing *protocol.ClientCapabilities     // needed, not declared by the client
	invalid error                            // an answer that did not decode
}

// taskState returns the round's outcome (the handler may have left goroutines
// behind, hence the lock).
func (in *inputRound) taskState() inputState {
	in.mu.Lock()
	defer in.mu.Unlock()
	return inputState{pending: maps.Clone(in.pending), missing: in.missing, invalid: in.invalid}
}

// errTaskDone cancels a task's context once its handler has returned.
var errTaskDone = errors.New("mcp: the task is over")

// round runs the handler once, with the answers received so far.
func (t *taskRun) round(responses protocol.InputResponses) (*protocol.CallToolResult, *inputRound, error) {
	params := t.spec.params
	req := &ToolRequest{Request: Request{Session: t.session, Meta: t.meta}, Params: &params}
	req.task.inside = true
	var in *inputRound
	if t.stateless == nil {
		req.sessionTask = t
	} else {
		in = &inputRound{loaded: true, responses: maps.Clone(responses)}
		if in.responses == nil {
			in.responses = protocol.InputResponses{}
		}
		mc := *t.stateless
		mc.input = in
		req.stateless = &mc
	}
	if tool := t.spec.tool; tool != nil {
		if err := tool.validate(params.Arguments); err != nil {
			return protocol.NewToolResultError(fmt.Sprintf("invalid arguments for tool %q: %v", tool.tool.Name, err)), in, nil
		}
	}
	res, err := t.m.s.callToolHandler(t.ctx, t.spec.handler, req)
	return res, in, err
}

// callToolHandler runs a tool handler, turning a panic into an internal error.
func (s *Server) callToolHandler(ctx context.Context, h ToolHandler, req *ToolRequest) (res *protocol.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp: tool handler panicked in a task", "tool", req.Params.Name, "panic", p, rpcconn.StackAttr())
			res, err = nil, errorf(CodeInternalError, "tool %q failed: internal error", req.Params.Name)
		}
	}()
	res, err = h(ctx, req)
	return req.resolveRaw(res), err
}

// awaitInput records the handler's requests for input in the task (status
// input_required) and waits until tasks/update has answered them all. It
// returns every answer so far, or false when the task ended meanwhile
// (cancelled, expired, the server stopping).
func (t *taskRun) awaitInput(pending map[string]protocol.InputRequest) (protocol.InputResponses, bool) {
	store := t.m.store
	rec, err := store.Update(t.ctx, t.id, func(r *taskstore.Record) error {
		if r.Status.IsTerminal() {
			return errTaskDone
		}
		reqs := make(map[string]protocol.InputRequest, len(pending))
		for k, v := range pending {
			if _, answered := r.InputResponses[k]; !answered {
				reqs[k] = v
			}
		}
		if len(reqs) == 0 {
			return nil // answered meanwhile: nothing to wait for
		}
		r.Status, r.InputRequests = protocol.TaskStatusInputRequired, reqs
		r.StatusMessage = "The operation is waiting for input from the client."
		r.UpdatedAt = t.m.opts.Now()
		return nil
	})
	for err == nil && rec.Status == protocol.TaskStatusInputRequired {
		rec, err = store.Wait(t.ctx, t.id, rec.Revision)
	}
	if err != nil || rec.Status != protocol.TaskStatusWorking {
		return nil, false
	}
	return rec.InputResponses, true
}

// finish stores the handler's outcome. A result — isError included — completes
// the task (2025-11-25: a tool error fails it, keeping the result); a JSON-RPC
// error, a panic or an input the client could not give fails it. A task that
// was cancelled meanwhile stays cancelled.
func (t *taskRun) finish(res *protocol.CallToolResult, err error, in inputState) {
	var rpcErr *jsonrpc.Error
	cause := context.Cause(t.ctx)
	switch {
	case in.missing != nil:
		rpcErr = missingCapability(*in.missing, capabilityNames(*in.missing))
	case in.invalid != nil:
		rpcErr = errorf(CodeInvalidParams, "invalid params: %v", in.invalid)
	case errors.Is(cause, errShutdown), errors.Is(cause, errSessionEnded):
		rpcErr = errorf(CodeInternalError, "internal error: %v", cause)
	case err != nil && errors.As(err, &rpcErr):
	case err != nil:
		res = protocol.NewToolResultError(err.Error())
	case res == nil:
		res = &protocol.CallToolResult{Content: []protocol.Content{}}
	}
	status, message := protocol.TaskStatusCompleted, "The operation completed."
	var payload json.RawMessage
	if rpcErr != nil {
		status, message = protocol.TaskStatusFailed, rpcErr.Message
	} else {
		out := res.ForVersion(t.version)
		var v any = out
		if t.stateless != nil {
			v = t.m.s.finishStateless(out) // what the call would have returned
		} else if out.IsError {
			status, message = protocol.TaskStatusFailed, firstText(out)
		}
		var merr error
		if payload, merr = json.Marshal(v); merr != nil {
			status, message = protocol.TaskStatusFailed, "encoding the result failed"
			rpcErr, payload = errorf(CodeInternalError, "internal error: encoding the tool's result: %v", merr), nil
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), 10*time.Second)
	defer cancel()
	rec, uerr := t.m.store.Update(ctx, t.id, func(r *taskstore.Record) error {
		if r.Status.IsTerminal() {
			return errTaskDone // cancelled meanwhile: it stays cancelled
		}
		r.Status, r.StatusMessage, r.Result, r.Error = status, message, payload, rpcErr
		r.InputRequests = nil
		r.UpdatedAt = t.m.opts.Now()
		return nil
	})
	if uerr != nil {
		if !errors.Is(uerr, errTaskDone) && !errors.Is(uerr, taskstore.ErrNotFound) {
			t.m.s.log.Error("mcp: storing a task's outcome failed", "task", t.id, "error", uerr)
		}
		return
	}
	t.notifyStatus(rec)
}

// firstText returns the text of a result's first text block ("" when none).
func firstText(res *protocol.CallToolResult) string {
	for _, c := range res.Content {
		if c.Type == protocol.ContentTypeText {
			return c.Text
		}
	}
	return ""
}

// watch follows the task in the store while it runs: a cancellation (made by
// any replica) cancels the handler's context, and status changes are reported
// to a legacy client. It returns when the task ends or its context does.
func (t *taskRun) watch(done chan<- struct{}) {
	defer close(done)
	last := protocol.TaskStatusWorking
	var rev uint64 = 1
	for {
		rec, err := t.m.store.Wait(t.ctx, t.id, rev)
		if err != nil {
			if errors.Is(err, taskstore.ErrNotFound) {
				t.cancel(taskstore.ErrNotFound) // expired or deleted: nobody can see the outcome
			}
			return
		}
		rev = rec.Revision
		if rec.Status == last {
			continue
		}
		last = rec.Status
		switch rec.Status {
		case protocol.TaskStatusCompleted, protocol.TaskStatusFailed:
			return // the runner stored it and reports it
		case protocol.TaskStatusCancelled:
			t.notifyStatus(rec)
			t.cancel(errTaskCancelled)
			return
		}
		t.notifyStatus(rec)
	}
}

// errTaskCancelled is the cause of a task's context cancellation by tasks/cancel.
var errTaskCancelled = errors.New("mcp: the task was cancelled")

// notifyStatus announces a status change: to the listen streams that asked for
// the task (the 2026-07-28 extension's notifications/tasks), and with
// notifications/tasks/status to the legacy session that created the task, if it
// is still connected (2025-11-25; the notification is optional and best effort).
func (t *taskRun) notifyStatus(rec *taskstore.Record) {
	t.m.s.publish(Change{Kind: TaskUpdated, TaskID: t.id}) // to subscriptions/listen streams (extension)
	ss := t.session
	if t.stateless != nil || ss == nil || !protocol.HasTasks(t.version) {
		return
	}
	select {
	case <-ss.Done():
		return
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ss.notify(ctx, protocol.NotificationTasksStatus, &protocol.TaskStatusParams{Task: task20251125(rec)}); err != nil {
		t.m.s.log.Debug("mcp: task status notification failed", "task", t.id, "error", err)
	}
}

// cancelTask marks a task cancelled (its runner, wherever it runs, sees the
// change and cancels the handler). It reports whether the task was still
// running; a task already final is left as it is.
func (m *taskManager) cancelTask(ctx context.Context, id string) (*taskstore.Record, bool, error) {
	wasFinal := false
	rec, err := m.store.Update(ctx, id, func(r *taskstore.Record) error {
		wasFinal = false // fn may run more than once
		if r.Status.IsTerminal() {
			wasFinal = true
			return errTaskDone
		}
		r.Status, r.StatusMessage = protocol.TaskStatusCancelled, "The task was cancelled by request."
		r.InputRequests = nil
		r.UpdatedAt = m.opts.Now()
		return nil
	})
	if wasFinal {
		rec, err = m.store.Get(ctx, id)
		if err != nil {
			return nil, false, m.storeError(err)
		}
		return rec, false, nil
	}
	if err != nil {
		return nil, false, m.storeError(err)
	}
	return rec, true, nil
}
