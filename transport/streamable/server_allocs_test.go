package streamable

import (
	"testing"

	"github.com/mcpkit/mcpkit/internal/lazydone"
)

// TestOneRequestAllocs bounds the server's allocations for a tools/call that
// gets a session of its own: a 2026-07-28 request, and a request to a
// sessionless handler. The session, its POST's stream and writer are one
// allocation (newOneShot), the mcp session and its connection another, the
// first event queued on a stream needs no queue of its own, and a writer's
// leave signal makes no channel unless the writer waits: 20 and 19
// allocations before, 15 and 14 now (BenchmarkServeHTTPToolCallStateless,
// BenchmarkServeHTTPToolCallSessionless).
func TestOneRequestAllocs(t *testing.T) {
	for _, c := range []struct {
		name      string
		stateless bool
		max       float64
	}{
		{"stateless", true, 15},
		{"sessionless", false, 14},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := NewHandler(echoServer(t), &HandlerOptions{Sessionless: !c.stateless, Logger: quietLogger})
			defer h.Close()
			body, header := callBody(7, "echo", `{"message":"world"}`, ""), map[string]string{HeaderProtocolVersion: "2025-06-18"}
			if c.stateless {
				body, header = statelessBody(7, "tools/call", `"name":"echo","arguments":{"message":"world"}`), statelessEchoHeader
			}
			call := echoCaller(t, h, body, header)
			call() // first use: tables and pools filled
			if n := testing.AllocsPerRun(200, call); n > c.max {
				t.Errorf("%.0f allocations per request, want at most %.0f", n, c.max)
			}
		})
	}
}

// TestStreamFirstEventNotKept: the first event queued on a stream lives in
// the stream itself (stream.first), and is let go when a writer leaves
// without taking it or when the queue outgrows it, so that a stream that
// lives on keeps no message alive.
func TestStreamFirstEventNotKept(t *testing.T) {
	h := NewHandler(echoServer(t), &HandlerOptions{Logger: quietLogger})
	defer h.Close()
	s := h.newSession("sid", "127.0.0.1:1", 1)
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	for _, leave := range []string{"detach", "grow"} {
		st := newStream(s, modeUndecided, 1)
		me := new(lazydone.Done)
		st.mu.Lock()
		st.writer = me
		st.pushLocked(msg)
		if len(st.queue) != 1 || st.first[0].msg == nil {
			t.Fatalf("%s: the first event is not in the stream: %d queued", leave, len(st.queue))
		}
		if leave == "grow" {
			st.pushLocked(msg)
			if len(st.queue) != 2 || string(st.queue[0].msg) != string(msg) {
				t.Fatalf("grow: queue %d events", len(st.queue))
			}
		}
		st.mu.Unlock()
		if leave == "detach" {
			st.detach(me)
		}
		if st.first[0].msg != nil {
			t.Errorf("%s: the stream still holds its first event", leave)
		}
	}
}
