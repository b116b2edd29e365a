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
	// maxRetainedScratch caps the memory a reader keeps between lines: after a line
	// longer than this, its scratch buffer is dropped instead of reused.
	maxRetainedScratch = 1 << 20
)

// lineReader splits a byte stream into newline-delimited messages.
//
// It strips the '\n' and one '\r' before it, skips lines holding only spaces, tabs
// and carriage returns, and drops lines longer than max with an error wrapping
// jsonrpc.ErrMessageTooLarge, after which it continues with the next line. A final
// line without a '\n' is returned too. Every message it returns is a fresh slice the
// caller owns.
type lineReader struct {
	br      *bufio.Reader
	max     int
	scratch []byte // reused to assemble lines longer than the bufio buffer
	err     error  // sticky error from the underlying reader
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
			return nil, r.tooLarge(len(content))
		}
		return clone(content), nil
	}
	return nil, r.err
}

// readLong assembles a line that does not fit in the bufio buffer; first is its
// beginning. It returns (nil, nil) for a blank line.
func (r *lineReader) readLong(first []byte) ([]byte, error) {
	// limit is the most a line can hold and still be accepted: max content bytes
	// plus a '\r' and a '\n'.
	limit := r.max + 2
	n := len(first) // bytes of the line so far, '\r' and '\n' included
	buf := r.scratch[:0]
	if n <= limit {
		buf = append(buf, first...)
	}
	last, beforeLast := lastTwo(first, 0, 0)
	blank := isBlank(first) // tracked apart from buf, which stops growing past limit
	for {
		chunk, err := r.br.ReadSlice('\n')
		n += len(chunk)
		if n <= limit {
			buf = append(buf, chunk...)
		}
		last, beforeLast = lastTwo(chunk, last, beforeLast)
		blank = blank && isBlank(trimEOL(chunk))
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			r.err = err // unterminated last line: still deliver it
			break
		}
	}
	r.keepScratch(buf)

	size := n // content bytes: without the '\n' and one '\r' before it
	if last == '\n' {
		size--
		last = beforeLast
	}
	if last == '\r' {
		size--
	}
	switch {
	case blank:
		return nil, nil
	case size > r.max:
		return nil, r.tooLarge(size)
	}
	return clone(buf[:size]), nil
}

// keepScratch keeps buf for the next long line unless it has grown too big to hold.
func (r *lineReader) keepScratch(buf []byte) {
	if cap(buf) > maxRetainedScratch {
		r.scratch = nil
		return
	}
	r.scratch = buf[:0]
}

func (r *lineReader) tooLarge(size int) error {
	return fmt.Errorf("stdio: dropped a message of %d bytes, over the limit of %d bytes: %w",
		size, r.max, jsonrpc.ErrMessageTooLarge)
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

func clone(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}
