package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"
)

const (
	// DefaultMaxEventSize is the default bound on the bytes a Decoder buffers for one
	// event (see DecoderOptions.MaxEventSize).
	DefaultMaxEventSize = 16 << 20

	// DefaultBufferSize is the default size of the Decoder's read buffer. Lines longer
	// than the buffer are fine: the decoder copies them piecewise into the event.
	DefaultBufferSize = 4 << 10

	// maxEventSizeLimit keeps the size arithmetic far from overflowing int.
	maxEventSizeLimit = math.MaxInt / 4

	// retainLimit is the largest buffer capacity kept for reuse after an event;
	// larger buffers (left by an unusually big event) are released.
	retainLimit = 64 << 10
)

// ErrEventTooLarge is wrapped by the error Decoder.Next returns when one event exceeds
// DecoderOptions.MaxEventSize. The error is not fatal: the decoder drops the rest of
// that event, and the next call to Next continues with the event after it.
var ErrEventTooLarge = errors.New("sse: event too large")

// DecoderOptions configures a Decoder. The zero value gives the defaults.
type DecoderOptions struct {
	// MaxEventSize bounds what the decoder buffers for one event: the length of the
	// event's data (its data fields joined with LF) plus the length of its event type,
	// and separately the length of any one id field. Zero means DefaultMaxEventSize.
	// Lines the decoder ignores (unknown fields, comments) are never buffered whole and
	// do not count.
	MaxEventSize int

	// BufferSize is the size of the read buffer. Zero means DefaultBufferSize. If the
	// reader given to the decoder is a *bufio.Reader at least this large, it is used
	// as is.
	BufferSize int

	// LastEventID is the initial last event ID: pass the id of the last event seen
	// on a previous connection when resuming, so that events of the new stream that
	// carry no id report it, as an EventSource would.
	LastEventID string

	// OnComment, if set, is called with every comment line (a line starting with a
	// colon): the text after the colon, with one leading space removed if present,
	// so ": ping" gives "ping". Servers send comments as keep-alives, so OnComment
	// is the place to note that the stream is still alive. The slice is only valid
	// during the call; text longer than MaxEventSize is truncated to it. The text is
	// passed as received, without UTF-8 validation. OnComment runs on the goroutine
	// calling Next.
	OnComment func(text []byte)

	// Strict makes the end of the stream follow the WHATWG algorithm exactly: an
	// event whose terminating blank line never arrived is discarded, and so is an
	// unterminated last line. By default the decoder is tolerant (see Decoder).
	Strict bool
}

// Decoder reads events from a text/event-stream body.
//
// Next parses the stream as the WHATWG "event stream interpretation" algorithm does,
// with one deliberate difference: when the stream ends cleanly (the reader returns
// io.EOF) the decoder acts as if the last line had been terminated and followed by a
// blank line, so a final event with data is delivered instead of being discarded.
// Several servers close the stream right after the last data line, and an MCP client
// that dropped that event would lose the response it was waiting for. This only
// applies to a clean end: when the reader fails with any other error (a connection
// cut mid-chunk is io.ErrUnexpectedEOF), the pending event is discarded, because it
// may be truncated, and LastEventID does not advance to it. Set
// DecoderOptions.Strict to discard pending events at a clean end too.
//
// A Decoder keeps a small read buffer (DefaultBufferSize) and reuses its event buffers,
// so decoding costs one allocation per event for Data, plus one for an id or event type
// that differs from the previous one. It is not safe for concurrent use. Next blocks
// in the reader; to stop it, close the reader (for an HTTP response, cancel the
// request's context or close the body).
type Decoder struct {
	r         *bufio.Reader
	maxSize   int
	onComment func([]byte)
	strict    bool
	err       error // sticky: io.EOF or a wrapped read error

	// Stream state.
	bomDone    bool
	bomMatched int  // how many bytes of a leading BOM have been seen
	skipLF     bool // the previous line ended with CR: an LF next is part of that line end

	// State of the current line.
	state       lineState
	name        [5]byte // the first bytes of the field name; enough to tell known fields apart
	nameLen     int     // the field name's length so far, capped at len(name)+1
	field       fieldKind
	value       []byte // the value of an event, id or comment line
	retryMS     int64  // the value of a retry line, parsed as it arrives (saturating)
	retryDigits int    // how many digits the retry value has so far

	// The event being assembled.
	data       []byte // the data fields joined with LF (no trailing LF)
	hasData    bool   // a data field was seen: the WHATWG data buffer is not empty
	eventType  []byte
	discarding bool // the event exceeded maxSize; its data and type are ignored

	// Results that persist across events.
	typeCache string // the last event type string handed out, reused when it repeats
	idBuffer  string // the WHATWG last event ID buffer
	lastID    string // the WHATWG last event ID string, set when an event is dispatched
	retry     time.Duration
	hasRetry  bool
}

