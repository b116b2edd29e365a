//go:build unix

package stdio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// watchedFile is a pipe's read end that reports its reads: on which goroutine
// each one runs (entered) and how many bytes each returned (got).
type watchedFile struct {
	*os.File
	entered chan string // the goroutine of each Read, sent on entry
	got     chan int    // the byte count of each Read that returned some
}

func newWatchedPipe(t *testing.T) (*watchedFile, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return &watchedFile{File: r, entered: make(chan string, 1<<12), got: make(chan int, 1<<12)}, w
}

func (f *watchedFile) Read(p []byte) (int, error) {
	f.entered <- goroutine()
	n, err := f.File.Read(p)
	if n > 0 {
		f.got <- n
	}
	return n, err
}

// awaitBytes waits until f's reads have returned n bytes in all.
func (f *watchedFile) awaitBytes(t *testing.T, n int) {
	t.Helper()
	for sum := 0; sum < n; {
		sum += testkit.Receive(t, f.got)
	}
}

// goroutine returns "goroutine N" for the calling goroutine.
func goroutine() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(buf, []byte(" ["))
	return string(id)
}

// readResultOf runs c.read(ctx) on another goroutine.
func readResultOf(c *lineConn, ctx context.Context) <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		msg, err := c.read(ctx)
		ch <- readResult{msg, err}
	}()
	return ch
}

// Reads of a pipe, which the poller can interrupt, run on the goroutine that
// calls read; those of a plain reader, on the connection's own.
func TestDirectReadOnlyForInterruptibleInput(t *testing.T) {
	ctx := testkit.Context(t)
	f, w := newWatchedPipe(t)
	c := newLineConn(f, io.Discard, 0, false)
	if c.direct == nil {
		t.Fatal("a pipe is not read directly")
	}
	if s := NewServerConn(f.File, io.Discard, nil).(*serverConn); s.direct == nil {
		t.Fatal("a server on a pipe does not read it directly")
	}
	w.WriteString(`{"a":1}` + "\n")
	if msg, err := c.read(ctx); err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("read %q, %v", msg, err)
	}
	if by, me := testkit.Receive(t, f.entered), goroutine(); by != me {
		t.Fatalf("the pipe was read by %s, not by the reader, %s", by, me)
	}

	plain := newLineConn(plainReader{f}, io.Discard, 0, false)
	defer plain.close()
	if plain.direct != nil {
		t.Fatal("a plain reader, which cannot be interrupted, is read directly")
	}
	w.WriteString(`{"b":2}` + "\n")
	if msg, err := plain.read(ctx); err != nil || string(msg) != `{"b":2}` {
		t.Fatalf("read %q, %v", msg, err)
	}
	if by, me := testkit.Receive(t, f.entered), goroutine(); by == me {
		t.Fatalf("a plain reader was read on the reader's goroutine, %s", me)
	}
	tmp, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	for _, in := range []io.Reader{tmp, strings.NewReader("{}\n"), bytes.NewReader(nil)} {
		if newLineConn(in, io.Discard, 0, false).direct != nil {
			t.Errorf("%T is read directly", in)
		}
	}
}

