package rpcconn

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// orderedHandler runs "set" in arrival order; "get" and "hold" run concurrently.
type orderedHandler struct {
	value   atomic.Value
	holding chan struct{} // one token per "hold" request in its handler
	release chan struct{} // closed to let "hold" requests return
}

func (h *orderedHandler) InOrder(m *jsonrpc.Message) bool { return m.Method == "set" }

func (h *orderedHandler) Handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	switch m.Method {
	case "set":
		h.value.Store(string(m.Params))
		return "ok", nil
	case "get":
		v, _ := h.value.Load().(string)
		return v, nil
	case "hold":
		h.holding <- struct{}{}
		select {
		case <-h.release:
			return "released", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + m.Method}
}

// A request the handler wants in arrival order has taken effect before the next
// message is handled, however soon that message comes.
func TestConnRunsOrderedRequestsInArrivalOrder(t *testing.T) {
	for i := range 200 {
		h := &orderedHandler{}
		_, peer := startConn(t, ConnOptions{Handler: h})
		peer.out <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"set","params":[%d]}`, i)
		peer.out <- []byte(`{"jsonrpc":"2.0","id":2,"method":"get"}`)
		answers := next(t, peer) + next(t, peer)
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"result":"[%d]"}`, i); !strings.Contains(answers, want) {
			t.Fatalf("iteration %d: get did not see the set before it: %s", i, answers)
		}
	}
}

// Requests the handler does not want in order still run concurrently: a second
// "hold" starts while the first is still in its handler.
func TestConnRunsOtherRequestsConcurrently(t *testing.T) {
	h := &orderedHandler{holding: make(chan struct{}, 2), release: make(chan struct{})}
	_, peer := startConn(t, ConnOptions{Handler: h})
	peer.out <- []byte(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	peer.out <- []byte(`{"jsonrpc":"2.0","id":2,"method":"hold"}`)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a bound, not a synchronisation
	defer cancel()
	for range 2 {
		select {
		case <-h.holding:
		case <-ctx.Done():
			t.Fatal("the second request did not start while the first ran")
		}
	}
	close(h.release)
	if got := next(t, peer) + next(t, peer); strings.Count(got, `"result":"released"`) != 2 {
		t.Fatalf("answers: %s", got)
	}
}
