package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrFormat is wrapped by the errors of a Reader given something that is not a
// capture of a format it knows.
var ErrFormat = errors.New("not an mcpkit-tap/1 capture")

// Reader reads a capture: its header, then its records one by one. Lines may be of
// any length. A capture whose last line was cut short (the tap crashed, was
// killed, or its disk filled up) is read up to that line: Next returns io.EOF in
// its place and Cut reports it; every complete record before it is read.
type Reader struct {
	r      *bufio.Reader
	header Header
	line   int
	cut    bool

	lastUnended bool // the line next returned last had no line end
}

// NewReader reads the header of the capture in r and returns a Reader positioned
// at its first record. It fails, wrapping ErrFormat, unless the first line is a
// header of this format.
func NewReader(r io.Reader) (*Reader, error) {
	cr := &Reader{r: bufio.NewReaderSize(r, 64<<10)}
	line, err := cr.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: empty", ErrFormat)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(line, &cr.header); err != nil {
		return nil, fmt.Errorf("%w: line 1: %v", ErrFormat, err)
	}
	if cr.header.Format != Format {
		return nil, fmt.Errorf("%w: the header says format %q", ErrFormat, cr.header.Format)
	}
	return cr, nil
}

// Header returns the capture's header.
func (cr *Reader) Header() Header { return cr.header }

// Next returns the next record, or io.EOF after the last. A line that is not a
// record is an error naming its line number; reading may continue after it.
//
// A last line without its line end that is not a record is taken for a line
// cut short: Next returns io.EOF, and Cut reports true.
func (cr *Reader) Next() (*Record, error) {
	line, err := cr.next()
	if err != nil {
		return nil, err
	}
	r := new(Record)
	if err := json.Unmarshal(line, r); err != nil {
		if cr.atEnd() {
			cr.cut = true
			return nil, io.EOF
		}
		return nil, fmt.Errorf("capture line %d: %w", cr.line, err)
	}
	return r, nil
}

// Cut reports whether the capture's last line was cut short (and so not
// returned): it ends in the middle of a record.
func (cr *Reader) Cut() bool { return cr.cut }

// Line returns the number of the last line read (the header is line 1).
func (cr *Reader) Line() int { return cr.line }

// atEnd reports whether the line just read was the last, without a line end.
func (cr *Reader) atEnd() bool {
	if !cr.lastUnended {
		return false
	}
	_, err := cr.r.Peek(1)
	return err != nil
}

// ReadAll returns the remaining records.
func (cr *Reader) ReadAll() ([]*Record, error) {
	var out []*Record
	for {
		r, err := cr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// next returns the next non-empty line without its line end. A last line without
// one is returned too (a capture cut short by a crash).
func (cr *Reader) next() ([]byte, error) {
	for {
		line, err := cr.r.ReadBytes('\n')
		cr.lastUnended = err != nil
		if len(line) > 0 {
			cr.line++
			if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
				return line, nil
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadFile reads the whole capture in the file at path. A last line cut short is
// left out (see Reader).
func ReadFile(path string) (Header, []*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, nil, err
	}
	defer f.Close()
	cr, err := NewReader(f)
	if err != nil {
		return Header{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	recs, err := cr.ReadAll()
	if err != nil {
		return cr.Header(), recs, fmt.Errorf("%s: %w", path, err)
	}
	return cr.Header(), recs, nil
}
