package tap

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// How a response body is delimited.
const (
	bodyNone    = iota // no body (HEAD, 1xx, 204, 304)
	bodyLength         // Content-Length
	bodyChunked        // Transfer-Encoding: chunked
	bodyClose          // until the connection closes
)

// bodyReader yields a response body piece by piece, as the bytes arrive, without
// copying: each piece is a slice of the connection's read buffer, valid until the
// next call.
type bodyReader struct {
	br        *bufio.Reader
	mode      int
	remaining int64 // bodyLength: bytes left; bodyChunked: bytes left in this chunk
	inChunk   bool  // bodyChunked: a chunk's data has begun (its CRLF is owed)
	discard   int   // bytes of the previous piece, to consume before reading on
	done      bool
	scratch   []byte
}

func newBodyReader(br *bufio.Reader, mode int, length int64) *bodyReader {
	r := &bodyReader{br: br, mode: mode, done: mode == bodyNone || (mode == bodyLength && length <= 0)}
	if mode == bodyLength {
		r.remaining = length
	}
	return r
}

// next returns the next piece of the body, or io.EOF after the last. A connection
// that ends before the body does gives io.ErrUnexpectedEOF.
func (r *bodyReader) next() ([]byte, error) {
	if r.discard > 0 {
		_, _ = r.br.Discard(r.discard) // the bytes were buffered: Discard cannot fail
		r.discard = 0
	}
	if r.done {
		return nil, io.EOF
	}
	switch r.mode {
	case bodyLength:
		p, err := r.peek(r.remaining)
		if err != nil {
			return nil, noEOF(err)
		}
		r.remaining -= int64(len(p))
		r.done = r.remaining == 0
		return p, nil
	case bodyClose:
		p, err := r.peek(1 << 62)
		if errors.Is(err, io.EOF) {
			r.done = true
			return nil, io.EOF
		}
		return p, err
	}
	// Chunked.
	if r.remaining == 0 {
		if r.inChunk {
			if err := readCRLF(r.br); err != nil {
				return nil, err
			}
			r.inChunk = false
		}
		n, err := readChunkSize(r.br, &r.scratch)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			r.done = true
			if err := skipTrailers(r.br, &r.scratch); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		r.remaining, r.inChunk = n, true
	}
	p, err := r.peek(r.remaining)
	if err != nil {
		return nil, noEOF(err)
	}
	r.remaining -= int64(len(p))
	return p, nil
}

// peek returns up to limit buffered bytes, reading once if none are buffered, and
// arranges for them to be consumed by the next call of next.
func (r *bodyReader) peek(limit int64) ([]byte, error) {
	if r.br.Buffered() == 0 {
		if _, err := r.br.Peek(1); err != nil {
			return nil, err
		}
	}
	n := int(min(int64(r.br.Buffered()), limit))
	p, _ := r.br.Peek(n)
	r.discard = n
	return p, nil
}

// wouldBlock reports whether the next call of next would wait for the upstream:
// the moment to flush what was relayed so far. Call it after release.
func (r *bodyReader) wouldBlock() bool {
	if r.done {
		return false
	}
	n := r.br.Buffered()
	if r.mode != bodyChunked || r.remaining > 0 {
		return n == 0
	}
	b, _ := r.br.Peek(n)
	if r.inChunk { // the CRLF after the chunk's data
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return true
		}
		b = b[i+1:]
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return true // the next chunk's size line is not all here
	}
	size := bytes.TrimSpace(b[:i])
	if j := bytes.IndexByte(size, ';'); j >= 0 {
		size = bytes.TrimSpace(size[:j])
	}
	if len(size) > 0 && len(bytes.Trim(size, "0")) == 0 {
		return bytes.IndexByte(b[i+1:], '\n') < 0 // the last chunk: its trailer section
	}
	return len(b) == i+1 // no data of the next chunk yet
}

// release consumes the last piece returned.
func (r *bodyReader) release() {
	if r.discard > 0 {
		_, _ = r.br.Discard(r.discard)
		r.discard = 0
	}
}

// discardBody reads the rest of a body and drops it: nothing is buffered beyond
// the connection's reader, whatever sizes the body announces.
func discardBody(r *bodyReader) error {
	for {
		if _, err := r.next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		r.release()
	}
}
