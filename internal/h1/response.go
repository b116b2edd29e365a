package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// ErrMalformed marks a response that does not parse as HTTP/1.x.
var ErrMalformed = errors.New("h1: malformed HTTP response")

// ErrHeaderTooLarge marks a response whose status line and headers exceed the
// transport's byte or count limit.
var ErrHeaderTooLarge = errors.New("h1: response header too large")

// max1xx bounds the interim (1xx) responses skipped before the final one.
const max1xx = 8

// parser reads response heads from one connection. Its scratch space and the
// strings of the previous response's header values are kept between responses,
// so that a value seen again (a session id, a Date within the same second) is
// not allocated again.
type parser struct {
	maxBytes int // status lines and header lines, all interim responses included
	maxCount int // header lines of one response

	used    int      // bytes of head read so far
	scratch []byte   // bytes of keys and values that are not interned
	fields  []field  // the fields of the response being read
	prev    []kvPair // non-interned values of the last response
	long    []byte   // a line longer than the reader's buffer
}

// field is one header line: key and value are either strings already (interned
// or reused) or spans of scratch.
type field struct {
	key, val     string
	kOff, kEnd   int // span of scratch when key == ""
	vOff, vEnd   int // span of scratch when vStr is false
	keyStr, vStr bool
	interned     bool // val is a constant of internValue
}

type kvPair struct{ key, val string }

// head is what readHead learns besides the header map.
type head struct {
	proto      string
	major      int
	minor      int
	status     int
	statusText string
	length     int64 // -1 when no Content-Length
	chunked    bool
	close      bool // Connection: close (or HTTP/1.0 without keep-alive)
	keepAlive  bool // Connection: keep-alive
	gotBytes   bool // some byte of the response was read
}

// readHead reads status lines and headers up to the final (non-1xx) response
// into p.fields; build then makes the header map.
func (p *parser) readHead(br *bufio.Reader) (head, error) {
	p.used = 0
	var h head
	for interim := 0; ; interim++ {
		line, err := p.readLine(br, &h)
		if err != nil {
			return h, err
		}
		if err := parseStatusLine(line, &h); err != nil {
			return h, err
		}
		if h.status >= 200 || h.status == http.StatusSwitchingProtocols {
			break
		}
		if interim >= max1xx {
			return h, fmt.Errorf("%w: more than %d interim responses", ErrMalformed, max1xx)
		}
		if err := p.readFields(br, &h); err != nil { // an interim response's headers are dropped
			return h, err
		}
	}
	if h.status == http.StatusSwitchingProtocols {
		return h, fmt.Errorf("%w: 101 Switching Protocols is not supported", ErrMalformed)
	}
	err := p.readFields(br, &h)
	if h.chunked {
		h.length = -1 // Transfer-Encoding wins over Content-Length
	}
	return h, err
}

