package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrInvalidEvent is wrapped by the errors AppendEvent and the Encoder return for an
// event that cannot be framed: an ID containing CR, LF or NUL, or a Type containing CR
// or LF.
var ErrInvalidEvent = errors.New("sse: invalid event")

// Encoder writes events to an io.Writer.
//
// Each event or comment goes out in a single Write call, assembled in a buffer the
// Encoder reuses, so that concurrent writers to the same underlying stream (if the
// caller serialises them) never interleave inside an event, and encoding does not
// allocate once the buffer has grown to the usual event size. The Encoder does not
// flush: an HTTP handler calls http.ResponseController.Flush after writing.
//
// An Encoder is not safe for concurrent use.
type Encoder struct {
	w   io.Writer
	buf []byte
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w}
}

// Encode writes ev: its id, event and retry fields when set, then its data as one
// data field per line, then the blank line that dispatches it. It returns an error
// wrapping ErrInvalidEvent, and writes nothing, if ev cannot be framed.
func (e *Encoder) Encode(ev Event) error {
	buf, err := AppendEvent(e.buf[:0], ev)
	if err != nil {
		return err
	}
	return e.write(buf)
}

// Prime writes the priming event of the MCP Streamable HTTP transport (2025-11-25):
// an event with the given id and one empty data field ("id: 1\ndata:\n\n"). It gives
// the client an event id to resume from before any message has been sent. A non-empty
// id is required. To also ask the client to reconnect after a delay, as a server that
// closes the stream early should, use Encode(Event{ID: id, Retry: d}).
func (e *Encoder) Prime(id string) error {
	if id == "" {
		return fmt.Errorf("%w: a priming event needs an id", ErrInvalidEvent)
	}
	return e.Encode(Event{ID: id})
}

// Comment writes text as a comment, which receivers ignore: ": text\n". Servers send
// comments as keep-alives so that proxies do not cut an idle stream. A text with line
// ends is written as one comment line per line; an empty text writes ":\n".
func (e *Encoder) Comment(text string) error {
	return e.write(AppendComment(e.buf[:0], text))
}

func (e *Encoder) write(buf []byte) error {
	if cap(buf) <= retainLimit {
		e.buf = buf[:0]
	} else {
		e.buf = nil // do not pin the memory of one unusually large event
	}
	if _, err := e.w.Write(buf); err != nil {
		return fmt.Errorf("sse: writing event: %w", err)
	}
	return nil
}

// AppendEvent appends the encoding of ev to dst, as Encoder.Encode writes it, and
// returns the extended slice. It is useful to store events already encoded, for
// replay to a client that resumes with Last-Event-ID. It returns dst unchanged and an
// error wrapping ErrInvalidEvent if ev cannot be framed.
func AppendEvent(dst []byte, ev Event) ([]byte, error) {
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return dst, fmt.Errorf("%w: id %q contains a line break or NUL", ErrInvalidEvent, ev.ID)
	}
	if strings.ContainsAny(ev.Type, "\r\n") {
		return dst, fmt.Errorf("%w: event type %q contains a line break", ErrInvalidEvent, ev.Type)
	}
	if ev.ID != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, ev.ID...)
		dst = append(dst, '\n')
	}
	if ev.Type != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, ev.Type...)
		dst = append(dst, '\n')
	}
	if ev.Retry > 0 {
		dst = append(dst, "retry: "...)
		dst = strconv.AppendInt(dst, ev.Retry.Milliseconds(), 10)
		dst = append(dst, '\n')
	}
	dst = appendLines(dst, "data", ev.Data)
	return append(dst, '\n'), nil
}

// AppendComment appends text as comment lines, as Encoder.Comment writes it, and
// returns the extended slice.
func AppendComment(dst []byte, text string) []byte {
	return appendLines(dst, "", text)
}

// appendLines appends one "field: line" per line of text, splitting at every CR, LF
// and CRLF. The space after the colon is always written for a non-empty line, so a
// line that starts with a space keeps it when decoded. Empty text gives one line.
func appendLines[T string | []byte](dst []byte, field string, text T) []byte {
	lf := -1 // index of the next LF at or after i, len(text) if none, -1 if not known
	for i := 0; ; {
		if lf < i {
			if k := indexByte(text[i:], '\n'); k >= 0 {
				lf = i + k
			} else {
				lf = len(text)
			}
		}
		end := lf
		if k := indexByte(text[i:lf], '\r'); k >= 0 {
			end = i + k
		}
		dst = append(dst, field...)
		dst = append(dst, ':')
		if end > i {
			dst = append(dst, ' ')
			dst = append(dst, text[i:end]...)
		}
		dst = append(dst, '\n')
		if end == len(text) {
			return dst
		}
		i = end + 1
		if text[end] == '\r' && i < len(text) && text[i] == '\n' {
			i++
		}
	}
}

func indexByte[T string | []byte](s T, c byte) int {
	switch s := any(s).(type) {
	case string:
		return strings.IndexByte(s, c)
	case []byte:
		return bytes.IndexByte(s, c)
	}
	return -1
}