// Cancelling the context of a read blocked in the middle of a message returns
// the context's error; the message arrives intact at the next read, short or
// longer than the read buffer.
func TestDirectReadCancelKeepsHalfWrittenMessage(t *testing.T) {
	f, w := newWatchedPipe(t)
	c := newLineConn(f, io.Discard, 0, false)
	long := bigMessage(200 << 10)
	for _, tc := range []struct {
		name  string
		first []byte
		rest  []byte
	}{
		{"between lines", nil, []byte(`{"a":1}` + "\n")},
		{"short line", []byte(`{"half":`), []byte(`1}` + "\n")},
		{"long line", long[:100<<10], append(long[100<<10:len(long):len(long)], '\n')},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(testkit.Context(t))
			defer cancel()
			// The first message of the case: a read with ctx that succeeds, so
			// that ctx is watched before it ends.
			w.WriteString(`{"before":true}` + "\n")
			if msg, err := c.read(ctx); err != nil || string(msg) != `{"before":true}` {
				t.Fatalf("read %q, %v", msg, err)
			}
			drainChan(f.got)
			drainChan(f.entered)
			result := readResultOf(c, ctx)
			wrote := make(chan error, 1)
			go func() { _, err := w.Write(tc.first); wrote <- err }()
			f.awaitBytes(t, len(tc.first))
			testkit.Receive(t, f.entered) // blocked in a Read, or about to be
			if err := testkit.Receive(t, wrote); err != nil {
				t.Fatal(err)
			}
			cancel()
			if r := testkit.Receive(t, result); !errors.Is(r.err, context.Canceled) || r.msg != nil {
				t.Fatalf("cancelled read: %q, %v; want context.Canceled", r.msg, r.err)
			}
			if _, err := c.read(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("read with the ended context again: %v", err)
			}

			result = readResultOf(c, testkit.Context(t))
			go func() { _, err := w.Write(tc.rest); wrote <- err }()
			want := string(bytes.TrimSuffix(append(append([]byte(nil), tc.first...), tc.rest...), []byte("\n")))
			if r := testkit.Receive(t, result); r.err != nil || string(r.msg) != want {
				t.Fatalf("next read: %d bytes, %v; want the %d-byte message intact", len(r.msg), r.err, len(want))
			}
			if err := testkit.Receive(t, wrote); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func drainChan[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// A read with a context that has already ended returns its error without
// reading; a read with one that has no end is not interrupted.
func TestDirectReadContextAlreadyEnded(t *testing.T) {
	f, w := newWatchedPipe(t)
	c := newLineConn(f, io.Discard, 0, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.WriteString(`{"a":1}` + "\n")
	if _, err := c.read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("read with an ended context: %v", err)
	}
	if msg, err := c.read(context.Background()); err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("read %q, %v", msg, err)
	}
}

// Close ends a blocked read with the closed error, not a deadline error, with or
// without draining, and later reads return it at once.
func TestDirectCloseUnblocksRead(t *testing.T) {
	for _, drain := range []bool{false, true} {
		f, _ := newWatchedPipe(t)
		c := newLineConn(f, io.Discard, 0, drain)
		ctx, cancel := context.WithCancel(testkit.Context(t))
		defer cancel()
		result := readResultOf(c, ctx)
		testkit.Receive(t, f.entered) // blocked in the pipe's Read
		c.close()
		if r := testkit.Receive(t, result); r.err != errClosedLocally {
			t.Fatalf("drain %v: read blocked at close returned %q, %v; want errClosedLocally", drain, r.msg, r.err)
		}
		if _, err := c.read(ctx); err != errClosedLocally {
			t.Fatalf("drain %v: read after close returned %v", drain, err)
		}
	}
}

// After close, a connection that drains keeps consuming its input, so the peer
// never blocks writing: 1 MiB, sixteen times what the pipe holds, goes through
// with nobody reading.
func TestDirectDrainAfterClose(t *testing.T) {
	f, w := newWatchedPipe(t)
	c := newLineConn(f, io.Discard, 0, true)
	result := readResultOf(c, testkit.Context(t))
	testkit.Receive(t, f.entered)
	c.close()
	if r := testkit.Receive(t, result); r.err != errClosedLocally {
		t.Fatalf("read blocked at close: %v", r.err)
	}
	line := append(bytes.Repeat([]byte("x"), 1023), '\n')
	wrote := make(chan error, 1)
	go func() {
		for range 1024 {
			if _, err := w.Write(line); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- w.Close()
	}()
	if err := testkit.Receive(t, wrote); err != nil {
		t.Fatalf("writing after close: %v", err)
	}
}

// A past deadline nobody here set — another connection on the same file (the
// process's shared standard input) closing — does not end reads.
func TestDirectReadSurvivesAStrayDeadline(t *testing.T) {
	f, w := newWatchedPipe(t)
	old := newLineConn(f, io.Discard, 0, false)
	c := newLineConn(f, io.Discard, 0, false)
	old.close()
	w.WriteString(`{"a":1}` + "\n")
	if msg, err := c.read(testkit.Context(t)); err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("read %q, %v", msg, err)
	}
}

// Two readers at once take turns: each gets one message whole, and one waiting
// for the other gives up when its context ends.
func TestDirectReadersTakeTurns(t *testing.T) {
	f, w := newWatchedPipe(t)
	c := newLineConn(f, io.Discard, 0, false)
	first := readResultOf(c, testkit.Context(t))
	testkit.Receive(t, f.entered) // the first holds the input
	ctx, cancel := context.WithCancel(testkit.Context(t))
	waiting := readResultOf(c, ctx)
	cancel()
	if r := testkit.Receive(t, waiting); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("waiting reader: %q, %v", r.msg, r.err)
	}
	second := readResultOf(c, testkit.Context(t))
	w.WriteString(`{"a":1}` + "\n" + `{"b":2}` + "\n")
	got := []string{string(testkit.Receive(t, first).msg), string(testkit.Receive(t, second).msg)}
	if got[0]+got[1] != `{"a":1}{"b":2}` && got[0]+got[1] != `{"b":2}{"a":1}` {
		t.Fatalf("read %q", got)
	}
}

// In direct mode too, a line over the bound is dropped and reading goes on, and
// the end of input is final.
func TestDirectReadTooLargeAndEOF(t *testing.T) {
	f, w := newWatchedPipe(t)
	c := newLineConn(f, io.Discard, 12, false)
	w.WriteString(`{"a":1}` + "\n" + `{"long":"........"}` + "\n" + `{"z":true}`)
	w.Close()
	ctx := testkit.Context(t)
	if msg, err := c.read(ctx); err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("read %q, %v", msg, err)
	}
	if _, err := c.read(ctx); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Fatalf("long line: %v, want ErrMessageTooLarge", err)
	}
	if msg, err := c.read(ctx); err != nil || string(msg) != `{"z":true}` {
		t.Fatalf("after the dropped line: %q, %v", msg, err)
	}
	for range 2 {
		if _, err := c.read(ctx); err != io.EOF {
			t.Fatalf("at the end: %v, want io.EOF", err)
		}
	}
}

// A reader that starts work for each message (a server's handler, as rpcconn
// does) lets it run before taking the next one, even when more are buffered:
// on one core, the work of most messages is done before the next is read (not
// all: the scheduler now and then runs the reader first, for fairness). Read
// without yielding, all buffered messages went first and their answers came in
// a burst, which cut a pipelined server's throughput by a quarter.
func TestDirectReadLetsStartedWorkRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := testkit.Context(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	c := newLineConn(r, io.Discard, 0, false)
	if c.direct == nil {
		t.Fatal("a pipe is not read directly")
	}
	const n = 20
	if _, err := w.WriteString(strings.Repeat("{}\n", n)); err != nil { // all buffered before the first read
		t.Fatal(err)
	}
	var handled atomic.Int32
	var wg sync.WaitGroup
	before := 0 // messages whose work was done when the next was read
	for i := range n {
		if _, err := c.read(ctx); err != nil {
			t.Fatal(err)
		}
		if i > 0 && handled.Load() == int32(i) {
			before++
		}
		wg.Go(func() { handled.Add(1) })
	}
	wg.Wait()
	if before < n/2 {
		t.Errorf("the work of %d of %d messages was done before the next was read, want most", before, n-1)
	}
}
