// Package taskstore keeps the state of MCP tasks: the long-running tool calls a
// server answers with a task handle instead of a result (the experimental tasks
// of protocol 2025-11-25 and the "io.modelcontextprotocol/tasks" extension of
// 2026-07-28).
//
// A [Store] holds one [Record] per task: its status, its final result or error, the
// input requests it is waiting on and the answers the client sent. The server
// (package mcp) runs the task's handler in its own goroutine and keeps the
// record up to date; every request about the task (tasks/get, tasks/update,
// tasks/cancel, ...) reads or changes the record. A store shared by several
// server replicas (a database, Redis) lets any replica answer for a task that
// another one runs: cancellation and input reach the running handler through
// the store (Update, then Wait on the runner's side).
//
// [NewMemory] returns the in-process implementation. Package storetest holds the
// contract test any implementation must pass.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
package taskstore

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// Errors a Store returns. Implementations wrap them (errors.Is finds them).
var (
	// ErrNotFound: no task has this id, or it expired.
	ErrNotFound = errors.New("taskstore: task not found")
	// ErrExists: Create was given an id that is already taken.
	ErrExists = errors.New("taskstore: task id already exists")
	// ErrLimit: the owner already has as many unfinished tasks as Create allows.
	ErrLimit = errors.New("taskstore: too many unfinished tasks for this owner")
	// ErrInvalidCursor: List was given a cursor it did not make.
	ErrInvalidCursor = errors.New("taskstore: invalid cursor")
)

// Record is the stored state of one task.
type Record struct {
	// ID is the task id: unguessable, chosen by the server.
	ID string
	// Owner is who may see the task: an authenticated principal, a session,
	// or "" when the requestor could not be identified (the id is then the
	// only protection). Lists are per owner.
	Owner string
	// Method is the request that became the task ("tools/call").
	Method string
	// Name is the tool (or other feature) the request named.
	Name string
	// ProtocolVersion is the version of the request that created the task; it
	// decides the shape the task is reported in.
	ProtocolVersion string

	// Status is the task's state; completed, failed and cancelled are final.
	Status protocol.TaskStatus
	// StatusMessage describes the state for humans.
	StatusMessage string
	// CreatedAt is when the task was created.
	CreatedAt time.Time
	// UpdatedAt is when the task last changed.
	UpdatedAt time.Time
	// TTL is how long after CreatedAt the task is kept; zero means forever.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients.
	PollInterval time.Duration

	// Result is the final result (JSON), when the request completed with one.
	Result json.RawMessage
	// Error is the JSON-RPC error the request ended with, when it failed.
	Error *jsonrpc.Error

	// InputRequests are the requests for the client the task is waiting on,
	// by key (status input_required).
	InputRequests map[string]protocol.InputRequest
	// InputResponses are the answers the client sent so far, by the same
	// keys. They accumulate: a handler that runs again gets them all.
	InputResponses protocol.InputResponses

	// Revision counts the record's changes. The store sets it: 1 at Create,
	// one more at each Update. Wait watches it.
	Revision uint64
}

// ExpiresAt returns when the task may be deleted (zero when never).
func (r *Record) ExpiresAt() time.Time {
	if r.TTL <= 0 {
		return time.Time{}
	}
	return r.CreatedAt.Add(r.TTL)
}

// Expired reports whether the task's TTL has elapsed at now.
func (r *Record) Expired(now time.Time) bool {
	exp := r.ExpiresAt()
	return !exp.IsZero() && !now.Before(exp)
}

// Clone returns a deep copy of r.
func (r *Record) Clone() *Record {
	c := *r
	if r.Result != nil {
		c.Result = append(json.RawMessage(nil), r.Result...)
	}
	if r.Error != nil {
		e := *r.Error
		if e.Data != nil {
			e.Data = append(json.RawMessage(nil), e.Data...)
		}
		c.Error = &e
	}
	c.InputRequests = maps.Clone(r.InputRequests)
	c.InputResponses = maps.Clone(r.InputResponses)
	return &c
}

// Store keeps task records. Implementations are safe for concurrent use, and
// hand out copies: a caller may change a Record it got without affecting the
// store.
type Store interface {
	// Create stores a new record (its Revision is set to 1). It fails with
	// ErrExists when the id is taken, and with ErrLimit when limit > 0 and the
	// owner already has limit tasks that are neither final nor expired; the
	// check and the insertion are one atomic step.
	Create(ctx context.Context, rec *Record, limit int) error
	// Get returns the task, or ErrNotFound when it does not exist or expired.
	Get(ctx context.Context, id string) (*Record, error)
	// Update changes a task atomically: fn gets a copy of the record and
	// changes it; when fn returns nil the change is stored with the next
	// Revision and the stored record is returned, and when fn returns an
	// error nothing changes and Update returns that error. fn may run more
	// than once (stores that retry on conflict), so it must not have other
	// effects. ErrNotFound when the task does not exist or expired.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// List returns up to limit of the owner's unexpired tasks, oldest first,
	// from cursor ("" for the start), and the cursor of the next page ("" at
	// the end). A cursor the store did not make gives ErrInvalidCursor.
	List(ctx context.Context, owner, cursor string, limit int) ([]*Record, string, error)
	// Wait returns the task as soon as its Revision is greater than after
	// (at once if it already is). It fails with ErrNotFound when the task
	// does not exist or is deleted or expires meanwhile (stores notice
	// expiry when they next look), and with ctx's error when ctx ends.
	Wait(ctx context.Context, id string, after uint64) (*Record, error)
	// Delete removes the task; deleting a task that does not exist is not
	// an error.
	Delete(ctx context.Context, id string) error
}
