package redisstore_test

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/taskstore"
)

// write runs raw commands, as another program sharing the Redis would.
func write(t *testing.T, c *redisstore.Client, cmds ...[]string) {
	t.Helper()
	for _, cmd := range cmds {
		if err := redisstore.Do(t.Context(), c, cmd...); err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
	}
}

func wantCorrupt(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("%s: %v, want an error wrapping store.ErrCorrupt", what, err)
	}
}

// TestEventStoreGarbage puts values of the wrong type or shape where the
// event store keeps its streams and index: every operation reports
// store.ErrCorrupt (none panics, none mistakes it for missing data).
func TestEventStoreGarbage(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	s := redisstore.NewEventStore(c, nil)
	noop := func(string, []byte) error { return nil }
	write(t, c,
		[]string{"SET", "mcp:{str}:x:1", "not a stream"},
		[]string{"XADD", "mcp:{foreign}:x:1", "1-0", "field", "value"},
		[]string{"XADD", "mcp:{twofields}:x:1", "1-0", "m", "a", "n", "b"},
		[]string{"SET", "mcp:{badindex}:xs", "not a zset"},
	)
	_, err := s.Append(t.Context(), "str", "1", []byte("x"))
	wantCorrupt(t, "Append to a string key", err)
	_, err = s.Replay(t.Context(), "str", "1_0-0", noop)
	wantCorrupt(t, "Replay of a string key", err)
	_, err = s.Replay(t.Context(), "foreign", "1_0-0", noop)
	wantCorrupt(t, "Replay of another program's stream", err)
	_, err = s.Replay(t.Context(), "twofields", "1_0-0", noop)
	wantCorrupt(t, "Replay of an entry with two fields", err)
	_, err = s.Append(t.Context(), "badindex", "1", []byte("x"))
	wantCorrupt(t, "Append with a string as the session index", err)
	wantCorrupt(t, "DeleteSession with a string as the session index", s.DeleteSession(t.Context(), "badindex"))
	// Ids the handler never makes are refused, not turned into odd keys.
	if _, err := s.Append(t.Context(), "a}b", "1", nil); err == nil {
		t.Error("Append accepted a session id with a brace")
	}
}

// TestTaskStoreGarbage stores what is not a task under task keys and owner
// indexes: reads report store.ErrCorrupt, and Delete still removes the key.
func TestTaskStoreGarbage(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	s := redisstore.NewTaskStore(c, nil)
	valid := `{"f":1,"id":"other","owner":"o","status":"working","created":1,"updated":1}`
	write(t, c,
		[]string{"SET", "mcp:task:{str}", "not a hash"},
		[]string{"HSET", "mcp:task:{json}", "r", "1", "v", "{not json"},
		[]string{"HSET", "mcp:task:{rev}", "r", "x1", "v", valid},
		[]string{"HSET", "mcp:task:{zero}", "r", "0", "v", valid},
		[]string{"HSET", "mcp:task:{noval}", "r", "1"},
		[]string{"HSET", "mcp:task:{moved}", "r", "1", "v", valid},
		[]string{"HSET", "mcp:task:{format}", "r", "1", "v", `{"f":2,"id":"format","status":"working"}`},
		[]string{"HSET", "mcp:task:{status}", "r", "1", "v", `{"f":1,"id":"status","status":"sleeping"}`},
		[]string{"HSET", "mcp:task:{inreq}", "r", "1", "v", `{"f":1,"id":"inreq","status":"working","inReq":{"k":"not a request"}}`},
	)
	for _, id := range []string{"str", "json", "rev", "zero", "noval", "moved", "format", "status", "inreq"} {
		_, err := s.Get(t.Context(), id)
		wantCorrupt(t, "Get("+id+")", err)
		_, err = s.Update(t.Context(), id, func(*taskstore.Record) error { return nil })
		wantCorrupt(t, "Update("+id+")", err)
		_, err = s.Wait(t.Context(), id, 0)
		wantCorrupt(t, "Wait("+id+")", err)
	}
	for _, id := range []string{"json", "moved", "noval"} {
		if err := s.Delete(t.Context(), id); err != nil {
			t.Errorf("Delete(%s) of a foreign value: %v", id, err)
		}
		if _, err := s.Get(t.Context(), id); !errors.Is(err, taskstore.ErrNotFound) {
			t.Errorf("after Delete(%s): %v", id, err)
		}
	}
	wantCorrupt(t, "Delete of a string key", s.Delete(t.Context(), "str"))

	// An owner index that is not a sorted set, and one naming a garbage task.
	owner := func(o string) string {
		return "mcp:tasks:{o" + base64.RawURLEncoding.EncodeToString([]byte(o)) + "}:all"
	}
	write(t, c,
		[]string{"SET", owner("mallory"), "x"},
		[]string{"ZADD", owner("bob"), "1", "rev"},
	)
	_, _, err := s.List(t.Context(), "mallory", "", 10)
	wantCorrupt(t, "List with a string as the index", err)
	err = s.Create(t.Context(), &taskstore.Record{ID: "new", Owner: "mallory", Status: protocol.TaskStatusWorking, CreatedAt: time.Now()}, 0)
	wantCorrupt(t, "Create with a string as the index", err)
	_, _, err = s.List(t.Context(), "bob", "", 10)
	wantCorrupt(t, "List of an index naming a garbage task", err)
}
