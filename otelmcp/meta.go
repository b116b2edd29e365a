package otelmcp

import (
	"encoding/json"
	"errors"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file reads and edits raw JSON-RPC params without decoding them into Go
// values: the middleware only needs a few top-level members (name, uri, _meta),
// and when it injects trace context it must leave every other byte alone, so that
// keys it does not know (progressToken, io.modelcontextprotocol/*, vendor keys)
// reach the peer exactly as the caller wrote them.

// metaKey is the params member that carries request metadata.
const metaKey = "_meta"

var (
	// errParamsNotObject means the params are valid JSON but not an object (an
	// array of positional params, a string, ...): there is nowhere to put _meta.
	errParamsNotObject = errors.New("otelmcp: params are not a JSON object")
	// errMetaNotObject means params._meta exists but is neither an object nor null;
	// replacing it would destroy what the sender put there.
	errMetaNotObject = errors.New("otelmcp: params._meta is not a JSON object")
	// errInvalidParams means the params are not valid JSON.
	errInvalidParams = errors.New("otelmcp: params are not valid JSON")
)

// member is one "key": value pair of a JSON object, as offsets into the text.
type member struct {
	key      []byte // the key's raw bytes between the quotes, still escaped
	escaped  bool   // key contains escape sequences
	start    int    // offset of the key's opening quote
	valStart int    // offset of the first byte of the value
	valEnd   int    // offset just past the value
}

// keyIs reports whether the member's key, unescaped, is name.
func (m *member) keyIs(data []byte, name string) bool {
	if !m.escaped {
		return string(m.key) == name
	}
	return unquote(data[m.start:m.start+len(m.key)+2]) == name
}

// memberIter walks the members of one JSON object, checking its syntax as it goes.
// It never allocates.
type memberIter struct {
	s     jsonscan.Scanner
	depth int // nesting level of the object itself
	first bool
	done  bool
	err   error
}

// newMemberIter starts at the object whose '{' is at data[pos]; the caller has
// checked that it is one.
func newMemberIter(data []byte, pos, depth int) memberIter {
	return memberIter{s: jsonscan.Scanner{Data: data, Pos: pos + 1}, depth: depth, first: true}
}

// next returns the next member. It returns false at the end of the object (the
// scanner is then just past the closing '}') or on a syntax error (err is set).
func (it *memberIter) next() (member, bool) {
	if it.done {
		return member{}, false
	}
	s := &it.s
	s.SkipSpace()
	switch {
	case it.first:
		it.first = false
		if s.Peek() == '}' {
			s.Pos++
			it.done = true
			return member{}, false
		}
	case s.Peek() == ',':
		s.Pos++
		s.SkipSpace()
	case s.Peek() == '}':
		s.Pos++
		it.done = true
		return member{}, false
	default:
		return it.fail(jsonscan.ErrSyntax)
	}
	if s.Peek() != '"' {
		return it.fail(jsonscan.ErrSyntax)
	}
	m := member{start: s.Pos}
	var err error
	if m.key, m.escaped, err = s.String(); err != nil {
		return it.fail(err)
	}
	s.SkipSpace()
	if s.Peek() != ':' {
		return it.fail(jsonscan.ErrSyntax)
	}
	s.Pos++
	s.SkipSpace()
	m.valStart = s.Pos
	if err := s.SkipValue(it.depth + 1); err != nil {
		return it.fail(err)
	}
	m.valEnd = s.Pos
	return m, true
}

func (it *memberIter) fail(err error) (member, bool) {
	it.err, it.done = err, true
	return member{}, false
}

// atEnd reports whether only white space follows the scanner's position.
func (it *memberIter) atEnd() bool {
	it.s.SkipSpace()
	return it.s.Pos == len(it.s.Data)
}

// unquote decodes a JSON string literal (with its quotes), or returns "" if it is
// not one. It is the slow path, for strings that contain escape sequences.
func unquote(quoted []byte) string {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return ""
	}
	return s
}