type lineState uint8

const (
	inName     lineState = iota // reading the field name
	afterColon                  // just past the colon: one space may follow
	inValue                     // reading the field value
)

type fieldKind uint8

const (
	fieldIgnored fieldKind = iota
	fieldData
	fieldEvent
	fieldID
	fieldRetry
	fieldComment
)

var byteOrderMark = [3]byte{0xEF, 0xBB, 0xBF}

// NewDecoder returns a Decoder reading from r with the default options.
func NewDecoder(r io.Reader) *Decoder {
	return NewDecoderWithOptions(r, DecoderOptions{})
}

// NewDecoderWithOptions returns a Decoder reading from r configured by opts.
func NewDecoderWithOptions(r io.Reader, opts DecoderOptions) *Decoder {
	maxSize := opts.MaxEventSize
	if maxSize <= 0 {
		maxSize = DefaultMaxEventSize
	}
	maxSize = min(maxSize, maxEventSizeLimit)
	bufSize := opts.BufferSize
	if bufSize <= 0 {
		bufSize = DefaultBufferSize
	}
	return &Decoder{
		r:         bufio.NewReaderSize(r, bufSize),
		maxSize:   maxSize,
		onComment: opts.OnComment,
		strict:    opts.Strict,
		typeCache: "message",
		idBuffer:  opts.LastEventID,
		lastID:    opts.LastEventID,
	}
}

// LastEventID returns the stream's last event ID: the id in force when the most
// recent event was dispatched (including events not delivered because their data was
// empty, such as "id: 7" followed by a blank line). This is the value to send in the
// Last-Event-ID header when reconnecting.
func (d *Decoder) LastEventID() string { return d.lastID }

// Retry returns the reconnection time set by the most recent valid retry field, and
// whether there was one. A retry value too large for time.Duration is capped at the
// largest Duration.
func (d *Decoder) Retry() (time.Duration, bool) { return d.retry, d.hasRetry }

// Next returns the next event. At the end of the stream it returns io.EOF (unwrapped);
// a failing reader's error is returned wrapped. Both are final: later calls return
// them again. An error wrapping ErrEventTooLarge is not final: the oversized event is
// dropped and the next call continues after it.
func (d *Decoder) Next() (Event, error) {
	if d.err != nil {
		return Event{}, d.err
	}
	for {
		buf, rerr := d.buffered()
		if len(buf) == 0 {
			return d.finish(rerr)
		}
		n, ev, ok, err := d.consume(buf)
		_, _ = d.r.Discard(n) // n <= len(buf), which is buffered: Discard cannot fail
		if err != nil {
			return Event{}, err
		}
		if ok {
			return ev, nil
		}
	}
}

// buffered returns the bytes in the read buffer, reading once if it is empty.
func (d *Decoder) buffered() ([]byte, error) {
	if d.r.Buffered() == 0 {
		if _, err := d.r.Peek(1); err != nil {
			return nil, err
		}
	}
	return d.r.Peek(d.r.Buffered())
}

