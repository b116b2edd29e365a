package tap

import (
	"bytes"
	"strings"
)

// holdLimit bounds what the SSE framer holds back: the bytes of one event, so that
// it can be relayed whole (flush per event) and an endpoint event rewritten. The
// rest of a larger event passes through as it arrives, unchanged.
const holdLimit = 1 << 20

// sseEvent is one event the framer saw go by.
type sseEvent struct {
	Type      string // "message" when the event had no event field
	ID        string // the last event ID in force when it was dispatched
	Data      []byte // its data: the data fields joined with LF (owned)
	Size      int64  // the data's full length
	Truncated bool   // Data holds only the first maxKeep bytes
	// For an endpoint event the framer rewrote: the data it relayed instead.
	Rewritten string
}

// sseFramer follows an event stream as it is relayed. It passes every byte on
// unchanged (comments, field spelling with or without a space after the colon, CR,
// LF or CRLF line ends, byte order mark), holding back the bytes of an event until
// the event is complete so that the event is written out in one piece, except the
// data of an "endpoint" event (the HTTP+SSE transport), which rewrite may replace.
// It interprets the stream as the WHATWG event-stream algorithm does, to report each
// event to onEvent.
type sseFramer struct {
	// rewrite returns the data to relay in place of an endpoint event's, or false
	// to leave it unchanged. Nil rewrites nothing.
	rewrite func(data string) (string, bool)
	// onEvent is called for every dispatched event.
	onEvent func(ev sseEvent)
	// maxKeep bounds the data kept of one event for onEvent.
	maxKeep int

	afterCR bool // the last line ended with CR: an LF next belongs to that line end

	// The current line.
	lineBytes  int    // bytes of the line seen so far, line end excluded
	lineMode   byte   // 0 unknown (empty so far), ':' comment, 'f' field
	cur        []byte // its first bytes (up to maxKeep + a field name)
	curCut     bool   // cur did not keep all of the line
	bomSkipped int

	// The current block: the lines up to the next blank line.
	holding     bool   // held has bytes not yet relayed
	passthrough bool   // the block outgrew holdLimit: its bytes go straight out
	held        []byte // bytes held back
	evType      string
	data        []byte
	dataSize    int64
	dataCut     bool
	hasData     bool
	dataLines   int
	lastID      string
}

// feed processes the next bytes of the stream, appending what is to be relayed
// now to out, and returns out.
func (f *sseFramer) feed(in, out []byte) []byte {
	for len(in) > 0 {
		if f.afterCR {
			f.afterCR = false
			if in[0] == '\n' {
				out = f.emit(in[:1], out)
				in = in[1:]
				continue
			}
		}
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			f.linePart(in)
			return f.emit(in, out)
		}
		f.linePart(in[:i])
		n := i + 1
		if in[i] == '\r' {
			if i+1 < len(in) {
				if in[i+1] == '\n' {
					n++
				}
			} else {
				f.afterCR = true
			}
		}
		out = f.emit(in[:n], out)
		out = f.endLine(out)
		in = in[n:]
	}
	return out
}

// end finishes the stream: what is held goes out as it is, and an event whose
// blank line never came is still reported (as mcpkit's SSE decoder delivers it).
func (f *sseFramer) end(out []byte) []byte {
	if f.lineBytes > 0 {
		out = f.endLine(out)
	}
	if f.hasData {
		f.dispatch("")
	}
	if f.holding {
		out = append(out, f.held...)
		f.held, f.holding = f.held[:0], false
	}
	return out
}

// linePart notes part of the current line (no line end in it).
func (f *sseFramer) linePart(p []byte) {
	if len(p) == 0 {
		return
	}
	if f.lineMode == 0 {
		f.lineMode = 'f'
		if p[0] == ':' {
			f.lineMode = ':'
		}
	}
	f.lineBytes += len(p)
	if f.lineMode == ':' {
		return // comments are relayed, not interpreted
	}
	room := f.maxKeep + 16 - len(f.cur)
	if room < len(p) {
		p = p[:max(room, 0)]
		f.curCut = true
	}
	f.cur = append(f.cur, p...)
}