// stringValue returns the member's value if it is a JSON string; ok is false for
// any other kind of value.
func stringValue(data []byte, m member) (v string, ok bool) {
	if data[m.valStart] != '"' {
		return "", false
	}
	raw := data[m.valStart+1 : m.valEnd-1]
	for _, c := range raw {
		if c == '\\' {
			return unquote(data[m.valStart:m.valEnd]), true
		}
	}
	return string(raw), true
}

// paramsInfo is what the middleware reads from a request's params.
type paramsInfo struct {
	name string // the tool or prompt name (params.name), if a string
	uri  string // the resource URI (params.uri), if a string
	meta []byte // the params._meta object's JSON text, if it is an object
}

// inspectParams reads the top-level members name, uri and _meta of params in one
// pass. Params that are absent, not an object or not valid JSON yield nothing (the
// connection has already checked the message's syntax, and the server rejects
// params of the wrong shape itself; such requests are still traced, without these
// details). As with encoding/json, the last of duplicate keys wins.
func inspectParams(params []byte, wantName, wantURI bool) paramsInfo {
	var info paramsInfo
	s := jsonscan.Scanner{Data: params}
	s.SkipSpace()
	if s.Peek() != '{' {
		return info
	}
	it := newMemberIter(params, s.Pos, 0)
	for m, ok := it.next(); ok; m, ok = it.next() {
		switch {
		case m.keyIs(params, metaKey):
			if params[m.valStart] == '{' {
				info.meta = params[m.valStart:m.valEnd]
			} else {
				info.meta = nil
			}
		case wantName && m.keyIs(params, "name"):
			info.name, _ = stringValue(params, m)
		case wantURI && m.keyIs(params, "uri"):
			info.uri, _ = stringValue(params, m)
		}
	}
	if it.err != nil || !it.atEnd() {
		return paramsInfo{}
	}
	return info
}

// metaReader is a propagation.TextMapCarrier over the JSON text of a _meta object,
// for extraction. Get scans the object for the key each time: propagators ask for
// two or three keys, and a scan of a small object costs less than building a map.
// Only string values are visible; a key whose value is another kind reads as "".
type metaReader struct {
	obj []byte // a JSON object, as found by inspectParams
}

// Get returns the string value of key in _meta, or "" if there is none. As with
// encoding/json, the last of duplicate keys wins.
func (r *metaReader) Get(key string) string {
	var v string
	it := newMemberIter(r.obj, 0, 1)
	for m, ok := it.next(); ok; m, ok = it.next() {
		if m.keyIs(r.obj, key) {
			v, _ = stringValue(r.obj, m)
		}
	}
	return v
}

// Set does nothing: a metaReader is read-only (extraction never calls it).
func (r *metaReader) Set(string, string) {}

// Keys returns the keys of _meta whose values are strings.
func (r *metaReader) Keys() []string {
	var keys []string
	it := newMemberIter(r.obj, 0, 1)
	for m, ok := it.next(); ok; m, ok = it.next() {
		if r.obj[m.valStart] != '"' {
			continue
		}
		if m.escaped {
			keys = append(keys, unquote(r.obj[m.start:m.start+len(m.key)+2]))
		} else {
			keys = append(keys, string(m.key))
		}
	}
	return keys
}

// metaField is one string-valued _meta entry to inject.
type metaField struct {
	key, value string
}

// metaWriter is a propagation.TextMapCarrier that collects what a propagator
// injects. A key set twice keeps its last value.
type metaWriter struct {
	fields []metaField
	buf    [3]metaField // traceparent, tracestate, baggage without another allocation
}

// Get returns the value set for key, or "".
func (w *metaWriter) Get(key string) string {
	for _, f := range w.fields {
		if f.key == key {
			return f.value
		}
	}
	return ""
}

