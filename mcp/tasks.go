package mcp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/transport"
)

// This file holds the server's task manager: its options, the tasks it runs,
// who may see them, and the shapes tasks are reported in.
//
// A tool call becomes a task in one of two ways:
//   - the tool declares task support (Tool.Execution.TaskSupport "optional" or
//     "required") and the client can take a task — in 2025-11-25 by asking
//     for one (the call's "task" param), in 2026-07-28 by declaring the
//     "io.modelcontextprotocol/tasks" extension. The handler then runs in the
//     task from its start;
//   - the handler calls ToolRequest.RunAsTask after a synchronous part (for
//     instance after gathering input with an input_required round trip), in
//     2026-07-28 with a client that declared the extension.
//
// The call is answered at once with the task (a CreateTaskResult); the handler
// runs in a goroutine the manager owns, with a context that tasks/cancel
// cancels and the task's TTL bounds. Its outcome is kept in the task store
// until the TTL elapses.

// TaskOptions configures a server's tasks. The zero value is ready to use.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
type TaskOptions struct {
	// Store keeps the tasks. Nil means an in-memory store; replicas behind
	// one load balancer share a store (see package taskstore) so any of them
	// can answer for a task.
	Store taskstore.Store
	// DefaultTTL is how long a task is kept when the client does not ask for
	// a TTL. Zero means one hour.
	DefaultTTL time.Duration
	// MaxTTL caps the TTL a client may ask for (2025-11-25). Zero means 24
	// hours.
	MaxTTL time.Duration
	// PollInterval is the polling interval suggested to clients. Zero means
	// one second.
	PollInterval time.Duration
	// MaxPerRequestor is how many unfinished tasks one requestor (an
	// authenticated principal, see [transport.WithPrincipal]; else a legacy session) may
	// have at once. Requestors the server cannot identify share one quota.
	// Zero means 100; negative means no limit.
	MaxPerRequestor int
	// Now is the clock of task timestamps. Nil means time.Now. (The store has
	// its own clock, which decides expiry.)
	Now func() time.Time
}

// Defaults of TaskOptions.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
const (
	DefaultTaskTTL           = time.Hour
	DefaultTaskMaxTTL        = 24 * time.Hour
	DefaultTaskPollInterval  = time.Second
	DefaultTasksPerRequestor = 100
)

// taskManager runs a server's tasks and answers the tasks/* methods.
type taskManager struct {
	s        *Server
	store    taskstore.Store
	opts     TaskOptions
	explicit bool // TaskOptions were given: declare tasks even without task tools

	base context.Context // parent of every task's context; cancelled by shutdown
	stop context.CancelCauseFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	running  map[string]*taskRun
	sessions map[*ServerSession]string // owner ids of legacy sessions
}

// errShutdown is the cause of the cancellation of tasks the server stopped.
var errShutdown = errors.New("mcp: the server shut down before the task finished")

func newTaskManager(s *Server, o *TaskOptions) *taskManager {
	m := &taskManager{s: s, running: make(map[string]*taskRun), sessions: make(map[*ServerSession]string)}
	if o != nil {
		m.opts, m.explicit = *o, true
	}
	if m.opts.Now == nil {
		m.opts.Now = time.Now
	}
	if m.opts.Store == nil {
		m.opts.Store = taskstore.NewMemory(nil)
	}
	if m.opts.DefaultTTL <= 0 {
		m.opts.DefaultTTL = DefaultTaskTTL
	}
	if m.opts.MaxTTL <= 0 {
		m.opts.MaxTTL = DefaultTaskMaxTTL
	}
	m.opts.DefaultTTL = min(m.opts.DefaultTTL, m.opts.MaxTTL)
	if m.opts.PollInterval <= 0 {
		m.opts.PollInterval = DefaultTaskPollInterval
	}
	if m.opts.MaxPerRequestor == 0 {
		m.opts.MaxPerRequestor = DefaultTasksPerRequestor
	}
	m.store = m.opts.Store
	m.base, m.stop = context.WithCancelCause(context.Background())
	return m
}

// ShutdownTasks stops the server's running tasks: their contexts are cancelled
// and the tasks are marked failed; no new task starts afterwards. It waits for
// the handlers to return, until ctx ends. Without it, tasks run until they
// finish, are cancelled, or reach their TTL.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func (s *Server) ShutdownTasks(ctx context.Context) error {
	m := s.tasks
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.stop(errShutdown)
	done := make(chan struct{})
	go func() {
		m.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp: waiting for tasks to stop: %w", ctx.Err())
	}
}

// declareTasksLocked adds the task capabilities to caps when the server has
// something to run as a task: a tool that supports tasks, or TaskOptions set
// explicitly. The caller holds s.mu. ForVersion keeps the 2025-11-25 "tasks"
// capability for that version only and the extension for 2026-07-28.
func (s *Server) declareTasksLocked(caps *protocol.ServerCapabilities) {
	if !s.tasks.explicit && !s.hasTaskToolLocked() {
		return
	}
	caps.Tasks = &protocol.ServerTasksCapability{
		List:     &protocol.Supported{},
		Cancel:   &protocol.Supported{},
		Requests: &protocol.ServerTaskRequests{Tools: &protocol.ToolsTaskRequests{Call: &protocol.Supported{}}},
	}
	if caps.Extensions == nil {
		caps.Extensions = make(map[string]map[string]any, 1)
	}
	caps.Extensions[protocol.ExtensionTasks] = map[string]any{}
}

