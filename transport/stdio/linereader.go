package stdio

import (
	"bufio"
	"errors"
	"fmt"
	"io"

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
type lineReader struct {
	br    *bufio.Reader
	max   int
	spill [][]byte // blocks of br.Size() bytes each
	err   error    // sticky error from the underlying reader
}

func newLineReader(r io.Reader, max, bufSize int) *lineReader {
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	return &lineReader{br: bufio.NewReaderSize(r, bufSize), max: max}
}

// next returns the next message. An error wrapping jsonrpc.ErrMessageTooLarge means
// one line was dropped and next may be called again; any other error (io.EOF at the
// end of input) is final and returned again by later calls.
func (r *lineReader) next() ([]byte, error) {
	for r.err == nil {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			// A whole line, '\n' included, inside the bufio buffer: the common case.
		case errors.Is(err, bufio.ErrBufferFull):
			msg, err := r.readLong(chunk)
			if msg == nil && err == nil {
				continue // a long blank line
			}
			return msg, err
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

// readLong assembles a line that does not fit in the bufio buffer; first is its
// beginning. It returns (nil, nil) for a blank line.
func (r *lineReader) readLong(first []byte) ([]byte, error) {
	// limit is the most a line can hold and still be accepted: max content bytes
	// plus a '\r' and a '\n'. Past it, bytes are counted but not kept.
	limit := r.max + 2
	n := 0 // bytes of the line so far, '\r' and '\n' included
	var last, beforeLast byte
	blank := true
	chunk, err := first, error(bufio.ErrBufferFull)
	for {
		// The first chunk is always kept, even past the limit: a dropped line is
		// reported with its own first bytes (for its id), never a previous line's.
		if n == 0 || n+len(chunk) <= limit {
			r.store(n, chunk)
		}
		n += len(chunk)
		last, beforeLast = lastTwo(chunk, last, beforeLast)
		blank = blank && isBlank(trimEOL(chunk))
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			r.err = err // unterminated last line: still deliver it
			break
		}
		chunk, err = r.br.ReadSlice('\n')
	}

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
		return nil, r.tooLarge(size, r.spill[0][:min(size, len(r.spill[0]))])
	}
	msg := make([]byte, size)
	block := r.br.Size()
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
