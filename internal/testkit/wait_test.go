package testkit_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

func TestContextEndsWithTheTestAndIsBounded(t *testing.T) {
	var ctx context.Context
	t.Run("inner", func(t *testing.T) {
		ctx = testkit.Context(t)
		if err := ctx.Err(); err != nil {
			t.Fatalf("a fresh test context has ended: %v", err)
		}
		deadline, ok := ctx.Deadline()
		if !ok || time.Until(deadline) > testkit.Timeout {
			t.Errorf("deadline %v (set %v), want within %v", deadline, ok, testkit.Timeout)
		}
	})
	select {
	case <-ctx.Done():
	default:
		t.Error("the context outlived its test")
	}
}

func TestReceive(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if got := testkit.Receive(t, ch); got != 7 {
		t.Errorf("Receive = %d, want 7", got)
	}
	close(ch)
	if got := testkit.Receive(t, ch); got != 0 {
		t.Errorf("Receive on a closed channel = %d, want 0", got)
	}

	rec := &fatalTB{TB: t}
	if got := testkit.ReceiveWithin(rec, make(chan int), time.Millisecond); got != 0 || len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "nothing received") {
		t.Errorf("an empty channel gave %d and failures %q, want 0 and one failure", got, rec.fatals)
	}
}

func TestRequestsWaitsForTheHandlerToReturn(t *testing.T) {
	var reqs testkit.Requests
	entered := make(chan string, 2)
	release := make(chan struct{})
	returned := make(chan struct{}, 2)
	ts := testkit.NewServer(t, reqs.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- r.Method
		defer func() { returned <- struct{}{} }()
		if r.Method == http.MethodPost {
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	})))
	select {
	case <-reqs.Idle(http.MethodPost):
	default:
		t.Fatal("Idle is not closed on a handler that serves nothing")
	}

	postDone := make(chan error, 1)
	go func() {
		resp, err := ts.Client().Post(ts.URL, "text/plain", nil)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		postDone <- err
	}()
	testkit.Receive(t, entered)
	idlePOST := reqs.Idle(http.MethodPost)
	idleAny := reqs.Idle("")
	if n := reqs.Active(http.MethodPost); n != 1 {
		t.Errorf("Active(POST) = %d while one is served, want 1", n)
	}

	// A GET comes and goes: POSTs are still being served.
	resp, err := ts.Client().Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	testkit.Receive(t, entered)
	testkit.Receive(t, returned)
	reqs.WaitIdle(t, http.MethodGet)
	select {
	case <-idlePOST:
		t.Fatal("Idle(POST) closed while a POST is being served")
	case <-idleAny:
		t.Fatal("Idle(\"\") closed while a POST is being served")
	default:
	}
	rec := &fatalTB{TB: t}
	reqs.WaitIdleWithin(rec, http.MethodPost, time.Millisecond)
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], `1 "POST" requests`) {
		t.Errorf("waiting on a busy handler reported %q, want one failure naming the POST", rec.fatals)
	}

	close(release)
	reqs.WaitIdle(t, http.MethodPost)
	select {
	case <-returned: // the handler had returned when WaitIdle did
	default:
		t.Error("WaitIdle returned before the handler did")
	}
	testkit.Receive(t, idleAny)
	if err := testkit.Receive(t, postDone); err != nil {
		t.Errorf("POST: %v", err)
	}
}

func TestClock(t *testing.T) {
	start := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	c := testkit.NewClock(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", c.Now(), start)
	}
	done := make(chan struct{})
	go func() { defer close(done); c.Advance(time.Minute) }()
	c.Advance(time.Second)
	<-done
	if got := c.Now().Sub(start); got != time.Minute+time.Second {
		t.Errorf("after advancing 1m and 1s the clock moved %v", got)
	}
}
