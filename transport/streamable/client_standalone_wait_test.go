package streamable

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// The write of notifications/initialized returns only once the server has answered
// the standalone GET, so a server that sends its requests only on an open GET
// stream (as the TypeScript SDK's does) cannot send one into the void.
func TestInitializedWaitsForTheStandaloneStream(t *testing.T) {
	var getAnswered atomic.Bool
	release := make(chan struct{})
	srv := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			<-release // the server is slow to answer the GET
			w.Header().Set("Content-Type", "text/event-stream")
			getAnswered.Store(true)
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case http.MethodPost:
			w.Header().Set(HeaderSessionID, "s1")
			if r.ContentLength > 0 && r.Header.Get(HeaderSessionID) == "" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`))
				return
			}
			w.WriteHeader(http.StatusAccepted)
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	ctx := testkit.Context(t)
	c, err := NewClientConn(ctx, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)) }()
	select {
	case err := <-done:
		t.Fatalf("initialized returned (%v) before the GET stream was answered", err)
	case <-time.After(100 * time.Millisecond): // the write must still be waiting
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !getAnswered.Load() {
		t.Fatal("initialized returned before the server answered the GET")
	}
}
