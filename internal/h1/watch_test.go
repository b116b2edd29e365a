package h1

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// doCtx sends a POST with ctx, reads the whole body and returns the error.
func doCtx(ctx context.Context, tr *Transport, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("x"))
	if err != nil {
		return err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil && string(data) != "ok" {
		err = errors.New("wrong body " + string(data))
	}
	return err
}

// onlyConn returns the transport's one idle connection.
func onlyConn(t *testing.T, tr *Transport) *conn {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var all []*conn
	for _, list := range tr.idle {
		all = append(all, list...)
	}
	if len(all) != 1 {
		t.Fatalf("%d idle connections, want 1", len(all))
	}
	return all[0]
}

// registered reports whether c's context registration is armed, and how many
// were made.
func registered(c *conn) (bool, int) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	return c.w.stop != nil, c.w.arms
}

func okServer(t *testing.T) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
}

// Requests made one after the other with one cancellable context arm its
// AfterFunc twice on their connection (the second sighting keeps it), not once
// per request; when that context ends while the connection is idle, the
// connection is not aborted and serves a request with another context.
func TestWatchKeptForOneContext(t *testing.T) {
	s := okServer(t)
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	for i := range 10 {
		if err := doCtx(ctx, tr, s.URL); err != nil {
			t.Fatal(err)
		}
		armed, arms := registered(onlyConn(t, tr))
		if want := min(i+1, 2); arms != want || armed != (i > 0) {
			t.Fatalf("after request %d: armed %v, %d registrations; want %v, %d", i+1, armed, arms, i > 0, want)
		}
	}
	c := onlyConn(t, tr)
	cancel()
	waitFor(t, func() bool { c.w.mu.Lock(); defer c.w.mu.Unlock(); return c.w.fired })
	if c.aborted.Load() {
		t.Fatal("an idle connection was aborted by its last request's context")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if err := doCtx(ctx2, tr, s.URL); err != nil {
		t.Fatal(err)
	}
	if n := s.accepted.Load(); n != 1 {
		t.Fatalf("%d connections, want 1 (reused)", n)
	}
	// A request whose context cannot be cancelled leaves the registration be.
	if err := doCtx(context.Background(), tr, s.URL); err != nil {
		t.Fatal(err)
	}
	if _, arms := registered(onlyConn(t, tr)); arms != 3 {
		t.Fatalf("%d registrations, want 3", arms)
	}
}

// A context made per request, cancelled after it, leaves no registration on the
// connection, which is reused.
func TestWatchPerRequestContexts(t *testing.T) {
	s := okServer(t)
	tr := newTransport(t, nil)
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		err := doCtx(ctx, tr, s.URL)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if armed, arms := registered(onlyConn(t, tr)); armed || arms != i+1 {
			t.Fatalf("after request %d: armed %v, %d registrations; want false, %d", i+1, armed, arms, i+1)
		}
	}
	if n := s.accepted.Load(); n != 1 {
		t.Fatalf("%d connections, want 1 (reused)", n)
	}
}

// A kept registration still ends its context's request: cancelling the shared
// context while a request waits for its response ends that request, and its
// connection is not kept.
func TestWatchKeptEndsItsRequest(t *testing.T) {
	block := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/block" {
			w.(http.Flusher).Flush()
			<-block
		}
		io.WriteString(w, "ok")
	})
	t.Cleanup(func() { close(block) }) // before the server's Close
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	for range 2 {
		if err := doCtx(ctx, tr, s.URL); err != nil {
			t.Fatal(err)
		}
	}
	if armed, _ := registered(onlyConn(t, tr)); !armed {
		t.Fatal("the registration was not kept")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/block", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, arms := registered(resp.Body.(*body).c); arms != 2 {
		t.Fatalf("%d registrations, want 2 (the kept one covers this request)", arms)
	}
	cancel()
	if _, err := resp.Body.Read(make([]byte, 8)); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	resp.Body.Close()
	if tr.IdleConns() != 0 {
		t.Fatal("an aborted connection was kept")
	}
}

// A connection whose kept registration's context ended but whose callback has
// not run yet is not used for a request with another context (the callback
// could end it): the request goes on a new connection.
func TestWatchDueCallbackRetiresConnection(t *testing.T) {
	s := okServer(t)
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 2 {
		if err := doCtx(ctx, tr, s.URL); err != nil {
			t.Fatal(err)
		}
	}
	c := onlyConn(t, tr)
	c.w.mu.Lock()
	stop := c.w.stop
	c.w.stop = func() bool { stop(); return false } // as if ctx had just ended
	c.w.mu.Unlock()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if err := doCtx(ctx2, tr, s.URL); err != nil {
		t.Fatal(err)
	}
	if n := s.accepted.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the first retired)", n)
	}
	if onlyConn(t, tr) == c {
		t.Fatal("the retired connection was kept")
	}
}

// Many requests share contexts that end while others are in flight or idle on
// their connections: a request fails only with its own context's error, and
// every request made afterwards with a live context succeeds: no registration
// of an ended context reaches it.
func TestWatchEndedContextsNeverReachLaterRequests(t *testing.T) {
	s := okServer(t)
	tr := newTransport(t, &Options{MaxIdleConnsPerHost: 4})
	const workers, rounds = 6, 30
	live := context.Background()
	for round := range rounds {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		errs := make(chan error, workers*2)
		for w := range workers {
			wg.Go(func() {
				for i := range 4 {
					if w == 0 && i == 2+round%2 {
						cancel()
					}
					if err := doCtx(ctx, tr, s.URL); err != nil && !errors.Is(err, context.Canceled) {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		cancel()
		wg = sync.WaitGroup{}
		for range workers {
			wg.Go(func() {
				lctx, lcancel := context.WithCancel(live)
				defer lcancel()
				for range 3 {
					if err := doCtx(lctx, tr, s.URL); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
