package stdio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// DefaultMaxMessageSize is the largest message read when no bound is configured.
const DefaultMaxMessageSize = 16 << 20

const (
	// readBufferSize is the size of the bufio.Reader: lines shorter than this are
	// copied straight out of it, with no other buffer involved.
	readBufferSize = 64 << 10
	// maxRetainedSpill caps the memory a reader keeps between lines to assemble long
	// ones: after a longer line, the blocks beyond it are let go.
	maxRetainedSpill = 1 << 20
)

// lineReader splits a byte stream into newline-delimited messages.
//
// It strips the '\n' and one '\r' before it, skips lines holding only spaces, tabs
// and carriage returns, and drops lines longer than max with an error wrapping
// jsonrpc.ErrMessageTooLarge, after which it continues with the next line. A final
// line without a '\n' is returned too. Every message it returns is a fresh slice of
// exactly its length, which the caller owns.
//
// A line that fits in the bufio buffer is copied straight out of it. A longer one is
// gathered in fixed-size blocks (the spill), then copied once into a slice of the
// right size: two copies in all, no regrowth, and at most maxRetainedSpill kept
// between lines.
//
// A read that fails with os.ErrDeadlineExceeded (the connection interrupting a
// blocked read) is not final: next returns that error, keeps what it had read of
// the line in the spill, and the next call goes on with the same line.
type lineReader struct {
	br    *bufio.Reader
	max   int
	spill [][]byte // blocks of br.Size() bytes each
	err   error    // sticky error from the underlying reader
	part  partLine // the line being gathered in the spill, across calls when a read timed out
}

// partLine is what readLong knows of the line it gathers: its length so far and
// its last two bytes (for the line ending), and whether it is blank so far.
type partLine struct {
	n                int
	last, beforeLast byte
	blank            bool
}

func newLineReader(r io.Reader, max, bufSize int) *lineReader {
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	return &lineReader{br: bufio.NewReaderSize(r, bufSize), max: max}
}

// next returns the next message. An error wrapping jsonrpc.ErrMessageTooLarge means
// one line was dropped and next may be called again; so does os.ErrDeadlineExceeded
// (see lineReader). Any other error (io.EOF at the end of input) is final and
// returned again by later calls.
func (r *lineReader) next() ([]byte, error) {
	for r.err == nil {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil && r.part.n == 0:
			// A whole line, '\n' included, inside the bufio buffer: the common case.
		case r.part.n > 0, errors.Is(err, bufio.ErrBufferFull),
			len(chunk) > 0 && errors.Is(err, os.ErrDeadlineExceeded):
			// A long line, the end of an interrupted one, or the start of one
			// interrupted now: gathered in the spill.
			msg, err := r.readLong(chunk, err)
			if msg == nil && err == nil {
				continue // a blank line
			}
			return msg, err
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, err // interrupted between lines: nothing to keep
		default:
			// End of input or a read error; chunk is the unterminated last line.
			r.err = err
			if len(chunk) == 0 {
				return nil, err
			}
		}
		content := trimEOL(chunk)
		if isBlank(content) {
			continue
		}
		if len(content) > r.max {
			return nil, r.tooLarge(len(content), content)
		}
		return clone(content), nil
	}
	return nil, r.err
}

// readLong gathers a line in the spill, from chunk and err (what ReadSlice
// returned) on, going on with r.part when a timeout interrupted it before. It
// returns (nil, nil) for a blank line, and os.ErrDeadlineExceeded, keeping r.part,
// when a read times out before the end of the line.
func (r *lineReader) readLong(chunk []byte, err error) ([]byte, error) {
	// limit is the most a line can hold and still be accepted: max content bytes
	// plus a '\r' and a '\n'. Past it, bytes are counted but not kept, except
	// those of the first block: a dropped line is reported with its own first
	// bytes (for its id), never a previous line's.
	limit := r.max + 2
	block := r.br.Size()
	p := &r.part
	if p.n == 0 {
		p.blank = true
	}
	for {
		switch {
		case p.n+len(chunk) <= limit:
			r.store(p.n, chunk)
		case p.n < block:
			r.store(p.n, chunk[:min(len(chunk), block-p.n)])
		}
		p.n += len(chunk)
		p.last, p.beforeLast = lastTwo(chunk, p.last, p.beforeLast)
		p.blank = p.blank && isBlank(trimEOL(chunk))
		if err == nil {
			break
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, err // the line goes on at the next call
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			r.err = err // unterminated last line: still deliver it
			break
		}
		chunk, err = r.br.ReadSlice('\n')
	}
	n, last, beforeLast, blank := p.n, p.last, p.beforeLast, p.blank
	*p = partLine{}

	size := n // content bytes: without the '\n' and one '\r' before it
	if last == '\n' {
		size--
		last = beforeLast
	}
	if last == '\r' {
		size--
	}
	defer r.trimSpill()
	switch {
	case blank:
		return nil, nil
	case size > r.max:
		return nil, r.tooLarge(size, r.spill[0][:min(size, block)])
	}
	msg := make([]byte, size)
	for off := 0; off < size; off += block {
		copy(msg[off:], r.spill[off/block])
	}
	return msg, nil
}

// store copies p into the spill at offset off, adding blocks as needed.
func (r *lineReader) store(off int, p []byte) {
	block := r.br.Size()
	for len(p) > 0 {
		i := off / block
		if i == len(r.spill) {
			r.spill = append(r.spill, make([]byte, block))
		}
		c := copy(r.spill[i][off%block:], p)
		p = p[c:]
		off += c
	}
}

// trimSpill lets go of the blocks beyond maxRetainedSpill (and one more).
func (r *lineReader) trimSpill() {
	keep := maxRetainedSpill/r.br.Size() + 1 // +1: room for the line ending of a 1 MiB line
	if len(r.spill) > keep {
		clear(r.spill[keep:])
		r.spill = r.spill[:keep:keep]
	}
}

// tooLarge reports a dropped line, keeping its first bytes so the connection can
// answer the request with its own id.
func (r *lineReader) tooLarge(size int, start []byte) error {
	return fmt.Errorf("stdio: dropped a line: %w", jsonrpc.NewTooLargeError(size, r.max, start))
}

// lastTwo returns the last two bytes of the stream after chunk, given the last two
// bytes before it.
func lastTwo(chunk []byte, last, beforeLast byte) (byte, byte) {
	switch len(chunk) {
	case 0:
		return last, beforeLast
	case 1:
		return chunk[0], last
	default:
		return chunk[len(chunk)-1], chunk[len(chunk)-2]
	}
}

// trimEOL removes a trailing '\n' and one '\r' before it.
func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// isBlank reports whether line holds nothing but spaces, tabs and carriage returns.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// clone returns a copy of b that the caller owns.
func clone(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}
