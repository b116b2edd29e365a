package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpkit/mcpkit/internal/rpcshared"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
)

// This file answers the tasks/* methods: tasks/get, tasks/result, tasks/list
// and tasks/cancel as 2025-11-25 defines them, and tasks/get, tasks/update and
// tasks/cancel of the 2026-07-28 tasks extension. A requestor sees only its own
// tasks (see taskManager.owner); anyone else's look like unknown ids.

func init() {
	rpcshared.RegisterMethodNames(protocol.MethodTasksUpdate, protocol.NotificationTasksStatus, protocol.NotificationTasks)
}

// requireSessionTasks fails the 2025-11-25 task methods at versions without them.
func requireSessionTasks(r *Request, method string) error {
	if !protocol.HasTasks(r.ProtocolVersion()) {
		return errorf(CodeMethodNotFound, "Method not found: %s", method)
	}
	return nil
}

// findTask decodes the params of a task method into p and looks up the task *id
// names among the requestor's (an unknown id, or another requestor's task, is
// -32602). It returns the task manager too, for what the method does next.
func findTask(ctx context.Context, r *Request, raw json.RawMessage, p any, id *string) (*taskManager, *taskstore.Record, error) {
	if err := decodeParams(raw, p); err != nil {
		return nil, nil, err
	}
	m := r.server().tasks
	rec, err := m.lookup(ctx, *id, m.owner(ctx, r))
	return m, rec, err
}

// getSessionTask answers tasks/get (2025-11-25).
func getSessionTask(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireSessionTasks(r, protocol.MethodTasksGet); err != nil {
		return nil, err
	}
	var p protocol.GetTaskParams
	_, rec, err := findTask(ctx, r, raw, &p, &p.TaskID)
	if err != nil {
		return nil, err
	}
	return &protocol.GetTaskResult{Task: task20251125(rec)}, nil
}

// sessionTaskResult answers tasks/result (2025-11-25): it waits for the task to
// end, then returns exactly what the call would have returned — its result,
// tagged with the task in _meta, or its JSON-RPC error.
func sessionTaskResult(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireSessionTasks(r, protocol.MethodTasksResult); err != nil {
		return nil, err
	}
	var p protocol.GetTaskPayloadParams
	m, rec, err := findTask(ctx, r, raw, &p, &p.TaskID)
	if err != nil {
		return nil, err
	}
	for !rec.Status.IsTerminal() {
		if rec, err = m.store.Wait(ctx, rec.ID, rec.Revision); err != nil {
			return nil, m.storeError(err)
		}
	}
	switch {
	case rec.Error != nil:
		return nil, rec.Error
	case rec.Status == protocol.TaskStatusCancelled || rec.Result == nil:
		return nil, errorf(CodeInvalidParams, "Task %s was %s: it has no result", rec.ID, rec.Status)
	}
	out, err := withRelatedTask(rec.Result, rec.ID)
	if err != nil {
		return nil, errorf(CodeInternalError, "internal error: the stored result of task %s: %v", rec.ID, err)
	}
	return out, nil
}

// withRelatedTask adds the related-task key to the _meta of a JSON result.
func withRelatedTask(result json.RawMessage, id string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(result, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("the result is not a JSON object")
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
			meta = map[string]json.RawMessage{}
		}
	}
	related, err := json.Marshal(protocol.RelatedTaskMetadata{TaskID: id})
	if err != nil {
		return nil, err
	}
	meta[protocol.MetaKeyRelatedTask] = related
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// listSessionTasks answers tasks/list (2025-11-25): the requestor's tasks,
// oldest first, a page at a time. A requestor the server cannot identify (no
// principal, no session) lists nothing: tasks it cannot bind are reachable by
// id only.
func listSessionTasks(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireSessionTasks(r, protocol.MethodTasksList); err != nil {
		return nil, err
	}
	var p protocol.ListTasksParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	m := r.server().tasks
	owner := m.owner(ctx, r)
	if owner == "" {
		if p.Cursor != "" {
			return nil, errorf(CodeInvalidParams, "invalid params: invalid cursor")
		}
		return &protocol.ListTasksResult{}, nil
	}
	recs, next, err := m.store.List(ctx, owner, string(p.Cursor), r.server().opts.PageSize)
	if err != nil {
		return nil, m.storeError(err)
	}
	res := &protocol.ListTasksResult{Tasks: make([]protocol.Task, len(recs)), NextCursor: protocol.Cursor(next)}
	for i, rec := range recs {
		res.Tasks[i] = task20251125(rec)
	}
	return res, nil
}

