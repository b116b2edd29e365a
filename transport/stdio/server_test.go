package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
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

// bigMessage returns a JSON object of exactly n bytes.
func bigMessage(n int) []byte {
	const head, tail = `{"data":"`, `"}`
	b := make([]byte, 0, n)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte("x"), n-len(head)-len(tail))...)
	return append(b, tail...)
}

func TestServerReadsLongLines(t *testing.T) {
	ctx := testkit.Context(t)
	oneMiB := bigMessage(1 << 20)
	twentyMiB := bigMessage(20 << 20)
	var in bytes.Buffer
	in.Write(oneMiB)
	in.WriteString("\n")
	in.Write(twentyMiB)
	in.WriteString("\n")
	in.WriteString(`{"after":true}` + "\n")

	c := NewServerConn(&in, io.Discard, nil)
	defer c.Close()

	if got := mustRead(t, ctx, c); !bytes.Equal(got, oneMiB) {
		t.Fatalf("1 MiB line: read %d bytes, want it intact", len(got))
	}
	_, err := c.Read(ctx)
	if !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Fatalf("20 MiB line: got %v, want ErrMessageTooLarge", err)
	}
	for _, want := range []string{fmt.Sprint(20 << 20), fmt.Sprint(DefaultMaxMessageSize)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if got := mustRead(t, ctx, c); string(got) != `{"after":true}` {
		t.Fatalf("after the dropped line: read %q", got)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

func TestServerMaxMessageSizeOption(t *testing.T) {
	ctx := testkit.Context(t)
	in := strings.NewReader("{\"a\":1}\n{\"long\":\"........\"}\n{\"b\":2}\n")
	c := NewServerConn(in, io.Discard, &Options{MaxMessageSize: 10})
	defer c.Close()
	if got := mustRead(t, ctx, c); string(got) != `{"a":1}` {
		t.Fatalf("read %q", got)
	}
	if _, err := c.Read(ctx); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Fatalf("got %v, want ErrMessageTooLarge", err)
	}
	if got := mustRead(t, ctx, c); string(got) != `{"b":2}` {
		t.Fatalf("read %q", got)
	}
}

// A line longer than the read buffer (64 KiB) under a bound smaller than the buffer is
// dropped with its own first bytes, so the connection can answer it by id; it used to
// panic the process.
func TestServerSmallLimitDropsLineLongerThanBuffer(t *testing.T) {
	head := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"`
	long := head + strings.Repeat("x", 70<<10) + `"}}`
	in := strings.NewReader(long + "\n" + `{"after":true}` + "\n")
	c := NewServerConn(in, io.Discard, &Options{MaxMessageSize: 1 << 10})
	defer c.Close()
	_, err := c.Read(t.Context())
	var tl *jsonrpc.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("got %v, want a TooLargeError", err)
	}
	if tl.Size != len(long) || tl.Limit != 1<<10 || !strings.HasPrefix(long, string(tl.Prefix)) || len(tl.Prefix) != tooLargePrefix {
		t.Fatalf("dropped line reported as %d bytes over %d, prefix %q", tl.Size, tl.Limit, tl.Prefix)
	}
	if got := mustRead(t, t.Context(), c); string(got) != `{"after":true}` {
		t.Fatalf("after the dropped line: read %q", got)
	}
}

func TestServerSkipsBlankLinesAndCR(t *testing.T) {
	ctx := testkit.Context(t)
	in := strings.NewReader("\n\r\n{\"a\":1}\r\n   \n\t\r\n[{\"b\":2}]\r\n\n{\"c\":3}")
	c := NewServerConn(in, io.Discard, nil)
	defer c.Close()
	for _, want := range []string{`{"a":1}`, `[{"b":2}]`, `{"c":3}`} {
		if got := mustRead(t, ctx, c); string(got) != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Fatalf("got %v, want io.EOF", err)
	}
}

// recordingWriter records every Write call and notices overlapping calls.
type recordingWriter struct {
	active  atomic.Int32
	overlap atomic.Bool
	mu      sync.Mutex
	calls   [][]byte
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.active.Add(1) > 1 {
		w.overlap.Store(true)
	}
	defer w.active.Add(-1)
	w.mu.Lock()
	w.calls = append(w.calls, bytes.Clone(p))
	w.mu.Unlock()
	return len(p), nil
}

