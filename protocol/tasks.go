package protocol

import "encoding/json"

// This file holds the experimental tasks types of 2025-11-25. (2026-07-28
// moved tasks out of the core protocol into the
// "io.modelcontextprotocol/tasks" extension.)

// TaskStatus is the state of a task.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
type TaskStatus string

// Task states. Completed, failed and cancelled are terminal.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
const (
	TaskStatusWorking       TaskStatus = "working"
	TaskStatusInputRequired TaskStatus = "input_required"
	TaskStatusCompleted     TaskStatus = "completed"
	TaskStatusFailed        TaskStatus = "failed"
	TaskStatusCancelled     TaskStatus = "cancelled"
)

// IsTerminal reports whether s is a final state.
func (s TaskStatus) IsTerminal() bool {
	return s == TaskStatusCompleted || s == TaskStatusFailed || s == TaskStatusCancelled
}

// Task is the state of a task. Added in 2025-11-25.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type Task struct {
	// TaskID identifies the task.
	TaskID string `json:"taskId"`
	// Status is the current state.
	Status TaskStatus `json:"status"`
	// StatusMessage describes the state for humans.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt is the ISO 8601 creation time.
	CreatedAt string `json:"createdAt"`
	// LastUpdatedAt is the ISO 8601 time of the last update.
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is how long, in milliseconds from creation, the task is kept;
	// nil (encoded as null, the field is required) means unlimited.
	TTL *int64 `json:"ttl"`
	// PollInterval suggests a polling interval in milliseconds.
	PollInterval *int64 `json:"pollInterval,omitempty"`
}

// TaskMetadata asks for task-augmented execution, in a request's "task"
// field. Added in 2025-11-25.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type TaskMetadata struct {
	// TTL is the requested retention in milliseconds from creation.
	TTL *int64 `json:"ttl,omitempty"`
}

// RelatedTaskMetadata associates a message with a task, under
// MetaKeyRelatedTask in _meta. Added in 2025-11-25.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type RelatedTaskMetadata struct {
	// TaskID is the related task.
	TaskID string `json:"taskId"`
}

// CreateTaskResult answers a task-augmented request in place of its normal
// result. Added in 2025-11-25.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type CreateTaskResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Task is the created task.
	Task Task `json:"task"`
}

// GetTaskParams are the params of tasks/get.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
type GetTaskParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// TaskID is the task to query.
	TaskID string `json:"taskId"`
}

// GetTaskResult is the result of tasks/get: the task's fields inline.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type GetTaskResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Task holds the task's fields, encoded inline.
	Task
}

// GetTaskPayloadParams are the params of tasks/result.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type GetTaskPayloadParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// TaskID is the task whose result is wanted.
	TaskID string `json:"taskId"`
}

// GetTaskPayloadResult is the result of tasks/result: the original
// request's result (e.g. a CallToolResult), kept raw so the caller decodes
// it into the type it expects.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type GetTaskPayloadResult = json.RawMessage

// CancelTaskParams are the params of tasks/cancel.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
type CancelTaskParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// TaskID is the task to cancel.
	TaskID string `json:"taskId"`
}

// CancelTaskResult is the result of tasks/cancel: the task's fields inline.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
type CancelTaskResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Task holds the task's fields, encoded inline.
	Task
}

// ListTasksParams are the params of tasks/list.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ListTasksParams = PaginatedParams

// ListTasksResult is the result of tasks/list.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ListTasksResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Tasks is the page of tasks; never encoded as null.
	Tasks []Task `json:"tasks"`
	// NextCursor, when set, fetches the next page.
	NextCursor Cursor `json:"nextCursor,omitempty"`
}

type listTasksResultWire ListTasksResult

// MarshalJSON encodes r, writing a nil Tasks as [].
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	if r.Tasks == nil {
		r.Tasks = []Task{}
	}
	return json.Marshal(listTasksResultWire(r))
}

// TaskStatusParams are the params of notifications/tasks/status: the task's
// fields inline.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type TaskStatusParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Task holds the task's fields, encoded inline.
	Task
}

// TaskSupportLevel returns the tool's declared task support, "forbidden"
// when the tool declares none.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func (t *Tool) TaskSupportLevel() TaskSupport {
	if t == nil || t.Execution == nil || t.Execution.TaskSupport == "" {
		return TaskSupportForbidden
	}
	return t.Execution.TaskSupport
}

// NewRelatedTaskMeta returns a _meta object associating a message with task
// id (the "io.modelcontextprotocol/related-task" key).
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
func NewRelatedTaskMeta(id string) Meta {
	return Meta{MetaKeyRelatedTask: &RelatedTaskMetadata{TaskID: id}}
}
