package testkit_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestNewServerStopsDespiteAnOpenStream leaves a client on an endless response (as a
// test that fails before closing its client does) and checks that the server's
// cleanup still returns, after the handler has.
func TestNewServerStopsDespiteAnOpenStream(t *testing.T) {
	tb := &testkit.DeferredCleanups{TB: t}
	streaming := make(chan struct{})
	returned := make(chan struct{})
	ts := testkit.NewServer(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		close(streaming)
		<-r.Context().Done() // an endless stream: only the client or the server ends it
	}))
	if n := tb.Len(); n != 1 {
		t.Fatalf("NewServer registered %d cleanups, want 1", n)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-streaming

	tb.RunWithin(t, testkit.TeardownLimit)
	select {
	case <-returned:
	default:
		t.Error("the cleanup returned before the handler did")
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the client's stream ended cleanly; want it cut off")
	}
}

// TestRunWithinFailsOnAHang checks that a teardown that never ends fails the test
// instead of hanging it, and that the cleanups run last registered first.
func TestRunWithinFailsOnAHang(t *testing.T) {
	var order []int
	ok := &testkit.DeferredCleanups{TB: t}
	ok.Cleanup(func() { order = append(order, 1) })
	ok.Cleanup(func() { order = append(order, 2) })
	ok.RunWithin(t, testkit.TeardownLimit)
	if len(order) != 2 || order[0] != 2 || order[1] != 1 || ok.Len() != 0 {
		t.Errorf("cleanups ran in order %v (%d left), want [2 1] and none left", order, ok.Len())
	}

	release := make(chan struct{})
	defer close(release) // lets the hung cleanup end with the test
	hung := &testkit.DeferredCleanups{TB: t}
	hung.Cleanup(func() { <-release })
	rec := &fatalTB{TB: t}
	hung.RunWithin(rec, time.Millisecond)
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "did not finish") {
		t.Errorf("a hung teardown reported %q, want one failure", rec.fatals)
	}
}