// Set records key = value.
func (w *metaWriter) Set(key, value string) {
	for i := range w.fields {
		if w.fields[i].key == key {
			w.fields[i].value = value
			return
		}
	}
	if w.fields == nil {
		w.fields = w.buf[:0]
	}
	w.fields = append(w.fields, metaField{key, value})
}

// Keys returns the keys set so far.
func (w *metaWriter) Keys() []string {
	keys := make([]string, len(w.fields))
	for i, f := range w.fields {
		keys[i] = f.key
	}
	return keys
}

// injectMeta returns params with fields set in params._meta. It never modifies
// params and never drops anything the sender put there: other top-level members and
// other _meta keys are kept byte for byte, in order; a _meta key that fields sets is
// replaced (every occurrence of it, so the result has no duplicate). Absent or null
// params become {"_meta":{...}}; a null _meta becomes an object. Params that are not
// a JSON object, a _meta that is neither an object nor null, and invalid JSON are
// errors, and params are then returned unchanged. With no fields, params are
// returned as they are.
func injectMeta(params []byte, fields []metaField) ([]byte, error) {
	if len(fields) == 0 {
		return params, nil
	}
	s := jsonscan.Scanner{Data: params}
	s.SkipSpace()
	if s.Pos == len(params) || (s.Literal("null") == nil && onlySpaceAfter(&s)) {
		b := make([]byte, 0, 16+fieldsLen(fields))
		b = append(b, `{"_meta":`...)
		b = appendMetaObject(b, nil, fields)
		return append(b, '}'), nil
	}
	if s.Peek() != '{' {
		if jsonscan.Valid(params) {
			return params, errParamsNotObject
		}
		return params, errInvalidParams
	}
	open := s.Pos
	it := newMemberIter(params, open, 0)
	count := 0
	var meta member
	found := false
	for m, ok := it.next(); ok; m, ok = it.next() {
		count++
		if m.keyIs(params, metaKey) {
			meta, found = m, true // the last one wins, as for any JSON decoder that keeps one
		}
	}
	if it.err != nil || !it.atEnd() {
		return params, errInvalidParams
	}

	var b []byte
	switch {
	case !found:
		// Insert "_meta" as the first member: no need to find the end of the object.
		b = make([]byte, 0, len(params)+16+fieldsLen(fields))
		b = append(b, params[:open+1]...)
		b = append(b, `"_meta":`...)
		b = appendMetaObject(b, nil, fields)
		if count > 0 {
			b = append(b, ',')
		}
		b = append(b, params[open+1:]...)
	case params[meta.valStart] == '{' || params[meta.valStart] == 'n':
		old := params[meta.valStart:meta.valEnd]
		if old[0] == 'n' {
			old = nil
		}
		b = make([]byte, 0, len(params)+16+fieldsLen(fields))
		b = append(b, params[:meta.valStart]...)
		b = appendMetaObject(b, old, fields)
		b = append(b, params[meta.valEnd:]...)
	default:
		return params, errMetaNotObject
	}
	return b, nil
}

// appendMetaObject appends a _meta object made of the members of old (a JSON object
// already checked by the caller, or nil) whose keys fields does not set, followed by
// fields.
func appendMetaObject(b, old []byte, fields []metaField) []byte {
	b = append(b, '{')
	n := 0
	if old != nil {
		it := newMemberIter(old, 0, 1)
	members:
		for m, ok := it.next(); ok; m, ok = it.next() {
			for _, f := range fields {
				if m.keyIs(old, f.key) {
					continue members
				}
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, old[m.start:m.valEnd]...)
			n++
		}
	}
	for _, f := range fields {
		if n > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, f.key)
		b = append(b, ':')
		b = jsonrpc.AppendString(b, f.value)
		n++
	}
	return append(b, '}')
}

func onlySpaceAfter(s *jsonscan.Scanner) bool {
	s.SkipSpace()
	return s.Pos == len(s.Data)
}

func fieldsLen(fields []metaField) int {
	n := 0
	for _, f := range fields {
		n += len(f.key) + len(f.value) + 6
	}
	return n
}
