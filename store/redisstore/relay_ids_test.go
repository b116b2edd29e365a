package redisstore_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// rootsCall is a tools/call of rootsTool's "roots".
const rootsCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"roots","arguments":{}}}`

// rootsAnswer is a client's answer to the roots/list request id, naming uri.
func rootsAnswer(id jsonrpc.ID, uri string) string {
	return `{"jsonrpc":"2.0","id":` + string(id.AppendJSON(nil)) + `,"result":{"roots":[{"uri":"` + uri + `"}]}}`
}

// TestIDsNotReusedWhenASessionIsRestored: replica A serves a session, forgets
// its object for it (as its janitor does for a session idle there while
// other replicas keep it alive) and restores it from the store: the new
// object's streams and requests to the client get ids the first one never
// gave, so its events do not go to the old stream in Redis, and a late answer
// to the old request does not resolve the new one.
func TestIDsNotReusedWhenASessionIsRestored(t *testing.T) {
	idsNotReusedWhenASessionIsRestored(t, newRedis(t))
}

func idsNotReusedWhenASessionIsRestored(t *testing.T, redis clients) {
	a := newRelayedOn(t, redis(t), "A", 0, rootsTool(t))
	b := newRelayedOn(t, redis(t), "B", 0, rootsTool(t))
	sid := startSession(t, &a.replica, &b.replica, initBody1125)

	// round starts a call on A that lists the client's roots, and returns
	// its stream and the roots/list request; the ids of both must be new.
	streams := map[string]bool{}
	requests := map[jsonrpc.ID]bool{}
	round := func(id int) (*sse.Decoder, *jsonrpc.Message) {
		t.Helper()
		d := openStream(t, a.url, sid, fmt.Sprintf(rootsCall, id))
		ev, req := nextEvent(t, d)
		if req.Method != "roots/list" {
			t.Fatalf("call %d: first message %+v; want roots/list", id, req)
		}
		stream, _, _ := strings.Cut(ev, "_")
		if streams[stream] {
			t.Errorf("call %d: stream id %q given again", id, stream)
		}
		if requests[req.ID] {
			t.Errorf("call %d: request id %v given again", id, req.ID.Raw())
		}
		streams[stream], requests[req.ID] = true, true
		return d, req
	}
	var first *jsonrpc.Message
	for i := range 2 {
		d, req := round(5 + i)
		first = req
		if resp, body := b.post(t, sid, rootsAnswer(req.ID, "file:///first")); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("answer: %d %s", resp.StatusCode, body)
		}
		if res := nextMessage(t, d); !strings.Contains(string(res.Result), "root=file:///first") {
			t.Fatalf("call %d: %s %v", 5+i, res.Result, res.Error)
		}
	}

	for _, ss := range a.server.Sessions() {
		_ = ss.Close() // A's object only: the record stays
	}
	if n := a.h.Sessions(); n != 0 {
		t.Fatalf("A still has %d sessions", n)
	}
	round(7) // restored on A, left waiting
	d, req := round(8)
	// A late answer to a request of the first object, then the answer to
	// the new one.
	for _, answer := range []string{rootsAnswer(first.ID, "file:///stale"), rootsAnswer(req.ID, "file:///fresh")} {
		if resp, body := b.post(t, sid, answer); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("answer %s: %d %s", answer, resp.StatusCode, body)
		}
	}
	if res := nextMessage(t, d); !strings.Contains(string(res.Result), "root=file:///fresh") {
		t.Errorf("call 8: %s %v; want the fresh answer's root", res.Result, res.Error)
	}
}

// TestRestartWithTheSameReplicaName: replica A is killed (its liveness key is
// left to expire, as after kill -9) and restarted at once under the same name
// (MCPKIT_REPLICA_ID): the new process has another relay id, so a stream the
// dead one was writing, resumed on B, still ends with a -32603 error for its
// pending request once the old liveness key lapses, although "A" is up again.
func TestRestartWithTheSameReplicaName(t *testing.T) {
	srv := redistest.Start(t)
	step := make(chan struct{})
	c1 := open(t, srv)
	a1 := newRelayedOn(t, c1, "A", time.Second, progressTool(t, step))
	b := newRelayed(t, srv, "B", progressTool(t, step))
	sid := startSession(t, &a1.replica, &b.replica, initBody1125)
	dA := openStream(t, a1.url, sid, fmt.Sprintf(slowCall, 11, 11))
	var last string
	for range 2 {
		last, _ = nextEvent(t, dA)
	}
	c1.Close() // "kill -9": no more heartbeats, and the liveness key is not deleted

	a2 := newRelayed(t, srv, "A", progressTool(t, step))
	if id1, id2 := a1.relay.Replica(), a2.relay.Replica(); id1 == id2 || !strings.HasPrefix(id1, "A") || !strings.HasPrefix(id2, "A") {
		t.Errorf("relay ids of two processes named A: %q and %q; want two ids beginning with A", id1, id2)
	}
	if stream, _, _ := strings.Cut(last, "_"); !strings.HasPrefix(stream, a1.relay.Replica()+"-") {
		t.Errorf("stream %q does not name its writer %s", stream, a1.relay.Replica())
	}
	ctx, cancel := context.WithTimeout(testkit.Context(t), 10*time.Second)
	defer cancel()
	getB := openGet(t, ctx, b.url, sid, last)
	if getB.StatusCode != http.StatusOK {
		t.Fatalf("resuming on B: %d", getB.StatusCode)
	}
	id, m := nextEvent(t, sse.NewDecoder(getB.Body))
	if !m.IsResponse() || m.Error == nil || m.Error.Code != jsonrpc.CodeInternalError || m.ID != jsonrpc.Int64ID(11) {
		t.Fatalf("the resumed stream of the killed process: %s %+v; want a -32603 error for id 11", id, m)
	}
}
