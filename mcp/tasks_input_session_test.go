package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// A 2025-11-25 task whose handler elicits: the request names the task in its
// _meta and the task reads input_required while the client answers.
func TestSessionTaskInputMarksTheTask(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	type seen struct {
		related string
		status  protocol.TaskStatus
		err     error
	}
	saw := make(chan seen, 1)
	var cs *mcp.ClientSession
	cs, _ = connect(t, f.srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20251125,
		ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			var s seen
			if rel, ok := p.Meta[protocol.MetaKeyRelatedTask].(*protocol.RelatedTaskMetadata); ok {
				s.related = rel.TaskID
			}
			if s.related != "" {
				got, err := cs.GetTask(ctx, s.related)
				s.err = err
				if err == nil {
					s.status = got.Status
				}
			}
			saw <- s
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"ok": true}}, nil
		}})
	ctx := testkit.Context(t)
	task, err := cs.CallToolAsTask(ctx, "ask", nil, time.Minute)
	must(t, err)
	s := testkit.Receive(t, saw)
	if s.related != task.TaskID {
		t.Fatalf("the elicitation names task %q in _meta, want %q", s.related, task.TaskID)
	}
	if s.err != nil || s.status != protocol.TaskStatusInputRequired {
		t.Errorf("while the client answered, tasks/get = %s, %v; want input_required", s.status, s.err)
	}
	res, err := cs.AwaitTask(ctx, task.TaskID)
	must(t, err)
	if got := text(t, res); got != "answer: accept true" {
		t.Errorf("result %q", got)
	}
}
