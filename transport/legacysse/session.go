package legacysse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/transport"
)

// Queue lengths of a session. A full outgoing queue makes Write wait (for the stream
// to catch up, or for its context); a full incoming queue makes the POST wait.
const (
	outgoingQueue = 64
	incomingQueue = 16
)

var (
	_ transport.PeerConn   = (*session)(nil)
	_ transport.LegacyConn = (*session)(nil)
)

// session is the server's transport.Conn for one client: POSTed messages come in
// through in, messages to the client go out through out to the goroutine serving the
// GET, which alone writes to the response.
type session struct {
	id        string
	remote    string
	principal string       // digest of the principal that opened the stream (a relayed POST must match)
	in        chan []byte  // POST bodies, owned by the reader once received
	out       chan *[]byte // pooled copies of written messages
	done      chan struct{}
	once      sync.Once
}

func newSession(id, remote string) *session {
	return &session{
		id:     id,
		remote: remote,
		in:     make(chan []byte, incomingQueue),
		out:    make(chan *[]byte, outgoingQueue),
		done:   make(chan struct{}),
	}
}

// LegacyOnly marks the session as one of the legacy era (transport.LegacyConn):
// HTTP+SSE is a 2024-11-05 transport, and a client that probes it with
// server/discover is told the method is unknown, so that it initializes.
func (s *session) LegacyOnly() {}

// Read returns the next message the client POSTed. It returns io.EOF once the session
// has ended (the client closed the stream, or Close was called).
func (s *session) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-s.done:
		return nil, io.EOF
	default:
	}
	select {
	case msg := <-s.in:
		return msg, nil
	case <-s.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write queues a copy of msg to be sent on the stream as a "message" event. It waits
// while the queue is full, and fails once the session has ended.
func (s *session) Write(ctx context.Context, msg []byte) error {
	select {
	case <-s.done:
		return fmt.Errorf("legacysse: write on ended session %s: %w", s.id, io.ErrClosedPipe)
	default:
	}
	bp := getBuffer()
	*bp = append((*bp)[:0], msg...)
	select {
	case s.out <- bp:
		return nil
	case <-s.done:
		putBuffer(bp)
		return fmt.Errorf("legacysse: write on ended session %s: %w", s.id, io.ErrClosedPipe)
	case <-ctx.Done():
		putBuffer(bp)
		return ctx.Err()
	}
}

// Close ends the session: Read returns io.EOF, Write fails, and the stream sends what
// is already queued and then ends. It returns nil and may be called more than once.
func (s *session) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// RemoteAddr returns the network address of the client that opened the stream.
func (s *session) RemoteAddr() string { return s.remote }

// deliver hands a POSTed message to Read. It fails with io.ErrClosedPipe if the
// session ends first, or with ctx's error if the POST is abandoned.
func (s *session) deliver(ctx context.Context, msg []byte) error {
	select {
	case <-s.done:
		return io.ErrClosedPipe
	default:
	}
	select {
	case s.in <- msg:
		return nil
	case <-s.done:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxPooledBuffer is the largest buffer kept for reuse; bigger ones (an unusually
// large message) go to the garbage collector.
const maxPooledBuffer = 64 << 10

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuffer() *[]byte { return bufferPool.Get().(*[]byte) }

func putBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledBuffer {
		bufferPool.Put(bp)
	}
}

// stream writes a session's events to the GET response.
type stream struct {
	rc        *http.ResponseController
	enc       *sse.Encoder
	timeout   time.Duration
	deadlines bool // the connection supports write deadlines
}

func newStream(w http.ResponseWriter, timeout time.Duration) *stream {
	return &stream{
		rc:        http.NewResponseController(w),
		enc:       sse.NewEncoder(w),
		timeout:   timeout,
		deadlines: timeout > 0,
	}
}

// run sends the endpoint event, then every message of s as it is written and a
// keep-alive comment whenever the stream has been idle for keepAlive. It returns when
// the request ends, the session is closed (after sending what was queued), or a write
// fails; the caller then closes the session.
func (st *stream) run(ctx context.Context, s *session, endpoint string, keepAlive time.Duration) error {
	st.begin()
	err := st.enc.Encode(sse.Event{Type: "endpoint", Data: []byte(endpoint)})
	if err = st.end(err); err != nil {
		return err
	}
	var tick <-chan time.Time
	if keepAlive > 0 {
		t := time.NewTicker(keepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case bp := <-s.out:
			if err := st.sendQueued(s, bp); err != nil {
				return err
			}
		case <-tick:
			st.begin()
			if err := st.end(st.enc.Comment("ping")); err != nil {
				return err
			}
		case <-s.done:
			// Closed by the server or the handler: deliver what is queued, then end.
			select {
			case bp := <-s.out:
				return st.sendQueued(s, bp)
			default:
				return nil
			}
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// sendQueued writes bp and every other message already queued, then flushes once.
func (st *stream) sendQueued(s *session, bp *[]byte) error {
	st.begin()
	var err error
	for {
		err = st.enc.Encode(sse.Event{Type: "message", Data: *bp})
		putBuffer(bp)
		if err != nil {
			break
		}
		select {
		case bp = <-s.out:
			continue
		default:
		}
		break
	}
	return st.end(err)
}

// begin arms the write deadline for one burst of writes.
func (st *stream) begin() {
	if !st.deadlines {
		return
	}
	if err := st.rc.SetWriteDeadline(time.Now().Add(st.timeout)); errors.Is(err, http.ErrNotSupported) {
		st.deadlines = false
	}
}

// end flushes a burst of writes whose result was err and disarms the deadline, so
// that it cannot expire while the stream is idle.
func (st *stream) end(err error) error {
	if err == nil {
		err = st.rc.Flush()
	}
	if st.deadlines {
		_ = st.rc.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		return fmt.Errorf("legacysse: writing to stream: %w", err)
	}
	return nil
}