// readLine returns one line without its line ending, counting it against the
// head's byte limit. A line longer than the reader's buffer is gathered in p.long.
func (p *parser) readLine(br *bufio.Reader, h *head) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if len(line) > 0 {
		h.gotBytes = true
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		p.long = append(p.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if p.used+len(p.long) > p.maxBytes {
				return nil, fmt.Errorf("%w: over %d bytes", ErrHeaderTooLarge, p.maxBytes)
			}
			line, err = br.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	if err != nil {
		if err == io.EOF && h.gotBytes {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	p.used += len(line)
	if p.used > p.maxBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrHeaderTooLarge, p.maxBytes)
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// parseStatusLine reads "HTTP/1.1 200 OK".
func parseStatusLine(line []byte, h *head) error {
	if len(line) < 12 || line[8] != ' ' || string(line[:5]) != "HTTP/" || line[6] != '.' ||
		line[5] < '0' || line[5] > '9' || line[7] < '0' || line[7] > '9' {
		return fmt.Errorf("%w: status line %q", ErrMalformed, clip(line))
	}
	h.major, h.minor = int(line[5]-'0'), int(line[7]-'0')
	if h.major != 1 {
		return fmt.Errorf("%w: unsupported protocol %q", ErrMalformed, clip(line[:8]))
	}
	h.proto = "HTTP/1.1"
	if h.minor == 0 {
		h.proto = "HTTP/1.0"
	} else if h.minor != 1 {
		h.proto = string(line[:8])
	}
	code := line[9:12]
	if code[0] < '1' || code[0] > '9' || code[1] < '0' || code[1] > '9' || code[2] < '0' || code[2] > '9' ||
		(len(line) > 12 && line[12] != ' ') {
		return fmt.Errorf("%w: status line %q", ErrMalformed, clip(line))
	}
	h.status = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	reason := line[min(len(line), 13):]
	if st := http.StatusText(h.status); st != "" && string(reason) == st {
		h.statusText = statusLines[h.status]
	} else {
		h.statusText = string(line[9:])
	}
	return nil
}

// statusLines holds "200 OK" and the like for every status net/http names, so that
// a response with the usual reason allocates no status string.
var statusLines = func() map[int]string {
	m := make(map[int]string)
	for code := 100; code < 600; code++ {
		if t := http.StatusText(code); t != "" {
			m[code] = strconv.Itoa(code) + " " + t
		}
	}
	return m
}()

// readFields reads header lines up to the empty line into p.fields.
func (p *parser) readFields(br *bufio.Reader, h *head) error {
	p.fields, p.scratch = p.fields[:0], p.scratch[:0]
	h.length, h.chunked, h.close, h.keepAlive = -1, false, false, false
	for {
		line, err := p.readLine(br, h)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		if len(p.fields) >= p.maxCount {
			return fmt.Errorf("%w: over %d header lines", ErrHeaderTooLarge, p.maxCount)
		}
		if line[0] == ' ' || line[0] == '\t' {
			return fmt.Errorf("%w: obsolete line folding", ErrMalformed)
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return fmt.Errorf("%w: header line %q", ErrMalformed, clip(line))
		}
		k, v := line[:colon], trimOWS(line[colon+1:])
		if !validKey(k) {
			return fmt.Errorf("%w: header name %q", ErrMalformed, clip(k))
		}
		if !validValue(v) {
			return fmt.Errorf("%w: header value of %q", ErrMalformed, clip(k))
		}
		var f field
		if f.key = internKey(k); f.key != "" {
			f.keyStr = true
		} else {
			f.kOff = len(p.scratch)
			p.scratch = appendCanonical(p.scratch, k)
			f.kEnd = len(p.scratch)
		}
		if err := p.meaning(f.key, v, h); err != nil {
			return err
		}
		if f.val = internValue(v); f.val != "" || len(v) == 0 {
			f.vStr, f.interned = true, true
		} else if s, ok := p.reuse(f, v); ok {
			f.val, f.vStr = s, true
		} else {
			f.vOff = len(p.scratch)
			p.scratch = append(p.scratch, v...)
			f.vEnd = len(p.scratch)
		}
		p.fields = append(p.fields, f)
	}
}

// meaning notes what the transport itself needs from a header.
func (p *parser) meaning(key string, v []byte, h *head) error {
	switch key {
	case "Content-Length":
		n, ok := parseLength(v)
		if !ok || (h.length >= 0 && h.length != n) {
			return fmt.Errorf("%w: Content-Length %q", ErrMalformed, clip(v))
		}
		h.length = n
	case "Transfer-Encoding":
		if h.minor == 0 {
			return nil // ignored in HTTP/1.0, as net/http does
		}
		if !asciiEqualFold(v, "chunked") || h.chunked {
			return fmt.Errorf("%w: unsupported Transfer-Encoding %q", ErrMalformed, clip(v))
		}
		h.chunked = true
	case "Connection":
		for tok := range bytes.SplitSeq(v, []byte(",")) {
			tok = trimOWS(tok)
			if asciiEqualFold(tok, "close") {
				h.close = true
			} else if asciiEqualFold(tok, "keep-alive") {
				h.keepAlive = true
			}
		}
	}
	return nil
}

// reuse returns the string of the last response's value for the same key when
// the bytes are equal.
func (p *parser) reuse(f field, v []byte) (string, bool) {
	if !f.keyStr {
		return "", false
	}
	for _, kv := range p.prev {
		if kv.key == f.key && kv.val == string(v) {
			return kv.val, true
		}
	}
	return "", false
}

// build fills hdr from p.fields: one string for all the bytes that are not
// interned or reused, values slices from vals while it lasts.
func (p *parser) build(hdr http.Header, vals []string) {
	var s string
	if len(p.scratch) > 0 {
		s = string(p.scratch)
	}
	p.prev = p.prev[:0]
	for i := range p.fields {
		f := &p.fields[i]
		if !f.keyStr {
			f.key = s[f.kOff:f.kEnd]
		}
		if !f.vStr {
			f.val = s[f.vOff:f.vEnd]
		}
		if f.keyStr && !f.interned {
			p.prev = append(p.prev, kvPair{f.key, f.val})
		}
		if old, ok := hdr[f.key]; ok {
			hdr[f.key] = append(old, f.val)
			continue
		}
		if len(vals) > 0 {
			vals[0] = f.val
			hdr[f.key] = vals[:1:1]
			vals = vals[1:]
		} else {
			hdr[f.key] = []string{f.val}
		}
	}
}

// parseLength parses a Content-Length value: decimal digits only.
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// clip shortens peer bytes quoted in an error.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