// consume parses buf up to and including the line end that dispatches an event, or
// all of it. It returns how many bytes it used, and the event if one was dispatched.
func (d *Decoder) consume(buf []byte) (n int, ev Event, ok bool, err error) {
	i := 0
	if !d.bomDone {
		for i < len(buf) && d.bomMatched < len(byteOrderMark) && buf[i] == byteOrderMark[d.bomMatched] {
			d.bomMatched++
			i++
		}
		switch {
		case d.bomMatched == len(byteOrderMark):
			d.bomDone = true
		case i == len(buf):
			return i, Event{}, false, nil // a BOM prefix so far: wait for more
		default:
			d.endBOM()
		}
	}
	lf := -1 // index of the next LF at or after i, len(buf) if none, -1 if not known
	for i < len(buf) {
		if d.skipLF {
			d.skipLF = false
			if buf[i] == '\n' {
				i++
				continue
			}
		}
		if lf < i {
			if k := bytes.IndexByte(buf[i:], '\n'); k >= 0 {
				lf = i + k
			} else {
				lf = len(buf)
			}
		}
		end := lf
		if k := bytes.IndexByte(buf[i:lf], '\r'); k >= 0 {
			end = i + k
		}
		if err := d.feed(buf[i:end]); err != nil {
			return end, Event{}, false, err
		}
		if end == len(buf) {
			return end, Event{}, false, nil // the line continues in the next read
		}
		d.skipLF = buf[end] == '\r'
		i = end + 1
		ev, ok, err := d.endLine()
		if err != nil || ok {
			return i, ev, ok, err
		}
	}
	return i, Event{}, false, nil
}

// endBOM ends the search for a byte order mark that turned out not to be one: the
// bytes that matched so far are the start of the first line's field name.
func (d *Decoder) endBOM() {
	d.bomDone = true
	if d.bomMatched < len(byteOrderMark) {
		_ = d.feed(byteOrderMark[:d.bomMatched]) // no colon: only the name grows, which cannot fail
	}
}

// finish handles the end of the reader.
func (d *Decoder) finish(rerr error) (Event, error) {
	if !errors.Is(rerr, io.EOF) {
		d.err = fmt.Errorf("sse: reading event stream: %w", rerr)
		return Event{}, d.err
	}
	d.err = io.EOF
	if d.strict {
		return Event{}, io.EOF
	}
	if !d.bomDone {
		d.endBOM()
	}
	if d.state != inName || d.nameLen > 0 {
		if _, _, err := d.endLine(); err != nil { // a non-blank line never dispatches
			return Event{}, err
		}
	}
	if ev, ok := d.dispatch(); ok {
		return ev, nil
	}
	return Event{}, io.EOF
}

// feed parses part of a line; seg holds no line end.
func (d *Decoder) feed(seg []byte) error {
	for len(seg) > 0 {
		switch d.state {
		case inName:
			colon := bytes.IndexByte(seg, ':')
			part := seg
			if colon >= 0 {
				part = seg[:colon]
			}
			if d.nameLen < len(d.name) {
				copy(d.name[d.nameLen:], part)
			}
			d.nameLen = min(d.nameLen+len(part), len(d.name)+1)
			if colon < 0 {
				return nil
			}
			seg = seg[colon+1:]
			d.state = afterColon
			if err := d.beginValue(); err != nil {
				return err
			}
		case afterColon:
			d.state = inValue
			if seg[0] == ' ' {
				seg = seg[1:]
			}
		case inValue:
			return d.appendValue(seg)
		}
	}
	return nil
}

// beginValue identifies the field of the current line once its name is complete.
func (d *Decoder) beginValue() error {
	d.field = fieldIgnored
	switch name := d.name[:min(d.nameLen, len(d.name))]; {
	case d.nameLen == 0:
		if d.onComment != nil {
			d.field = fieldComment
			d.value = d.value[:0]
		}
	case d.nameLen == 4 && string(name) == "data":
		if d.discarding {
			return nil
		}
		d.field = fieldData
		if d.hasData {
			if len(d.data)+1+len(d.eventType) > d.maxSize {
				return d.tooLarge()
			}
			d.data = append(d.data, '\n')
		}
		d.hasData = true
	case d.nameLen == 5 && string(name) == "event":
		if !d.discarding {
			d.field = fieldEvent
			d.value = d.value[:0]
		}
	case d.nameLen == 2 && string(name) == "id":
		d.field = fieldID
		d.value = d.value[:0]
	case d.nameLen == 5 && string(name) == "retry":
		d.field = fieldRetry
		d.retryMS, d.retryDigits = 0, 0
	}
	return nil
}

