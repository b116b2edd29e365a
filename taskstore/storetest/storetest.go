// Package storetest is the contract test of taskstore.Store: every
// implementation (in memory, Redis, SQL, ...) runs Run from its own tests and
// must pass it.
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
//			return mystore.New(..., now)
//		})
//	}
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
)

// Clock is a manual clock: it moves only when told to. Stores under test take
// its Now as their clock, so expiry is tested without waiting.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock showing start.
func NewClock(start time.Time) *Clock { return &Clock{t: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Factory returns a new, empty store whose notion of the current time is now.
type Factory func(t *testing.T, now func() time.Time) taskstore.Store

// start is the time every contract test's clock begins at.
var start = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// Run runs the contract tests against stores made by newStore.
func Run(t *testing.T, newStore Factory) {
	tests := []struct {
		name string
		fn   func(*testing.T, taskstore.Store, *Clock)
	}{
		{"CreateGet", testCreateGet},
		{"CreateDuplicate", testCreateDuplicate},
		{"CopiesAreIndependent", testCopies},
		{"Update", testUpdate},
		{"UpdateAborted", testUpdateAborted},
		{"UpdateKeepsIdentity", testUpdateKeepsIdentity},
		{"Missing", testMissing},
		{"Limit", testLimit},
		{"Expiry", testExpiry},
		{"NoTTLNeverExpires", testNoTTL},
		{"List", testList},
		{"ListInvalidCursor", testListInvalidCursor},
		{"WaitChanged", testWaitChanged},
		{"WaitAlreadyNewer", testWaitAlreadyNewer},
		{"WaitCancelled", testWaitCancelled},
		{"WaitDeleted", testWaitDeleted},
		{"WaitExpired", testWaitExpired},
		{"ConcurrentUpdates", testConcurrentUpdates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(start)
			tc.fn(t, newStore(t, clock.Now), clock)
		})
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// record returns a working task of owner, created now, with a TTL of a minute.
func record(id, owner string) *taskstore.Record {
	return &taskstore.Record{
		ID: id, Owner: owner, Method: protocol.MethodToolsCall, Name: "tool", ProtocolVersion: protocol.Version20260728,
		Status: protocol.TaskStatusWorking, CreatedAt: start, UpdatedAt: start, TTL: time.Minute, PollInterval: time.Second,
	}
}

func create(t *testing.T, s taskstore.Store, rec *taskstore.Record) {
	t.Helper()
	if err := s.Create(ctx(t), rec, 0); err != nil {
		t.Fatalf("Create(%s): %v", rec.ID, err)
	}
}

func testCreateGet(t *testing.T, s taskstore.Store, _ *Clock) {
	rec := record("a", "alice")
	rec.StatusMessage = "busy"
	rec.InputRequests = map[string]protocol.InputRequest{"k": protocol.NewListRootsInputRequest()}
	rec.InputResponses = protocol.InputResponses{"old": json.RawMessage(`{"roots":[]}`)}
	create(t, s, rec)
	got, err := s.Get(ctx(t), "a")
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 1 {
		t.Errorf("Revision = %d, want 1", got.Revision)
	}
	if got.Owner != "alice" || got.Method != protocol.MethodToolsCall || got.Name != "tool" ||
		got.ProtocolVersion != protocol.Version20260728 || got.Status != protocol.TaskStatusWorking ||
		got.StatusMessage != "busy" || !got.CreatedAt.Equal(start) || !got.UpdatedAt.Equal(start) ||
		got.TTL != time.Minute || got.PollInterval != time.Second {
		t.Errorf("Get = %+v, want the created fields", got)
	}
	if got.InputRequests["k"].Method != protocol.MethodRootsList || string(got.InputResponses["old"]) != `{"roots":[]}` {
		t.Errorf("input state = %v / %v", got.InputRequests, got.InputResponses)
	}
}

func testCreateDuplicate(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	if err := s.Create(ctx(t), record("a", "bob"), 0); !errors.Is(err, taskstore.ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	got, _ := s.Get(ctx(t), "a")
	if got.Owner != "alice" {
		t.Errorf("the duplicate replaced the task: owner %q", got.Owner)
	}
}

func testCopies(t *testing.T, s taskstore.Store, _ *Clock) {
	rec := record("a", "alice")
	rec.InputResponses = protocol.InputResponses{"x": json.RawMessage(`1`)}
	create(t, s, rec)
	rec.InputResponses["x"] = json.RawMessage(`2`) // the caller's record is not the stored one
	got, _ := s.Get(ctx(t), "a")
	got.InputResponses["y"] = json.RawMessage(`3`)
	got.Status = protocol.TaskStatusFailed
	again, _ := s.Get(ctx(t), "a")
	if string(again.InputResponses["x"]) != "1" || len(again.InputResponses) != 1 || again.Status != protocol.TaskStatusWorking {
		t.Errorf("changing copies changed the store: %+v", again)
	}
}

func testUpdate(t *testing.T, s taskstore.Store, clock *Clock) {
	create(t, s, record("a", "alice"))
	clock.Advance(time.Second)
	got, err := s.Update(ctx(t), "a", func(r *taskstore.Record) error {
		r.Status = protocol.TaskStatusCompleted
		r.Result = json.RawMessage(`{"content":[]}`)
		r.Error = &jsonrpc.Error{Code: -32603, Message: "x", Data: json.RawMessage(`{"a":1}`)}
		r.UpdatedAt = clock.Now()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 2 || got.Status != protocol.TaskStatusCompleted {
		t.Errorf("Update returned %+v, want revision 2, completed", got)
	}
	stored, _ := s.Get(ctx(t), "a")
	if stored.Revision != 2 || string(stored.Result) != `{"content":[]}` || stored.Error == nil ||
		stored.Error.Code != -32603 || string(stored.Error.Data) != `{"a":1}` || !stored.UpdatedAt.Equal(clock.Now()) {
		t.Errorf("stored %+v", stored)
	}
}

func testUpdateAborted(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	stop := errors.New("stop")
	_, err := s.Update(ctx(t), "a", func(r *taskstore.Record) error {
		r.Status = protocol.TaskStatusCancelled
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	got, _ := s.Get(ctx(t), "a")
	if got.Revision != 1 || got.Status != protocol.TaskStatusWorking {
		t.Errorf("an aborted Update changed the task: %+v", got)
	}
}

func testUpdateKeepsIdentity(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	got, err := s.Update(ctx(t), "a", func(r *taskstore.Record) error {
		r.ID, r.Owner, r.CreatedAt, r.Revision = "b", "mallory", start.Add(time.Hour), 99
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "a" || got.Owner != "alice" || !got.CreatedAt.Equal(start) || got.Revision != 2 {
		t.Errorf("Update changed the task's identity: %+v", got)
	}
	if _, err := s.Get(ctx(t), "b"); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Get(b) = %v, want ErrNotFound", err)
	}
}

func testMissing(t *testing.T, s taskstore.Store, _ *Clock) {
	if _, err := s.Get(ctx(t), "nope"); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Get = %v, want ErrNotFound", err)
	}
	if _, err := s.Update(ctx(t), "nope", func(*taskstore.Record) error { return nil }); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Update = %v, want ErrNotFound", err)
	}
	if _, err := s.Wait(ctx(t), "nope", 0); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Wait = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx(t), "nope"); err != nil {
		t.Errorf("Delete = %v, want nil", err)
	}
}

func testLimit(t *testing.T, s taskstore.Store, _ *Clock) {
	c := ctx(t)
	for _, id := range []string{"a1", "a2"} {
		if err := s.Create(c, record(id, "alice"), 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Create(c, record("a3", "alice"), 2); !errors.Is(err, taskstore.ErrLimit) {
		t.Fatalf("third Create = %v, want ErrLimit", err)
	}
	if err := s.Create(c, record("b1", "bob"), 2); err != nil {
		t.Fatalf("another owner's Create = %v", err)
	}
	if _, err := s.Update(c, "a1", func(r *taskstore.Record) error { r.Status = protocol.TaskStatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(c, record("a3", "alice"), 2); err != nil {
		t.Fatalf("Create after a task finished = %v", err)
	}
}

func testExpiry(t *testing.T, s taskstore.Store, clock *Clock) {
	c := ctx(t)
	create(t, s, record("a", "alice"))
	clock.Advance(time.Minute - time.Millisecond)
	if _, err := s.Get(c, "a"); err != nil {
		t.Fatalf("Get before the TTL elapsed = %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := s.Get(c, "a"); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Get after the TTL = %v, want ErrNotFound", err)
	}
	if _, err := s.Update(c, "a", func(*taskstore.Record) error { return nil }); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Update after the TTL = %v, want ErrNotFound", err)
	}
	if recs, _, err := s.List(c, "alice", "", 10); err != nil || len(recs) != 0 {
		t.Errorf("List after the TTL = %d tasks, %v; want none", len(recs), err)
	}
	// An expired task no longer counts against the owner's limit, and its id
	// may be used again.
	if err := s.Create(c, record("a", "alice"), 1); err != nil {
		t.Errorf("Create after expiry = %v", err)
	}
}

func testNoTTL(t *testing.T, s taskstore.Store, clock *Clock) {
	rec := record("a", "alice")
	rec.TTL = 0
	create(t, s, rec)
	clock.Advance(10000 * time.Hour)
	if _, err := s.Get(ctx(t), "a"); err != nil {
		t.Errorf("a task without TTL expired: %v", err)
	}
}

func testList(t *testing.T, s taskstore.Store, _ *Clock) {
	c := ctx(t)
	var want []string
	for i := range 5 {
		id := fmt.Sprintf("a%d", i)
		want = append(want, id)
		create(t, s, record(id, "alice"))
		create(t, s, record(fmt.Sprintf("b%d", i), "bob"))
	}
	if err := s.Delete(c, "a2"); err != nil {
		t.Fatal(err)
	}
	want = append(want[:2], want[3:]...)
	var got []string
	cursor, pages := "", 0
	for {
		recs, next, err := s.List(c, "alice", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 2 {
			t.Fatalf("page of %d, limit 2", len(recs))
		}
		for _, r := range recs {
			got = append(got, r.ID)
		}
		pages++
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("List does not end")
		}
		cursor = next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List = %v, want %v (oldest first, alice's only)", got, want)
	}
	if recs, next, err := s.List(c, "carol", "", 10); err != nil || len(recs) != 0 || next != "" {
		t.Errorf("List of an owner without tasks = %v, %q, %v", recs, next, err)
	}
}

func testListInvalidCursor(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	if _, _, err := s.List(ctx(t), "alice", "not a cursor!", 10); !errors.Is(err, taskstore.ErrInvalidCursor) {
		t.Errorf("List with a made-up cursor = %v, want ErrInvalidCursor", err)
	}
}

func testWaitChanged(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	got := make(chan *taskstore.Record, 1)
	errs := make(chan error, 1)
	go func() {
		r, err := s.Wait(ctx(t), "a", 1)
		got <- r
		errs <- err
	}()
	if _, err := s.Update(ctx(t), "a", func(r *taskstore.Record) error { r.StatusMessage = "step 2"; return nil }); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if r.Revision != 2 || r.StatusMessage != "step 2" {
		t.Errorf("Wait = %+v, want the updated record", r)
	}
}

func testWaitAlreadyNewer(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	r, err := s.Wait(ctx(t), "a", 0)
	if err != nil || r.Revision != 1 {
		t.Errorf("Wait(after 0) = %+v, %v; want revision 1 at once", r, err)
	}
}

func testWaitCancelled(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	c, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := s.Wait(c, "a", 1)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
}

func testWaitDeleted(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	done := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx(t), "a", 1)
		done <- err
	}()
	if err := s.Delete(ctx(t), "a"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Wait on a deleted task = %v, want ErrNotFound", err)
	}
}

func testWaitExpired(t *testing.T, s taskstore.Store, clock *Clock) {
	create(t, s, record("a", "alice"))
	done := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx(t), "a", 1)
		done <- err
	}()
	clock.Advance(time.Minute)
	// The store notices expiry when it next looks.
	if _, err := s.Get(ctx(t), "a"); !errors.Is(err, taskstore.ErrNotFound) {
		t.Fatalf("Get after the TTL = %v, want ErrNotFound", err)
	}
	if err := <-done; !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Wait on an expired task = %v, want ErrNotFound", err)
	}
}

func testConcurrentUpdates(t *testing.T, s taskstore.Store, _ *Clock) {
	create(t, s, record("a", "alice"))
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Update(ctx(t), "a", func(r *taskstore.Record) error {
				var err error
				r.InputResponses, err = r.InputResponses.Set(fmt.Sprint(i), i)
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := s.Get(ctx(t), "a")
	if got.Revision != n+1 || len(got.InputResponses) != n {
		t.Errorf("after %d concurrent updates: revision %d, %d responses; want %d, %d", n, got.Revision, len(got.InputResponses), n+1, n)
	}
}
