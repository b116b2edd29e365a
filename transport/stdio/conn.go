package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ErrNewlineInMessage is wrapped by Write when a message contains a raw newline, which
// would split it into two lines on the wire. JSON encoders never produce one inside a
// message, so it points at a bug in the caller.
var ErrNewlineInMessage = errors.New("stdio: message contains a newline")

// errEmptyMessage is returned by Write for a zero-length message, which the peer
// would skip as a blank line.
var errEmptyMessage = errors.New("stdio: empty message")

// errWriting is wrapped by the error of a write the underlying writer failed (a
// broken pipe, say), as opposed to one refused before writing.
var errWriting = errors.New("stdio: writing")

// errClosedLocally is what lineConn.read returns after close; the exported Read
// methods turn it into io.EOF.
var errClosedLocally = errors.New("stdio: connection closed")

// maxRetainedWriteBuffer caps the write buffer kept between Writes.
const maxRetainedWriteBuffer = 1 << 20

// readResult is one message, or one non-fatal error, handed from the read loop to Read.
type readResult struct {
	msg []byte
	err error
}

// lineConn carries newline-delimited messages over a reader and a writer. It is the
// common part of the server and the subprocess connections.
//
// When the reader can be interrupted — it takes read deadlines, as a pipe in the
// runtime's poller does — reads happen on the goroutine that calls read (see
// direct.go): a past deadline ends a blocked read when read's context ends or on
// close. Otherwise reading happens on a goroutine the connection owns, started by
// the first read, so that read can honour its context and close can unblock it
// even when the underlying reader cannot be interrupted. That goroutine reads at
// most one message ahead and stops when the input ends or fails, or (unless
// drainAfterClose is set) when it has a message to deliver after close.
type lineConn struct {
	lines           *lineReader
	out             io.Writer
	drainAfterClose bool // keep consuming input after close, so the peer never blocks writing

	direct *directReader // nil when the input cannot be interrupted

	readStart sync.Once
	results   chan readResult // unbuffered: the read loop hands over one result at a time
	readDone  chan struct{}   // closed when the read loop ends; readErr is set before
	readErr   error           // why the input ended: io.EOF or a wrapped read error

	writeSlot chan struct{} // capacity 1: holding the token means owning out
	writeErr  error         // guarded by writeSlot; sticky once a write failed

	batches batches
	yield   func() // runtime.Gosched: how a batch's writer gives way (tests replace it)

	closed    chan struct{}
	closeOnce sync.Once
}

func newLineConn(in io.Reader, out io.Writer, maxMessageSize int, drainAfterClose bool) *lineConn {
	c := &lineConn{
		lines:           newLineReader(in, maxMessageSize, readBufferSize),
		out:             out,
		drainAfterClose: drainAfterClose,
		writeSlot:       make(chan struct{}, 1),
		yield:           runtime.Gosched,
		closed:          make(chan struct{}),
	}
	if d, ok := in.(deadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		c.direct = &directReader{in: d, slot: make(chan struct{}, 1)}
	} else {
		c.results = make(chan readResult)
		c.readDone = make(chan struct{})
	}
	c.batches.cond.L = &c.batches.mu
	return c
}

func (c *lineConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// read returns the next message, a non-fatal error wrapping
// jsonrpc.ErrMessageTooLarge, the final input error (io.EOF at a clean end),
// errClosedLocally after close, or ctx.Err().
func (c *lineConn) read(ctx context.Context) ([]byte, error) {
	if c.isClosed() {
		return nil, errClosedLocally
	}
	if c.direct != nil {
		return c.readDirect(ctx)
	}
	c.readStart.Do(func() { go c.readLoop() })
	select {
	case r := <-c.results:
		return r.msg, r.err
	case <-c.readDone:
		if c.isClosed() {
			// Closing may have made the input fail; that is not the peer's doing.
			return nil, errClosedLocally
		}
		return nil, c.readErr
	case <-c.closed:
		return nil, errClosedLocally
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *lineConn) readLoop() {
	for {
		msg, err := c.lines.next()
		if err != nil && !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
			c.readErr = finalReadError(err)
			close(c.readDone)
			return
		}
		select {
		case c.results <- readResult{msg, err}:
		case <-c.closed:
			if !c.drainAfterClose {
				return
			}
		}
	}
}

func (c *lineConn) errWriteClosed() error {
	return fmt.Errorf("stdio: write on a closed connection: %w", io.ErrClosedPipe)
}

// finalReadError is what read returns once the input has ended with err.
func finalReadError(err error) error {
	if errors.Is(err, io.EOF) {
		return err
	}
	return fmt.Errorf("stdio: reading: %w", err)
}

// close marks the connection closed, unblocking read and waiting writers. It does not
// close the underlying reader and writer.
func (c *lineConn) close() {
	c.closeOnce.Do(c.markClosed)
}

// markClosed is close without its once: it closes c.closed and, in direct mode,
// interrupts a read in progress and starts draining the input if asked to.
func (c *lineConn) markClosed() {
	close(c.closed)
	if c.direct != nil {
		c.interruptForClose()
	}
}