// appendValue adds part of the current line's value.
func (d *Decoder) appendValue(seg []byte) error {
	switch d.field {
	case fieldData:
		if len(d.data)+len(seg)+len(d.eventType) > d.maxSize {
			return d.tooLarge()
		}
		d.data = append(grow(d.data, len(seg), d.maxSize), seg...)
	case fieldEvent:
		if len(d.value)+len(seg)+len(d.data) > d.maxSize {
			return d.tooLarge()
		}
		d.value = append(d.value, seg...)
	case fieldID:
		if len(d.value)+len(seg) > d.maxSize {
			return d.tooLarge()
		}
		d.value = append(d.value, seg...)
	case fieldComment:
		d.value = append(d.value, seg[:min(len(seg), d.maxSize-len(d.value))]...)
	case fieldRetry:
		for _, c := range seg {
			if c < '0' || c > '9' {
				d.field = fieldIgnored // not only digits: the line is ignored
				return nil
			}
			d.retryDigits++
			if d.retryMS <= (math.MaxInt64-9)/10 {
				d.retryMS = d.retryMS*10 + int64(c-'0')
			} else {
				d.retryMS = math.MaxInt64
			}
		}
	}
	return nil
}

// tooLarge drops the event being assembled and reports ErrEventTooLarge. The rest of
// the current line is ignored, and so are the data and event fields of the event
// until the blank line that ends it.
func (d *Decoder) tooLarge() error {
	d.discarding = true
	d.field = fieldIgnored
	d.state = inValue
	d.resetEvent()
	d.value = releaseIfLarge(d.value[:0])
	return fmt.Errorf("%w: more than %d bytes", ErrEventTooLarge, d.maxSize)
}

// endLine completes the current line. A blank line dispatches the event.
func (d *Decoder) endLine() (Event, bool, error) {
	if d.state == inName {
		if d.nameLen == 0 {
			ev, ok := d.dispatch()
			return ev, ok, nil
		}
		// A line without a colon is a field name with an empty value.
		if err := d.beginValue(); err != nil {
			d.state, d.nameLen = inName, 0
			return Event{}, false, err
		}
	}
	switch d.field {
	case fieldEvent:
		d.eventType = append(d.eventType[:0], d.value...)
	case fieldID:
		if bytes.IndexByte(d.value, 0) < 0 {
			if !utf8.Valid(d.value) || string(d.value) != d.idBuffer {
				d.idBuffer = validString(d.value)
			}
		}
	case fieldRetry:
		if d.retryDigits > 0 {
			d.hasRetry = true
			if d.retryMS > int64(math.MaxInt64/time.Millisecond) {
				d.retry = math.MaxInt64
			} else {
				d.retry = time.Duration(d.retryMS) * time.Millisecond
			}
		}
	case fieldComment:
		d.onComment(d.value)
	}
	d.value = releaseIfLarge(d.value[:0])
	d.state, d.nameLen, d.field = inName, 0, fieldIgnored
	return Event{}, false, nil
}

// dispatch runs the WHATWG "dispatch the event" steps at a blank line.
func (d *Decoder) dispatch() (Event, bool) {
	d.lastID = d.idBuffer
	d.discarding = false
	if !d.hasData {
		d.eventType = d.eventType[:0]
		return Event{}, false
	}
	ev := Event{ID: d.lastID, Type: d.typeString()}
	if cap(d.data) > retainLimit && utf8.Valid(d.data) {
		// A buffer this large is not kept for reuse anyway: hand it over rather
		// than copy it.
		ev.Data = d.data[:len(d.data):len(d.data)]
		d.data = nil
	} else {
		ev.Data = appendValidUTF8(make([]byte, 0, len(d.data)), d.data)
	}
	d.resetEvent()
	return ev, true
}

// typeString returns the event type, reusing the previous string when it repeats.
func (d *Decoder) typeString() string {
	if len(d.eventType) == 0 {
		return "message"
	}
	if string(d.eventType) != d.typeCache {
		d.typeCache = validString(d.eventType)
	}
	return d.typeCache
}

func (d *Decoder) resetEvent() {
	d.data = releaseIfLarge(d.data[:0])
	d.eventType = releaseIfLarge(d.eventType[:0])
	d.hasData = false
}

func releaseIfLarge(b []byte) []byte {
	if cap(b) > retainLimit {
		return nil
	}
	return b
}

// grow returns b with room for n more bytes. It doubles the capacity (up to limit,
// the most b will hold), where append grows large slices by a quarter, so that a long
// data line arriving a read buffer at a time is copied a few times rather than dozens.
func grow(b []byte, n, limit int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(min(max(2*cap(b), 512), limit), len(b)+n))
	copy(nb, b)
	return nb
}
