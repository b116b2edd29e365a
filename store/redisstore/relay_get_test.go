package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

const initBody1125 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`

// openGet opens a GET stream (resuming after last, if set) and returns the
// response: the caller checks its status.
func openGet(t *testing.T, ctx context.Context, url, sid, last string) *http.Response {
	t.Helper()
	return sseExchange(t, ctx, http.MethodGet, url, sid, last, "")
}

// sseExchange sends a GET or POST in session sid (resuming after last, if
// set), asking for an event stream.
func sseExchange(t *testing.T, ctx context.Context, method, url, sid, last, body string) *http.Response {
	t.Helper()
	hdr := map[string]string{streamable.HeaderSessionID: sid}
	if last != "" {
		hdr[streamable.HeaderLastEventID] = last
	}
	return testkit.OpenMCP(t, ctx, method, url, hdr, body)
}

// nextEvent returns the next event with data, as its id and message.
func nextEvent(t *testing.T, d *sse.Decoder) (string, *jsonrpc.Message) {
	t.Helper()
	for {
		ev, err := d.Next()
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if len(ev.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(ev.Data)
		if err != nil {
			t.Fatalf("event %q: %v", ev.Data, err)
		}
		return ev.ID, m
	}
}

// entryOf returns the Redis entry part of an event id of one stream, as
// two numbers to compare.
func entryOf(t *testing.T, id, stream string) [2]uint64 {
	t.Helper()
	var e [2]uint64
	if !strings.HasPrefix(id, stream+"_") {
		t.Fatalf("event id %q is not of stream %q", id, stream)
	}
	if _, err := fmt.Sscanf(strings.TrimPrefix(id, stream+"_"), "%d-%d", &e[0], &e[1]); err != nil {
		t.Fatalf("event id %q: %v", id, err)
	}
	return e
}

func after(a, b [2]uint64) bool { return a[0] > b[0] || a[0] == b[0] && a[1] > b[1] }

// changeTools adds a tool "change" that adds another tool (a tools
// list_changed everywhere), and "outside" that lists the client's roots
// outside any request (so the request goes on the GET stream).
func changeTools(t *testing.T) func(*mcp.Server) {
	var n atomic.Int64
	return func(s *mcp.Server) {
		if err := mcp.AddTool(s, &protocol.Tool{Name: "change"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			return "changed", mcp.AddTool(s, &protocol.Tool{Name: fmt.Sprint("t", n.Add(1))}, func(context.Context, *mcp.ToolRequest, struct{}) (string, error) { return "", nil })
		}); err != nil {
			t.Fatal(err)
		}
		if err := mcp.AddTool(s, &protocol.Tool{Name: "outside"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			octx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := req.Session.ListRoots(octx)
			if err != nil || len(res.Roots) == 0 {
				return "", fmt.Errorf("roots: %v", err)
			}
			return "root=" + res.Roots[0].URI, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGetStreamAcrossReplicas: the GET stream is held by replica A; a second
// GET on B gets 409; a change made by a call on B reaches A's stream once;
// a request B's server sends outside a request goes on A's stream and its
// answer, posted to A, reaches B; a GET with Last-Event-ID on B takes the
// stream over (A's ends) and continues it under the same stream id, with
// increasing event ids, carrying a change made on A.
func TestGetStreamAcrossReplicas(t *testing.T) { getStreamAcrossReplicas(t, newRedis(t)) }

func getStreamAcrossReplicas(t *testing.T, redis clients) {
	a := newRelayedOn(t, redis(t), "A", 0, changeTools(t))
	b := newRelayedOn(t, redis(t), "B", 0, changeTools(t))
	ctx := testkit.Context(t)
	sid := startSession(t, &a.replica, &b.replica, initBody1125)
	getA := openGet(t, ctx, a.url, sid, "")
	if getA.StatusCode != http.StatusOK {
		t.Fatalf("GET on A: %d", getA.StatusCode)
	}
	dA := sse.NewDecoder(getA.Body)
	if r := openGet(t, ctx, b.url, sid, ""); r.StatusCode != http.StatusConflict {
		t.Fatalf("a second GET, on B: %d; want 409", r.StatusCode)
	}
	if resp, body := b.post(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"change","arguments":{}}}`); resp.StatusCode != http.StatusOK || !strings.Contains(body, "changed") {
		t.Fatalf("change on B: %d %s", resp.StatusCode, body)
	}
	id1, m := nextEvent(t, dA)
	if m.Method != protocol.NotificationToolsListChanged {
		t.Fatalf("A's GET stream: %+v; want tools/list_changed", m)
	}
	stream, _, _ := strings.Cut(id1, "_")
	done := make(chan string, 1)
	go func() {
		_, body := testkit.PostMCP(t, ctx, b.url, map[string]string{streamable.HeaderSessionID: sid}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"outside","arguments":{}}}`)
		done <- body
	}()
	id2, m := nextEvent(t, dA)
	if !m.IsRequest() || m.Method != "roots/list" || !strings.HasPrefix(fmt.Sprint(m.ID.Raw()), b.relay.Replica()+".") {
		t.Fatalf("A's GET stream, next: %+v; want B's roots/list (and no second list_changed)", m)
	}
	if !after(entryOf(t, id2, stream), entryOf(t, id1, stream)) {
		t.Fatalf("event ids %s then %s", id1, id2)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(m.ID.AppendJSON(nil)) + `,"result":{"roots":[{"uri":"file:///via-get"}]}}`
	if resp, body := a.post(t, sid, answer); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("answer on A: %d %s", resp.StatusCode, body)
	}
	if body := testkit.Receive(t, done); !strings.Contains(body, "root=file:///via-get") {
		t.Fatalf("the outside call on B: %s", body)
	}
	// B takes the stream over.
	getB := openGet(t, ctx, b.url, sid, id2)
	if getB.StatusCode != http.StatusOK {
		t.Fatalf("GET with Last-Event-ID on B: %d", getB.StatusCode)
	}
	if _, err := dA.Next(); err == nil {
		for {
			if _, err := dA.Next(); err != nil {
				break
			}
		}
	}
	dB := sse.NewDecoder(getB.Body)
	if resp, body := a.post(t, sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"change","arguments":{}}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("change on A: %d %s", resp.StatusCode, body)
	}
	id3, m := nextEvent(t, dB)
	if m.Method != protocol.NotificationToolsListChanged || !after(entryOf(t, id3, stream), entryOf(t, id2, stream)) {
		t.Fatalf("B's stream after the takeover: %s %+v (after %s)", id3, m, id2)
	}
}

// progressTool reports progress 1 and 2, waits for step (or the end of its
// request), reports 3, and returns "finished".
func progressTool(t *testing.T, step chan struct{}) func(*mcp.Server) {
	return func(s *mcp.Server) {
		if err := mcp.AddTool(s, &protocol.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			_ = req.ReportProgress(ctx, 1, 3, "")
			_ = req.ReportProgress(ctx, 2, 3, "")
			select {
			case <-step:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			_ = req.ReportProgress(ctx, 3, 3, "")
			return "finished", nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

const slowCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p%d"}}}`