// emit relays p (bytes of the current line, or its line end) now or holds it back.
func (f *sseFramer) emit(p, out []byte) []byte {
	switch {
	case f.holding:
		f.held = append(f.held, p...)
		if len(f.held) > holdLimit {
			out = append(out, f.held...)
			f.held, f.holding, f.passthrough = f.held[:0], false, true
		}
		return out
	case f.passthrough, f.lineMode != 'f':
		// Comments and blank lines outside an event go out at once: keep-alives
		// must not wait.
		return append(out, p...)
	}
	f.holding = true
	f.held = append(f.held, p...)
	return out
}

// endLine interprets the line just ended and, at a blank line, completes the block.
func (f *sseFramer) endLine(out []byte) []byte {
	blank := f.lineBytes == 0
	if f.lineMode == 'f' {
		f.field()
	}
	f.lineBytes, f.lineMode, f.cur, f.curCut = 0, 0, f.cur[:0], false
	if !blank {
		return out
	}
	rewritten := ""
	if f.holding {
		if f.hasData && f.evType == "endpoint" && f.rewrite != nil && f.dataLines == 1 && !f.dataCut {
			if data, ok := f.rewrite(string(f.data[:len(f.data)-1])); ok {
				f.held = rewriteDataLine(f.held, data)
				rewritten = data
			}
		}
		out = append(out, f.held...)
		f.held, f.holding = f.held[:0], false
		if cap(f.held) > holdLimit {
			f.held = nil
		}
	}
	f.passthrough = false
	if f.hasData {
		f.dispatch(rewritten)
	}
	f.evType, f.data, f.dataSize, f.dataCut, f.hasData, f.dataLines = "", nil, 0, false, false, 0
	return out
}

// field interprets a complete field line held in cur.
func (f *sseFramer) field() {
	line := f.cur
	if f.bomSkipped == 0 {
		f.bomSkipped = 1
		line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
	}
	name, value := line, []byte(nil)
	valueLen := int64(0)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		skip := 0
		if len(value) > 0 && value[0] == ' ' {
			skip = 1
			value = value[1:]
		}
		valueLen = int64(f.lineBytes - i - 1 - skip)
	}
	switch string(name) {
	case "data":
		f.hasData = true
		f.dataLines++
		f.dataSize += valueLen + 1
		if f.dataCut {
			break
		}
		keep := min(len(value), max(f.maxKeep-len(f.data), 0))
		f.data = append(f.data, value[:keep]...)
		if keep < len(value) || f.curCut || len(f.data) >= f.maxKeep {
			f.dataCut = true
		} else {
			f.data = append(f.data, '\n')
		}
	case "event":
		f.evType = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && !f.curCut {
			f.lastID = string(value)
		}
	}
}

// dispatch reports the event assembled so far.
func (f *sseFramer) dispatch(rewritten string) {
	data := f.data
	if !f.dataCut && len(data) > 0 {
		data = data[:len(data)-1] // the LF after the last data line
	}
	typ := f.evType
	if typ == "" {
		typ = "message"
	}
	if f.onEvent != nil {
		f.onEvent(sseEvent{Type: typ, ID: f.lastID, Data: data, Size: max(f.dataSize-1, 0), Truncated: f.dataCut, Rewritten: rewritten})
	}
	f.hasData = false
}

// rewriteDataLine replaces the value of the one data line in block (the held bytes
// of a complete event) with value, keeping everything else byte for byte.
func rewriteDataLine(block []byte, value string) []byte {
	pos := 0
	for pos < len(block) {
		end := bytes.IndexAny(block[pos:], "\r\n")
		if end < 0 {
			end = len(block)
		} else {
			end += pos
		}
		line := block[pos:end]
		if bytes.HasPrefix(line, []byte("\xEF\xBB\xBF")) && pos == 0 {
			line = line[3:]
		}
		if name, rest, ok := bytes.Cut(line, []byte(":")); ok && string(name) == "data" {
			vstart := end - len(rest)
			if strings.HasPrefix(string(rest), " ") {
				vstart++
			}
			out := make([]byte, 0, len(block)+len(value))
			out = append(out, block[:vstart]...)
			out = append(out, value...)
			return append(out, block[end:]...)
		}
		pos = end
		if pos < len(block) && block[pos] == '\r' {
			pos++
		}
		if pos < len(block) && block[pos] == '\n' {
			pos++
		}
	}
	return block
}
