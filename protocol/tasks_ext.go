package protocol

import (
	"encoding/json"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file holds the types of the tasks extension ("io.modelcontextprotocol/tasks",
// SEP-2663), which replaced the experimental tasks of 2025-11-25 for the
// stateless protocol (2026-07-28). The server alone decides whether a request
// becomes a task: it answers with an ExtensionCreateTaskResult (resultType
// "task") instead of the request's normal result, and the client polls
// tasks/get, answers input requests with tasks/update and may send
// tasks/cancel. tasks/result and tasks/list do not exist in the extension.

// ExtensionTasks identifies the tasks extension, under the extensions of the
// client's per-request capabilities and of the server's discover
// capabilities.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultTypeTask marks an ExtensionCreateTaskResult: the request became a
// task. Defined by the tasks extension.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
const ResultTypeTask ResultType = "task"

// Methods of the tasks extension that the 2025-11-25 tasks lack (tasks/get and
// tasks/cancel keep their names: MethodTasksGet, MethodTasksCancel).
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
const (
	// MethodTasksUpdate carries the client's answers to a task's input
	// requests.
	MethodTasksUpdate = "tasks/update"
	// NotificationTasks reports a task's state on a subscriptions/listen
	// stream.
	NotificationTasks = "notifications/tasks"
)

// MetaKeyModelImmediateResponse is the optional _meta key of a 2025-11-25
// CreateTaskResult holding text the host may hand the model at once while the
// task runs.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
const MetaKeyModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"

// TimeFormat is how task timestamps (createdAt, lastUpdatedAt) are written:
// ISO 8601 in UTC with milliseconds.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// FormatTime writes t as a task timestamp (see TimeFormat).
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// Milliseconds returns d as a pointer to whole milliseconds, the unit of the
// task TTL and poll interval fields; zero or less gives nil (unlimited TTL, no
// poll interval).
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
func Milliseconds(d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	ms := d.Milliseconds()
	if ms == 0 {
		ms = 1
	}
	return &ms
}

// ExtensionTask is a task as the tasks extension describes it. It is the
// 2025-11-25 Task with the units in the field names (ttlMs, pollIntervalMs).
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
type ExtensionTask struct {
	// TaskID identifies the task; it is unguessable.
	TaskID string `json:"taskId"`
	// Status is the current state.
	Status TaskStatus `json:"status"`
	// StatusMessage describes the state for humans (or the model).
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt is the ISO 8601 creation time.
	CreatedAt string `json:"createdAt"`
	// LastUpdatedAt is the ISO 8601 time of the last change.
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is how long, in milliseconds from creation, the server keeps the
	// task; nil (encoded as null, the field is required) means unlimited.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs suggests how often to poll tasks/get, in milliseconds.
	PollIntervalMs *int64 `json:"pollIntervalMs,omitempty"`
}

// ExtensionCreateTaskResult answers a request that became a task: resultType
// "task" and the task's fields inline (no nested "task" object, unlike the
// 2025-11-25 CreateTaskResult).
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
type ExtensionCreateTaskResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is ResultTypeTask.
	ResultType ResultType `json:"resultType"`
	// ExtensionTask holds the task's fields, encoded inline.
	ExtensionTask
}

// DetailedTask is the result of the extension's tasks/get (with ResultType
// "complete") and the params of notifications/tasks (without it): the task
// and, depending on its status, what the client needs next.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
type DetailedTask struct {
	// Meta is the result's or notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is "complete" on a tasks/get result, empty on a
	// notification.
	ResultType ResultType `json:"resultType,omitempty"`
	// ExtensionTask holds the task's fields, encoded inline.
	ExtensionTask
	// InputRequests are the outstanding requests for the client, by key,
	// when Status is input_required. Answer them with tasks/update.
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	// Result is what the original request returned (e.g. a CallToolResult),
	// when Status is completed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error the original request ended with, when
	// Status is failed.
	Error *jsonrpc.Error `json:"error,omitempty"`
}

// UpdateTaskParams are the params of tasks/update: answers to some or all of
// a task's outstanding input requests.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
type UpdateTaskParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// TaskID is the task the answers are for.
	TaskID string `json:"taskId"`
	// InputResponses answers the task's inputRequests under the same keys.
	InputResponses InputResponses `json:"inputResponses"`
}

type updateTaskParamsWire UpdateTaskParams

// MarshalJSON encodes p, writing a nil InputResponses as {} (the field is
// required).
func (p UpdateTaskParams) MarshalJSON() ([]byte, error) {
	if p.InputResponses == nil {
		p.InputResponses = InputResponses{}
	}
	return json.Marshal(updateTaskParamsWire(p))
}

// DeclaresTasksExtension reports whether client capabilities c name the tasks
// extension.
//
// Experimental: the tasks extension (io.modelcontextprotocol/tasks) is not part of the
// core protocol; this API may change.
func (c *ClientCapabilities) DeclaresTasksExtension() bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[ExtensionTasks]
	return ok
}