// progressOf returns the progress value of a progress notification.
func progressOf(t *testing.T, m *jsonrpc.Message) float64 {
	t.Helper()
	var p protocol.ProgressParams
	if m.Method != protocol.NotificationProgress || json.Unmarshal(m.Params, &p) != nil {
		t.Fatalf("%+v is not a progress notification", m)
	}
	return p.Progress
}

// TestPostStreamTailedOnAnotherReplica: a POST stream written on A, resumed
// with Last-Event-ID on B, continues live there (progress 3 and the result,
// each once, with increasing ids); when A's replica is gone, a stream resumed
// on B ends with a -32603 error for its pending request.
func TestPostStreamTailedOnAnotherReplica(t *testing.T) {
	postStreamTailedOnAnotherReplica(t, newRedis(t))
}

func postStreamTailedOnAnotherReplica(t *testing.T, redis clients) {
	step := make(chan struct{})
	a := newRelayedOn(t, redis(t), "A", 0, progressTool(t, step))
	b := newRelayedOn(t, redis(t), "B", 0, progressTool(t, step))
	ctx := testkit.Context(t)
	sid := startSession(t, &a.replica, &b.replica, initBody1125)

	// Live tail: the writer is alive.
	dA := openStream(t, a.url, sid, fmt.Sprintf(slowCall, 10, 10))
	var last string
	for want := 1.0; want <= 2; want++ {
		id, m := nextEvent(t, dA)
		if got := progressOf(t, m); got != want {
			t.Fatalf("progress %v on A; want %v", got, want)
		}
		last = id
	}
	stream, _, _ := strings.Cut(last, "_")
	getB := openGet(t, ctx, b.url, sid, last)
	if getB.StatusCode != http.StatusOK {
		t.Fatalf("resuming on B: %d", getB.StatusCode)
	}
	dB := sse.NewDecoder(getB.Body)
	step <- struct{}{}
	id3, m := nextEvent(t, dB)
	if progressOf(t, m) != 3 || !after(entryOf(t, id3, stream), entryOf(t, last, stream)) {
		t.Fatalf("B's tail: %s %+v after %s", id3, m, last)
	}
	id4, m := nextEvent(t, dB)
	if !m.IsResponse() || !strings.Contains(string(m.Result), "finished") || !after(entryOf(t, id4, stream), entryOf(t, id3, stream)) {
		t.Fatalf("B's tail, the result: %s %+v", id4, m)
	}
	if _, err := dB.Next(); err == nil {
		t.Fatal("B's tail goes on after the stream's last response")
	}

	// Writer lost: A's relay stops (its liveness key goes), its handler never answers.
	dA = openStream(t, a.url, sid, fmt.Sprintf(slowCall, 11, 11))
	for range 2 {
		last, _ = nextEvent(t, dA)
	}
	a.relay.Close()
	getB = openGet(t, ctx, b.url, sid, last)
	if getB.StatusCode != http.StatusOK {
		t.Fatalf("resuming on B after A died: %d", getB.StatusCode)
	}
	id, m := nextEvent(t, sse.NewDecoder(getB.Body))
	if !m.IsResponse() || m.Error == nil || m.Error.Code != jsonrpc.CodeInternalError || m.ID != jsonrpc.Int64ID(11) {
		t.Fatalf("the resumed stream after its writer died: %s %+v; want a -32603 error for id 11", id, m)
	}
	stream, _, _ = strings.Cut(last, "_")
	if !after(entryOf(t, id, stream), entryOf(t, last, stream)) {
		t.Fatalf("the error's event id %s is not after %s", id, last)
	}
}
