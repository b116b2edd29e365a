package rpcconn

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// handlerGoroutines counts c's goroutines parked in, or running, a handler loop
// (a goroutine's trace shows the receiver as the method's first argument).
func handlerGoroutines(c *Conn) int {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	return strings.Count(string(buf[:n]), fmt.Sprintf("rpcconn.(*Conn).handlerLoop(%p", c))
}

// TestConnReusedHandlersStayConcurrent checks that handler goroutines waiting for
// work do not serialize requests: after sequential requests have left idle
// handlers behind, two requests that each wait for the other must both finish.
func TestConnReusedHandlersStayConcurrent(t *testing.T) {
	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		if m.Method == "pair" {
			arrived <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return "ok", nil
	})
	_, peer := startConn(t, ConnOptions{Handler: h})
	for i := range 5 {
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"ok"}`, i)
		if got := exchange(t, peer, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"warm"}`, i)); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	peer.out <- []byte(`{"jsonrpc":"2.0","id":"a","method":"pair"}`)
	peer.out <- []byte(`{"jsonrpc":"2.0","id":"b","method":"pair"}`)
	<-arrived
	<-arrived // both handlers run at once
	close(release)
	got := []string{next(t, peer), next(t, peer)}
	for _, id := range []string{`"a"`, `"b"`} {
		if !strings.Contains(got[0]+got[1], `"id":`+id+`,"result":"ok"`) {
			t.Errorf("no answer to %s in %q", id, got)
		}
	}
}

// TestConnCloseStopsHandlerGoroutines checks that Close leaves no handler
// goroutine behind, idle ones included.
func TestConnCloseStopsHandlerGoroutines(t *testing.T) {
	c, peer := startConn(t, ConnOptions{Handler: echoHandler()})
	for i := range 3 {
		exchange(t, peer, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, i))
	}
	if handlerGoroutines(c) == 0 {
		t.Fatal("no handler goroutine while the connection is open: the test checks nothing")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := handlerGoroutines(c); n != 0 {
		t.Errorf("%d handler goroutines after Close, want none", n)
	}
}