func TestServerConcurrentWritersProduceIntactLines(t *testing.T) {
	ctx := testkit.Context(t)
	w := &recordingWriter{}
	c := NewServerConn(strings.NewReader(""), w, nil)
	defer c.Close()

	const writers, each = 16, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				// Sizes vary so that a torn write would show.
				msg := fmt.Appendf(nil, `{"w":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("p", (g*each+i)%3000))
				if err := c.Write(ctx, msg); err != nil {
					t.Errorf("Write: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if w.overlap.Load() {
		t.Fatal("Write calls on the underlying writer overlapped")
	}
	// Writes made together may share one call (see write.go), but every call
	// holds whole lines only, and each writer's lines keep their order.
	var lines [][]byte
	for _, call := range w.calls {
		if len(call) == 0 || call[len(call)-1] != '\n' {
			t.Fatalf("write call %q does not end a line", call)
		}
		lines = append(lines, bytes.SplitAfter(call[:len(call)-1], []byte("\n"))...)
	}
	if len(lines) != writers*each {
		t.Fatalf("%d lines written, want %d", len(lines), writers*each)
	}
	next := make([]int, writers)
	for _, line := range lines {
		line = bytes.TrimSuffix(line, []byte("\n"))
		var g, i int
		if _, err := fmt.Sscanf(string(line), `{"w":%d,"i":%d,`, &g, &i); err != nil {
			t.Fatalf("torn message %q: %v", line, err)
		}
		if want := fmt.Sprintf(`"pad":"%s"}`, strings.Repeat("p", (g*each+i)%3000)); !strings.HasSuffix(string(line), want) {
			t.Fatalf("message %d/%d is damaged", g, i)
		}
		if i != next[g] {
			t.Fatalf("writer %d: message %d arrived before %d", g, i, next[g])
		}
		next[g]++
	}
}

func TestServerWriteRejectsNewlineAndEmpty(t *testing.T) {
	ctx := testkit.Context(t)
	var out bytes.Buffer
	c := NewServerConn(strings.NewReader(""), &out, nil)
	defer c.Close()
	if err := c.Write(ctx, []byte("{\"a\":\n1}")); !errors.Is(err, ErrNewlineInMessage) {
		t.Fatalf("message with a newline: %v, want ErrNewlineInMessage", err)
	}
	if err := c.Write(ctx, nil); err == nil {
		t.Fatal("empty message accepted")
	}
	if out.Len() != 0 {
		t.Fatalf("rejected messages reached the output: %q", out.String())
	}
	if err := c.Write(ctx, []byte(`{"ok":1}`)); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"ok\":1}\n" {
		t.Fatalf("output %q", out.String())
	}
}

type failingWriter struct{ calls int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	return len(p) / 2, errors.New("disk on fire")
}

func TestServerWriteErrorIsSticky(t *testing.T) {
	ctx := testkit.Context(t)
	w := &failingWriter{}
	c := NewServerConn(strings.NewReader(""), w, nil)
	defer c.Close()
	for range 2 {
		if err := c.Write(ctx, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Fatalf("Write: %v, want the writer's error", err)
		}
	}
	if w.calls != 1 {
		t.Fatalf("writer called %d times after a partial write, want 1", w.calls)
	}
}

func TestServerCloseUnblocksReadAndClosesStreams(t *testing.T) {
	ctx := testkit.Context(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := NewServerConn(inR, outW, nil)

	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(ctx)
		errc <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != io.EOF {
		t.Fatalf("pending Read after Close: %v, want io.EOF", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Fatalf("Read after Close: %v, want io.EOF", err)
	}
	if err := c.Write(ctx, []byte(`{}`)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write after Close: %v, want io.ErrClosedPipe", err)
	}
	// The peer sees both streams closed.
	if _, err := outR.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("peer reading our output: %v, want io.EOF", err)
	}
	if _, err := inW.Write([]byte("x\n")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("peer writing our input: %v, want io.ErrClosedPipe", err)
	}
}

func TestServerReadHonoursContext(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	c := NewServerConn(inR, io.Discard, nil)
	defer c.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context: %v", err)
	}
	// Nothing is lost: the next Read gets the next message.
	go inW.Write([]byte("{\"a\":1}\n"))
	if got := mustRead(t, testkit.Context(t), c); string(got) != `{"a":1}` {
		t.Fatalf("read %q", got)
	}
}

func TestServerWriteWaitingForSlotHonoursContext(t *testing.T) {
	outR, outW := io.Pipe() // nobody reads: the first Write blocks inside the pipe
	c := NewServerConn(strings.NewReader(""), outW, nil)
	first := make(chan error, 1)
	go func() { first <- c.Write(context.Background(), []byte(`{"first":1}`)) }()

	// Wait until the first Write is inside the pipe, holding the slot: reading one
	// byte of it proves that, and leaves the rest of it blocked.
	one := make([]byte, 1)
	if n, err := outR.Read(one); n != 1 || err != nil || one[0] != '{' {
		t.Fatalf("reading the first write: %q, %v", one[:n], err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Write(ctx, []byte(`{"second":2}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Write: %v, want DeadlineExceeded", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err == nil {
		t.Fatal("the Write blocked in the pipe succeeded after Close closed the pipe")
	}
}

func TestProcessServerConnDoesNotCloseStdio(t *testing.T) {
	c := NewProcessServerConn(nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*os.File{os.Stdin, os.Stdout} {
		if _, err := f.Stat(); err != nil {
			t.Fatalf("%s after Close: %v", f.Name(), err)
		}
	}
}
