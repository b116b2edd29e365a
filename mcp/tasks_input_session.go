package mcp

import (
	"context"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
)

// This file is input inside a 2025-11-25 task. The handler asks as it would
// outside a task (Elicit, CreateMessage, ListRoots); the request goes to the
// client over the session with the task named in its _meta
// (io.modelcontextprotocol/related-task), and the task shows status
// input_required until the answer is back, as the 2025-11-25 tasks utility asks.

// withTaskInput runs ask (one server-to-client request) while the task is
// input_required, and marks it working again afterwards.
func (t *taskRun) withTaskInput(ctx context.Context, ask func(meta protocol.Meta) error) error {
	t.setInputStatus(protocol.TaskStatusInputRequired, "The operation is waiting for input from the client.")
	defer t.setInputStatus(protocol.TaskStatusWorking, "The operation is now in progress.")
	return ask(protocol.NewRelatedTaskMeta(t.id))
}

// setInputStatus moves a running task between working and input_required and
// announces it; a task already final is left alone.
func (t *taskRun) setInputStatus(status protocol.TaskStatus, message string) {
	rec, err := t.m.store.Update(t.ctx, t.id, func(r *taskstore.Record) error {
		if r.Status.IsTerminal() {
			return errTaskDone
		}
		r.Status, r.StatusMessage, r.UpdatedAt = status, message, t.m.opts.Now()
		return nil
	})
	if err == nil {
		t.notifyStatus(rec)
	}
}

// withMeta returns a copy of m with extra's keys added.
func withMeta(m, extra protocol.Meta) protocol.Meta {
	out := make(protocol.Meta, len(m)+len(extra))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// taskCreateMessage, taskElicit and taskListRoots are the legacy input calls of
// a handler running inside a task.
func (r *Request) taskCreateMessage(ctx context.Context, p *protocol.CreateMessageParams) (res *protocol.CreateMessageResult, err error) {
	err = r.sessionTask.withTaskInput(ctx, func(meta protocol.Meta) error {
		c := *p
		c.Meta = withMeta(p.Meta, meta)
		res, err = r.Session.CreateMessage(ctx, &c)
		return err
	})
	return res, err
}

func (r *Request) taskElicit(ctx context.Context, p *protocol.ElicitParams) (res *protocol.ElicitResult, err error) {
	err = r.sessionTask.withTaskInput(ctx, func(meta protocol.Meta) error {
		c := *p
		c.Meta = withMeta(p.Meta, meta)
		res, err = r.Session.Elicit(ctx, &c)
		return err
	})
	return res, err
}

func (r *Request) taskListRoots(ctx context.Context) (res *protocol.ListRootsResult, err error) {
	err = r.sessionTask.withTaskInput(ctx, func(meta protocol.Meta) error {
		res, err = r.Session.listRoots(ctx, &protocol.ListRootsParams{Meta: meta})
		return err
	})
	return res, err
}
