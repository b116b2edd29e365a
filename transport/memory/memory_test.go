package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/transport"
)

func mustRead(t *testing.T, ctx context.Context, c transport.Conn) []byte {
	t.Helper()
	msg, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return msg
}

func TestOrderBothDirections(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer client.Close()
	defer server.Close()

	const n = 1000
	for i := range n {
		if err := client.Write(ctx, []byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		if err := server.Write(ctx, []byte("s"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if got, want := string(mustRead(t, ctx, server)), strconv.Itoa(i); got != want {
			t.Fatalf("server read %q, want %q", got, want)
		}
		if got, want := string(mustRead(t, ctx, client)), "s"+strconv.Itoa(i); got != want {
			t.Fatalf("client read %q, want %q", got, want)
		}
	}
}

func TestWriteCopiesMessage(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer client.Close()
	defer server.Close()

	buf := []byte(`{"a":1}`)
	if err := client.Write(ctx, buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXXXX") // the caller reuses its buffer
	if got := string(mustRead(t, ctx, server)); got != `{"a":1}` {
		t.Fatalf("read %q after the writer reused its buffer", got)
	}
}

func TestConcurrentWritersKeepPerWriterOrder(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer client.Close()
	defer server.Close()

	const writers, each = 16, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := client.Write(ctx, fmt.Appendf(nil, "%d:%d", w, i)); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	next := make([]int, writers)
	for range writers * each {
		msg := mustRead(t, ctx, server)
		var w, i int
		if _, err := fmt.Sscanf(string(msg), "%d:%d", &w, &i); err != nil {
			t.Fatalf("malformed message %q: %v", msg, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: got message %d, want %d", w, i, next[w])
		}
		next[w]++
	}
	wg.Wait()
	for w, n := range next {
		if n != each {
			t.Errorf("writer %d: received %d messages, want %d", w, n, each)
		}
	}
}

// Both ends write a lot before either reads: an engine whose reader also writes must
// not deadlock on the transport.
func TestBothSidesWriteBeforeReading(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer client.Close()
	defer server.Close()

	const n = 10000
	var wg sync.WaitGroup
	for _, c := range []transport.Conn{client, server} {
		wg.Go(func() {
			for i := range n {
				if err := c.Write(ctx, []byte(strconv.Itoa(i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait() // returns only because Write never blocks on the peer
	for _, c := range []transport.Conn{client, server} {
		for i := range n {
			if got := string(mustRead(t, ctx, c)); got != strconv.Itoa(i) {
				t.Fatalf("read %q, want %d", got, i)
			}
		}
	}
}

func TestCloseDrainsThenEOF(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer server.Close()

	for _, m := range []string{"one", "two"} {
		if err := client.Write(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"one", "two"} {
		if got := string(mustRead(t, ctx, server)); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}
	for range 2 {
		if _, err := server.Read(ctx); err != io.EOF {
			t.Fatalf("Read after drain: %v, want io.EOF", err)
		}
	}
	if err := server.Write(ctx, []byte("late")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write to a closed peer: %v, want io.ErrClosedPipe", err)
	}
	if err := client.Write(ctx, []byte("late")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write on a closed end: %v, want io.ErrClosedPipe", err)
	}
}

func TestCloseUnblocksPendingRead(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer client.Close()

	errc := make(chan error, 1)
	go func() {
		_, err := server.Read(ctx)
		errc <- err
	}()
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	if err := server.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case err := <-errc:
		if err != io.EOF {
			t.Fatalf("pending Read returned %v, want io.EOF", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not unblock the pending Read")
	}
}

func TestPeerCloseUnblocksPendingRead(t *testing.T) {
	ctx := testkit.Context(t)
	client, server := NewPair()
	defer server.Close()

	errc := make(chan error, 1)
	go func() {
		_, err := server.Read(ctx)
		errc <- err
	}()
	client.Close()
	select {
	case err := <-errc:
		if err != io.EOF {
			t.Fatalf("pending Read returned %v, want io.EOF", err)
		}
	case <-ctx.Done():
		t.Fatal("peer Close did not unblock the pending Read")
	}
}

func TestReadHonoursContext(t *testing.T) {
	client, server := NewPair()
	defer client.Close()
	defer server.Close()

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := server.Read(ctx)
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context: %v", err)
	}
	// The connection is still usable afterwards.
	ctx2 := testkit.Context(t)
	if err := client.Write(ctx2, []byte("after")); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, ctx2, server)); got != "after" {
		t.Fatalf("read %q, want after", got)
	}
}

func TestWriteWithEndedContext(t *testing.T) {
	client, server := NewPair()
	defer client.Close()
	defer server.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := client.Write(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write with a cancelled context: %v", err)
	}
}

// A reader that lags behind a writer for a long time must not make the queue's
// backing array grow without bound.
func TestLaggingReaderCompactsQueue(t *testing.T) {
	q := newQueue()
	msg := []byte("m")
	for range 10 {
		if err := q.push(msg); err != nil {
			t.Fatal(err)
		}
	}
	for range 100000 {
		if err := q.push(msg); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := q.pop(); !ok {
			t.Fatal("pop on a non-empty queue failed")
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if live := len(q.msgs) - q.head; live != 10 {
		t.Fatalf("queue holds %d messages, want 10", live)
	}
	if cap(q.msgs) > 1024 {
		t.Fatalf("queue capacity grew to %d for 10 live messages", cap(q.msgs))
	}
}

func TestWriteAllocatesOnlyTheCopy(t *testing.T) {
	ctx := context.Background()
	client, server := NewPair()
	defer client.Close()
	defer server.Close()
	msg := bytes.Repeat([]byte("x"), 200)
	allocs := testing.AllocsPerRun(1000, func() {
		if err := client.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Read(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Fatalf("write+read allocates %.1f times per message, want at most 1 (the copy)", allocs)
	}
}

func BenchmarkRoundTrip200B(b *testing.B) {
	ctx := context.Background()
	client, server := NewPair()
	defer client.Close()
	defer server.Close()
	msg := bytes.Repeat([]byte("x"), 200)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := client.Write(ctx, msg); err != nil {
			b.Fatal(err)
		}
		if _, err := server.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPingPong200B measures a request/response exchange between two goroutines,
// which includes waking the blocked reader.
func BenchmarkPingPong200B(b *testing.B) {
	ctx := context.Background()
	client, server := NewPair()
	defer client.Close()
	msg := bytes.Repeat([]byte("x"), 200)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := server.Read(ctx)
			if err != nil {
				return
			}
			if err := server.Write(ctx, m); err != nil {
				return
			}
		}
	}()
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := client.Write(ctx, msg); err != nil {
			b.Fatal(err)
		}
		if _, err := client.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	server.Close()
	<-done
}

func BenchmarkParallelWriters200B(b *testing.B) {
	ctx := context.Background()
	client, server := NewPair()
	defer client.Close()
	msg := bytes.Repeat([]byte("x"), 200)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := server.Read(ctx); err != nil {
				return
			}
		}
	}()
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := client.Write(ctx, msg); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	client.Close()
	<-done
	server.Close()
}