// hasTaskToolLocked reports whether a registered tool supports tasks.
func (s *Server) hasTaskToolLocked() bool {
	for _, t := range s.tools.items {
		if t.tool.TaskSupportLevel() != protocol.TaskSupportForbidden {
			return true
		}
	}
	return false
}

// tasksDeclared reports whether the server declares task support.
func (s *Server) tasksDeclared() bool {
	if s.tasks.explicit {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hasTaskToolLocked()
}

// owner names who a request's tasks belong to: the authenticated principal
// when there is one; otherwise the legacy session, when it lives across
// requests; otherwise nobody ("": the task id is the only protection).
func (m *taskManager) owner(ctx context.Context, r *Request) string {
	if p := transport.PrincipalFrom(ctx); p != "" {
		return "principal:" + p
	}
	ss := r.Session
	if r.stateless != nil || ss == nil || !ss.initialized() {
		return ""
	}
	if _, sessionless := ss.transport.(transport.SessionlessConn); sessionless {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.sessions[ss]; ok {
		return id
	}
	id := "session:" + rand.Text()
	m.sessions[ss] = id
	// When the session ends its tasks can no longer be reached: stop them.
	go func() {
		<-ss.Done()
		m.forgetSession(ss, id)
	}()
	return id
}

// forgetSession drops a legacy session's owner id and cancels its running tasks.
func (m *taskManager) forgetSession(ss *ServerSession, owner string) {
	m.mu.Lock()
	delete(m.sessions, ss)
	var runs []*taskRun
	for _, t := range m.running {
		if t.owner == owner {
			runs = append(runs, t)
		}
	}
	m.mu.Unlock()
	for _, t := range runs {
		t.cancel(errSessionEnded)
	}
}

// errSessionEnded is the cause of the cancellation of a session's tasks when
// the session ends.
var errSessionEnded = errors.New("mcp: the session that owned the task ended")

// lookup returns the task id names when it belongs to owner. A task of another
// owner is reported missing, like one that does not exist.
func (m *taskManager) lookup(ctx context.Context, id, owner string) (*taskstore.Record, error) {
	if id == "" {
		return nil, errorf(CodeInvalidParams, "invalid params: missing taskId")
	}
	rec, err := m.store.Get(ctx, id)
	if err != nil {
		return nil, m.storeError(err)
	}
	if rec.Owner != owner {
		return nil, taskNotFound()
	}
	return rec, nil
}

func taskNotFound() *jsonrpc.Error {
	return errorf(CodeInvalidParams, "Failed to retrieve task: Task not found")
}

// storeError turns a store failure into the JSON-RPC error to answer with.
func (m *taskManager) storeError(err error) error {
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return je
	case errors.Is(err, taskstore.ErrNotFound):
		return taskNotFound()
	case errors.Is(err, taskstore.ErrInvalidCursor):
		return errorf(CodeInvalidParams, "invalid params: invalid cursor")
	case errors.Is(err, taskstore.ErrLimit):
		return errorf(CodeInvalidRequest, "invalid request: too many unfinished tasks (at most %d per requestor)", m.opts.MaxPerRequestor)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	m.s.log.Error("mcp: task store failed", "error", err)
	return errorf(CodeInternalError, "internal error: the task store failed")
}

// task20251125 reports a task in the 2025-11-25 shape.
func task20251125(rec *taskstore.Record) protocol.Task {
	return protocol.Task{
		TaskID:        rec.ID,
		Status:        rec.Status,
		StatusMessage: rec.StatusMessage,
		CreatedAt:     protocol.FormatTime(rec.CreatedAt),
		LastUpdatedAt: protocol.FormatTime(rec.UpdatedAt),
		TTL:           protocol.Milliseconds(rec.TTL),
		PollInterval:  protocol.Milliseconds(rec.PollInterval),
	}
}

// extensionTask reports a task in the shape of the tasks extension.
func extensionTask(rec *taskstore.Record) protocol.ExtensionTask {
	return protocol.ExtensionTask{
		TaskID:         rec.ID,
		Status:         rec.Status,
		StatusMessage:  rec.StatusMessage,
		CreatedAt:      protocol.FormatTime(rec.CreatedAt),
		LastUpdatedAt:  protocol.FormatTime(rec.UpdatedAt),
		TTLMs:          protocol.Milliseconds(rec.TTL),
		PollIntervalMs: protocol.Milliseconds(rec.PollInterval),
	}
}

// detailedTask is the extension's tasks/get answer for rec: the task and what
// its status calls for (input requests, the result, the error).
func detailedTask(rec *taskstore.Record) *protocol.DetailedTask {
	d := &protocol.DetailedTask{ExtensionTask: extensionTask(rec)}
	switch rec.Status {
	case protocol.TaskStatusInputRequired:
		d.InputRequests = rec.InputRequests
	case protocol.TaskStatusCompleted:
		d.Result = rec.Result
	case protocol.TaskStatusFailed:
		d.Error = rec.Error
		if d.Error == nil {
			d.Error = errorf(CodeInternalError, "%s", rec.StatusMessage)
		}
	}
	return d
}