// cancelSessionTask answers tasks/cancel (2025-11-25): the task moves to
// cancelled before the answer, which is the task; cancelling a finished task
// is an error.
func cancelSessionTask(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireSessionTasks(r, protocol.MethodTasksCancel); err != nil {
		return nil, err
	}
	var p protocol.CancelTaskParams
	m, _, err := findTask(ctx, r, raw, &p, &p.TaskID)
	if err != nil {
		return nil, err
	}
	rec, cancelled, err := m.cancelTask(ctx, p.TaskID)
	if err != nil {
		return nil, err
	}
	if !cancelled {
		return nil, errorf(CodeInvalidParams, "Cannot cancel task: already in terminal status '%s'", rec.Status)
	}
	return &protocol.CancelTaskResult{Task: task20251125(rec)}, nil
}

// requireTasksExtension fails the extension's methods for a client that did not
// declare it (-32021, naming the extension).
func requireTasksExtension(r *Request) error {
	if r.stateless.caps.DeclaresTasksExtension() {
		return nil
	}
	return missingCapability(protocol.ClientCapabilities{
		Extensions: map[string]map[string]any{protocol.ExtensionTasks: {}},
	}, "extensions."+protocol.ExtensionTasks)
}

// getTaskStateless answers the extension's tasks/get: the task and, by status,
// its input requests, result or error.
func getTaskStateless(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireTasksExtension(r); err != nil {
		return nil, err
	}
	var p protocol.GetTaskParams
	_, rec, err := findTask(ctx, r, raw, &p, &p.TaskID)
	if err != nil {
		return nil, err
	}
	d := detailedTask(rec)
	d.ResultType, d.Meta = protocol.ResultTypeComplete, r.server().resultMeta(nil)
	return d, nil
}

// updateTaskStateless answers the extension's tasks/update: answers to
// outstanding input requests are kept for the task (answers under other keys
// are ignored, as the extension asks); once none is outstanding the task
// works again. The answer is an empty acknowledgement.
func updateTaskStateless(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireTasksExtension(r); err != nil {
		return nil, err
	}
	var p protocol.UpdateTaskParams
	m, _, err := findTask(ctx, r, raw, &p, &p.TaskID)
	if err != nil {
		return nil, err
	}
	_, err = m.store.Update(ctx, p.TaskID, func(rec *taskstore.Record) error {
		if rec.Status.IsTerminal() {
			return errTaskDone // nothing to answer any more
		}
		changed := false
		for key, answer := range p.InputResponses {
			req, outstanding := rec.InputRequests[key]
			if !outstanding {
				continue
			}
			if _, err := protocol.DecodeInputResponse(req.Method, answer); err != nil {
				return errorf(CodeInvalidParams, "invalid params: input response %q: %v", key, err)
			}
			if rec.InputResponses == nil {
				rec.InputResponses = make(protocol.InputResponses, len(p.InputResponses))
			}
			rec.InputResponses[key] = answer
			delete(rec.InputRequests, key)
			changed = true
		}
		if !changed {
			return errNoChange
		}
		if len(rec.InputRequests) == 0 && rec.Status == protocol.TaskStatusInputRequired {
			rec.Status, rec.InputRequests = protocol.TaskStatusWorking, nil
			rec.StatusMessage = "The operation is now in progress."
		}
		rec.UpdatedAt = m.opts.Now()
		return nil
	})
	if err != nil && !errors.Is(err, errTaskDone) && !errors.Is(err, errNoChange) {
		return nil, m.storeError(err)
	}
	return &protocol.EmptyResult{ResultType: protocol.ResultTypeComplete, Meta: r.server().resultMeta(nil)}, nil
}

// errNoChange aborts a store update that would change nothing.
var errNoChange = errors.New("mcp: nothing to change")

// cancelTaskStateless answers the extension's tasks/cancel: an empty
// acknowledgement, for a running task (which moves to cancelled) as for a
// finished one (which stays as it is).
func cancelTaskStateless(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if err := requireTasksExtension(r); err != nil {
		return nil, err
	}
	var p protocol.CancelTaskParams
	m, _, err := findTask(ctx, r, raw, &p, &p.TaskID)
	if err != nil {
		return nil, err
	}
	if _, _, err := m.cancelTask(ctx, p.TaskID); err != nil {
		return nil, err
	}
	return &protocol.EmptyResult{ResultType: protocol.ResultTypeComplete, Meta: r.server().resultMeta(nil)}, nil
}
