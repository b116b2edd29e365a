package h1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// How a body ends.
const (
	byLength = iota // Content-Length bytes
	byChunks        // chunked, up to the last chunk and its trailers
	byClose         // when the server closes the connection
)

// drainMax is the most of an unread body Close reads to keep the connection;
// drainWait bounds how long that may take.
const (
	drainMax  = 64 << 10
	drainWait = 50 * time.Millisecond
)

// errClosedBody is what Read returns after Close, as net/http says it.
var errClosedBody = errors.New("http: read on closed response body")

// body is a response body read from the connection's reader. At its end (or at
// Close, after draining a short rest) it gives the connection back to the pool,
// or closes it. Close may be called while a Read blocks in another goroutine:
// it then closes the connection, which ends the Read.
type body struct {
	br  *bufio.Reader
	c   *conn           // nil in the fuzz test
	r   *response       // the response the body is part of (see Recycle); nil in the fuzz test
	ctx context.Context // the request's, for its error when it ends the body

	mode int
	n    int64 // bytes left: of the body (byLength) or of the current chunk
	crlf bool  // a chunk's CRLF is due before the next size line
	keep bool  // the connection may be reused after the body

	mu       sync.Mutex
	reading  bool
	closed   bool
	done     bool  // the connection was released
	detached bool  // DetachContext ran
	err      error // sticky: io.EOF at the end, or the failure
}

// Read reads from the body.
func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, errClosedBody
	}
	if b.err != nil {
		b.mu.Unlock()
		return 0, b.err
	}
	b.reading = true
	b.mu.Unlock()

	n, err := b.read(p)

	b.mu.Lock()
	b.reading = false
	if b.closed { // Close ran meanwhile and closed the connection
		b.releaseLocked(false)
		b.mu.Unlock()
		if err == nil || err == io.EOF {
			err = errClosedBody
		}
		return n, err
	}
	if err != nil {
		if err != io.EOF {
			err = b.cause(err)
		}
		b.err = err
		b.releaseLocked(err == io.EOF)
	}
	b.mu.Unlock()
	return n, err
}

// cause replaces the error of a read that the request's context ended.
func (b *body) cause(err error) error {
	if b.c != nil && b.c.aborted.Load() {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("h1: reading the response body: %w", errInterrupted)
	}
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// read is Read without the locking.
func (b *body) read(p []byte) (int, error) {
	switch b.mode {
	case byLength:
		if b.n == 0 {
			return 0, io.EOF
		}
		if int64(len(p)) > b.n {
			p = p[:b.n]
		}
		n, err := b.br.Read(p)
		b.n -= int64(n)
		if b.n == 0 && err == nil {
			err = io.EOF // let the caller and the pool know at once
		} else if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, err
	case byChunks:
		return b.readChunked(p)
	default:
		return b.br.Read(p)
	}
}

// readChunked reads chunked framing (RFC 9112 section 7.1).
func (b *body) readChunked(p []byte) (int, error) {
	if b.n == 0 {
		if b.crlf {
			if err := readCRLF(b.br); err != nil {
				return 0, err
			}
			b.crlf = false
		}
		size, err := readChunkSize(b.br)
		if err != nil {
			return 0, err
		}
		if size == 0 {
			if err := skipTrailers(b.br); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		b.n = size
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.br.Read(p)
	b.n -= int64(n)
	if b.n == 0 {
		b.crlf = true
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// maxChunkSize bounds one chunk's announced size (the reads are bounded by the
// caller's buffer anyway; this keeps the arithmetic far from overflow).
const maxChunkSize = 1 << 40

// readChunkSize reads "1a2b;ext=1\r\n".
func readChunkSize(br *bufio.Reader) (int64, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("%w: chunk size line over %d bytes", ErrMalformed, br.Size())
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	for i, c := range line {
		if c == ';' {
			line = line[:i]
			break
		}
	}
	line = trimOWS(line)
	if len(line) == 0 {
		return 0, fmt.Errorf("%w: empty chunk size", ErrMalformed)
	}
	var n int64
	for _, c := range line {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, fmt.Errorf("%w: chunk size %q", ErrMalformed, clip(line))
		}
		n = n<<4 | int64(d)
		if n > maxChunkSize {
			return 0, fmt.Errorf("%w: chunk of over %d bytes", ErrMalformed, int64(maxChunkSize))
		}
	}
	return n, nil
}

// readCRLF reads the CRLF that ends a chunk's data.
func readCRLF(br *bufio.Reader) error {
	var two [2]byte
	if _, err := io.ReadFull(br, two[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if two != [2]byte{'\r', '\n'} {
		return fmt.Errorf("%w: no CRLF after a chunk", ErrMalformed)
	}
	return nil
}

// maxTrailer bounds the trailer section after the last chunk, which is read and
// dropped.
const maxTrailer = 16 << 10

func skipTrailers(br *bufio.Reader) error {
	total := 0
	for {
		line, err := br.ReadSlice('\n')
		total += len(line)
		if total > maxTrailer {
			return fmt.Errorf("%w: trailers over %d bytes", ErrHeaderTooLarge, maxTrailer)
		}
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if len(line) <= 2 && (len(line) == 1 || line[0] == '\r') {
			return nil
		}
	}
}

// Close closes the body. The connection is reused when the body was read to its
// end, or when what is left is short and arrives within drainWait.
func (b *body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.done {
		return nil
	}
	if b.reading { // a Read blocks in another goroutine: end it
		if b.c != nil {
			b.c.close()
		}
		return nil
	}
	b.releaseLocked(b.err == nil && b.drain())
	return nil
}

// DetachContext stops the request context from ending the body, for a body
// that outlives it (a stream another goroutine reads on): Close, and the
// request's Interrupter, still end it. It reports false when the context had
// ended already; the connection is then aborted.
func (b *body) DetachContext() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil || b.detached || b.done {
		return true
	}
	b.detached = true
	if !b.c.deactivate() || b.ctx.Err() != nil {
		b.c.abort()
		return false
	}
	return true
}

// drain reads the rest of a short body so that the connection can be reused.
func (b *body) drain() bool {
	if !b.keep || b.c == nil || b.mode == byClose || (b.mode == byLength && b.n > drainMax) {
		return false
	}
	if b.c.aborted.Load() {
		return false // the context ended: the connection has a past deadline
	}
	_ = b.c.nc.SetReadDeadline(time.Now().Add(drainWait))
	var buf [512]byte
	total := 0
	for total <= drainMax {
		n, err := b.read(buf[:])
		total += n
		if err == io.EOF {
			_ = b.c.nc.SetReadDeadline(time.Time{})
			return true
		}
		if err != nil {
			return false
		}
	}
	return false
}

// releaseLocked gives the connection back (reuse) or closes it, once.
func (b *body) releaseLocked(reuse bool) {
	if b.done {
		return
	}
	b.done = true
	if b.c == nil {
		return
	}
	b.c.release(reuse && b.keep)
}
