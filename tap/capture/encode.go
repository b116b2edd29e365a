package capture

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// timeLayout is RFC 3339 with nanoseconds, fixed width so that lines sort by time.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// normalize turns the bytes a relay observed for a message (r.Msg, possibly with
// whitespace around it) into the record's final form, as documented on Record:
// valid JSON stays in Msg, trimmed; anything else moves to Raw or Raw64 and is
// flagged. It returns the JSON-RPC messages it decoded on the way (none for a
// message that is not JSON-RPC), for the tally. It runs on the recorder's
// goroutine, never on a relay's.
func normalize(r *Record) decoded {
	if r.Kind != "" || r.Msg == nil {
		return decoded{}
	}
	if r.Size == 0 {
		r.Size = int64(len(r.Msg))
	}
	observed := []byte(r.Msg)
	msg := bytes.TrimFunc(observed, isJSONSpace)
	if r.Truncated {
		r.Msg = nil
		setRaw(r, observed)
		return decoded{}
	}
	msgs, valid := decodeMessages(msg)
	switch {
	case !valid || !utf8.Valid(msg):
		r.Msg = nil
		r.Invalid = true
		setRaw(r, observed)
		return decoded{}
	case bytes.ContainsAny(msg, "\r\n"):
		var b bytes.Buffer
		_ = json.Compact(&b, msg) // msg is valid JSON
		r.Msg = b.Bytes()
		setRaw(r, msg)
	default:
		r.Msg = msg
	}
	return msgs
}

// decoded is what a message decoded to: one message (single), or a batch.
type decoded struct {
	single jsonrpc.Message
	ok     bool // single holds a message
	batch  []*jsonrpc.Message
}

// decodeMessages decodes a message or a batch with the SDK's validating codec. It
// reports whether data is valid JSON at all; the messages are those of the right
// shape (none for JSON that is not JSON-RPC).
func decodeMessages(data []byte) (decoded, bool) {
	var d decoded
	if jsonrpc.IsBatch(data) {
		msgs, _, err := jsonrpc.DecodeBatch(data)
		d.batch = msgs
		return d, err == nil || !isParseError(err)
	}
	err := jsonrpc.DecodeInto(data, &d.single)
	if err != nil {
		return decoded{}, !isParseError(err)
	}
	d.ok = true
	return d, true
}

func isParseError(err error) bool {
	var e *jsonrpc.Error
	return !errors.As(err, &e) || e.Code == jsonrpc.CodeParseError
}

// setRaw keeps b exactly: as text when it is UTF-8, else in base64.
func setRaw(r *Record, b []byte) {
	if utf8.Valid(b) {
		r.Raw = string(b)
	} else {
		r.Raw64 = b
	}
}

func isJSONSpace(c rune) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// AppendRecord appends r as one line of a capture (a JSON object and "\n") to b.
// r must have been normalized: Msg, if set, is valid compact-enough JSON without
// line breaks.
func AppendRecord(b []byte, r *Record) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"t":"`...)
	b = r.Time.UTC().AppendFormat(b, timeLayout)
	b = append(b, '"')
	b = appendStringField(b, "kind", r.Kind)
	b = appendStringField(b, "dir", r.Dir)
	b = appendStringField(b, "transport", r.Transport)
	b = appendStringField(b, "session", r.Session)
	if len(r.Msg) > 0 {
		b = append(b, `,"msg":`...)
		b = append(b, r.Msg...)
	}
	b = appendStringField(b, "raw", r.Raw)
	if len(r.Raw64) > 0 {
		b = append(b, `,"raw64":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.Raw64)
		b = append(b, '"')
	}
	if r.Invalid {
		b = append(b, `,"invalid":true`...)
	}
	if r.Size != 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, r.Size, 10)
	}
	if r.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if r.HTTP != nil {
		b = appendHTTP(b, r.HTTP)
	}
	b = appendStringField(b, "text", r.Text)
	b = appendStringField(b, "endpoint", r.Endpoint)
	b = appendStringField(b, "lastEventId", r.LastEventID)
	if r.Count != 0 {
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, r.Count, 10)
	}
	if r.ExitCode != nil {
		b = append(b, `,"exitCode":`...)
		b = strconv.AppendInt(b, int64(*r.ExitCode), 10)
	}
	b = appendStringField(b, "signal", r.Signal)
	return append(b, "}\n"...)
}

func appendHTTP(b []byte, h *HTTPInfo) []byte {
	b = append(b, `,"http":{"exchange":`...)
	b = strconv.AppendUint(b, h.Exchange, 10)
	b = append(b, `,"method":`...)
	b = jsonrpc.AppendString(b, h.Method)
	b = append(b, `,"path":`...)
	b = jsonrpc.AppendString(b, h.Path)
	if h.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(h.Status), 10)
	}
	b = appendStringField(b, "contentType", h.ContentType)
	if h.Headers == nil && h.lines != "" {
		b = appendHeaderLines(b, h.lines)
	} else if len(h.Headers) > 0 {
		b = append(b, `,"headers":{`...)
		var arr [32]string
		names := arr[:0]
		for name := range h.Headers {
			names = append(names, name)
		}
		slices.Sort(names)
		for i, name := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonrpc.AppendString(b, name)
			b = append(b, ":["...)
			for j, v := range h.Headers[name] {
				if j > 0 {
					b = append(b, ',')
				}
				b = jsonrpc.AppendString(b, v)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = appendStringField(b, "eventId", h.EventID)
	b = appendStringField(b, "event", h.Event)
	return append(b, '}')
}

// appendHeaderLines appends the "headers" member of the fields in
// SetHeaderLines's form: the same bytes as for the map they stand for (names
// sorted, each name's values in the order sent).
func appendHeaderLines(b []byte, lines string) []byte {
	var arr [32]headerField
	fields := arr[:0]
	for name, value := range headerLines(lines) {
		fields = append(fields, headerField{name, value})
	}
	slices.SortStableFunc(fields, func(x, y headerField) int { return strings.Compare(x.name, y.name) })
	b = append(b, `,"headers":{`...)
	for i, f := range fields {
		switch {
		case i > 0 && f.name == fields[i-1].name:
			b = append(b, ',')
			b = jsonrpc.AppendString(b, f.value)
			continue
		case i > 0:
			b = append(b, "],"...)
		}
		b = jsonrpc.AppendString(b, f.name)
		b = append(b, ":["...)
		b = jsonrpc.AppendString(b, f.value)
	}
	return append(b, "]}"...)
}

type headerField struct{ name, value string }

// appendStringField appends `,"name":"value"` unless value is empty.
func appendStringField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonrpc.AppendString(b, value)
}

// appendHeader appends the header line of a capture.
func appendHeader(b []byte, h Header) ([]byte, error) {
	h.Format = Format
	if h.Time.IsZero() {
		h.Time = time.Now()
	}
	h.Time = h.Time.UTC()
	line, err := json.Marshal(h)
	if err != nil {
		return b, err
	}
	b = append(b, line...)
	return append(b, '\n'), nil
}
