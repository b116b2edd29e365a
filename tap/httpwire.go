package tap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// The HTTP tap relays HTTP/1.1 itself rather than through net/http: on two cores a
// net/http server and client in the middle cost several times what the server under
// test spends on a call (measured: see bench_test.go), and a tap must not change what
// it observes. Heads are parsed only as far as relaying and recording need; header
// lines are forwarded as they came, in their order and spelling.

// maxHeadBytes bounds a request or response head (start line and header lines).
const maxHeadBytes = 1 << 20

// Errors of head parsing.
var (
	errHeadTooLarge = errors.New("header section too large")
	errMalformed    = errors.New("malformed HTTP message")
	errBodyTooLarge = errors.New("request body too large")
)

// field is one header line, as offsets into head.buf: name and value (trimmed).
type field struct {
	name, value span
	line        span // the whole line without its line end
}

type span struct{ start, end int }

// head is a parsed request or response head. buf holds the lines; the spans point
// into it. A head is reused from message to message.
type head struct {
	buf    []byte
	start  span // request line or status line
	fields []field

	// From the start line.
	method, target span // requests
	minor          int  // HTTP/1.<minor>
	status         int  // responses

	// From the fields.
	contentLength int64 // -1 when absent
	chunked       bool  // Transfer-Encoding ends in chunked
	otherTE       bool  // a Transfer-Encoding other than chunked
	closeConn     bool  // Connection: close (or HTTP/1.0 without keep-alive)
	upgrade       bool  // Upgrade present with Connection: upgrade
	expect100     bool  // Expect: 100-continue
	connTokens    []span
}

func (h *head) str(s span) string   { return string(h.buf[s.start:s.end]) }
func (h *head) bytes(s span) []byte { return h.buf[s.start:s.end] }

// strAs is str, returning *prev itself (no allocation) when the text is the
// same, else keeping the new string in *prev: the method, target and most
// fields repeat from one message of a connection to the next.
func (h *head) strAs(s span, prev *string) string {
	if b := h.buf[s.start:s.end]; string(b) != *prev {
		*prev = string(b)
	}
	return *prev
}

// getAs is get with strAs's reuse of *prev.
func (h *head) getAs(name string, prev *string) (string, bool) {
	for _, f := range h.fields {
		if asciiEqualFold(h.bytes(f.name), name) {
			return h.strAs(f.value, prev), true
		}
	}
	return "", false
}

// has reports whether a field named name is present.
func (h *head) has(name string) bool {
	for _, f := range h.fields {
		if asciiEqualFold(h.bytes(f.name), name) {
			return true
		}
	}
	return false
}

// get returns the value of the first field named name (case-insensitively).
func (h *head) get(name string) (string, bool) {
	for _, f := range h.fields {
		if asciiEqualFold(h.bytes(f.name), name) {
			return h.str(f.value), true
		}
	}
	return "", false
}

// read reads a head from br: the start line and the header lines up to the blank
// line. Leading blank lines (allowed before a request) are skipped.
func (h *head) read(br *bufio.Reader) error {
	h.buf = h.buf[:0]
	h.fields = h.fields[:0]
	h.connTokens = h.connTokens[:0]
	h.contentLength = -1
	h.chunked, h.otherTE, h.closeConn, h.upgrade, h.expect100 = false, false, false, false, false
	first := true
	for {
		line, err := readLine(br, &h.buf)
		if err != nil {
			if errors.Is(err, io.EOF) && len(h.buf) == 0 && first {
				return io.EOF
			}
			return err
		}
		if len(h.buf) > maxHeadBytes {
			return errHeadTooLarge
		}
		if line.start == line.end {
			if first {
				continue
			}
			return nil
		}
		if first {
			h.start = line
			first = false
			continue
		}
		if c := h.buf[line.start]; c == ' ' || c == '\t' {
			return fmt.Errorf("%w: obsolete line folding", errMalformed)
		}
		colon := bytes.IndexByte(h.buf[line.start:line.end], ':')
		if colon <= 0 {
			return fmt.Errorf("%w: header line %q", errMalformed, h.buf[line.start:line.end])
		}
		f := field{line: line, name: span{line.start, line.start + colon}}
		v := span{line.start + colon + 1, line.end}
		for v.start < v.end && (h.buf[v.start] == ' ' || h.buf[v.start] == '\t') {
			v.start++
		}
		for v.end > v.start && (h.buf[v.end-1] == ' ' || h.buf[v.end-1] == '\t') {
			v.end--
		}
		f.value = v
		h.fields = append(h.fields, f)
	}
}

// readLine appends the next line of br, without its line end (LF or CRLF), to buf
// and returns its span.
func readLine(br *bufio.Reader, buf *[]byte) (span, error) {
	start := len(*buf)
	for {
		chunk, err := br.ReadSlice('\n')
		*buf = append(*buf, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(*buf) > maxHeadBytes {
				return span{}, errHeadTooLarge
			}
			continue
		}
		if errors.Is(err, io.EOF) && len(*buf) > start {
			err = io.ErrUnexpectedEOF
		}
		*buf = (*buf)[:start]
		return span{}, err
	}
	end := len(*buf) - 1
	if end > start && (*buf)[end-1] == '\r' {
		end--
	}
	return span{start, end}, nil
}

// parseFraming reads the fields every message needs: length, transfer coding,
// connection options.
func (h *head) parseFraming() error {
	keepAlive := false
	for _, f := range h.fields {
		name, value := h.bytes(f.name), h.bytes(f.value)
		switch {
		case asciiEqualFold(name, "Content-Length"):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 || (h.contentLength >= 0 && n != h.contentLength) {
				return fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
			h.contentLength = n
		case asciiEqualFold(name, "Transfer-Encoding"):
			last := value
			if i := bytes.LastIndexByte(value, ','); i >= 0 {
				last = bytes.TrimSpace(value[i+1:])
			}
			if asciiEqualFold(last, "chunked") {
				h.chunked = true
			} else {
				h.otherTE = true
			}
		case asciiEqualFold(name, "Connection"):
			for _, tok := range splitTokens(h, f.value) {
				t := h.bytes(tok)
				switch {
				case asciiEqualFold(t, "close"):
					h.closeConn = true
				case asciiEqualFold(t, "keep-alive"):
					keepAlive = true
				case asciiEqualFold(t, "upgrade"):
					h.upgrade = true
				}
				h.connTokens = append(h.connTokens, tok)
			}
		case asciiEqualFold(name, "Expect"):
			h.expect100 = asciiEqualFold(value, "100-continue")
		}
	}
	if h.minor == 0 && !keepAlive {
		h.closeConn = true
	}
	if h.chunked {
		h.contentLength = -1 // Transfer-Encoding overrides Content-Length
	}
	return nil
}

// splitTokens splits a comma-separated field value into trimmed tokens.
func splitTokens(h *head, v span) []span {
	var out []span
	start := v.start
	for i := v.start; i <= v.end; i++ {
		if i == v.end || h.buf[i] == ',' {
			s := span{start, i}
			for s.start < s.end && (h.buf[s.start] == ' ' || h.buf[s.start] == '\t') {
				s.start++
			}
			for s.end > s.start && (h.buf[s.end-1] == ' ' || h.buf[s.end-1] == '\t') {
				s.end--
			}
			if s.start < s.end {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	return out
}

// parseRequestLine parses "METHOD target HTTP/1.x".
func (h *head) parseRequestLine() error {
	line := h.bytes(h.start)
	sp1 := bytes.IndexByte(line, ' ')
	sp2 := bytes.LastIndexByte(line, ' ')
	if sp1 <= 0 || sp2 <= sp1+1 {
		return fmt.Errorf("%w: request line %q", errMalformed, line)
	}
	minor, ok := httpMinor(line[sp2+1:])
	if !ok {
		return fmt.Errorf("%w: request line %q", errMalformed, line)
	}
	h.minor = minor
	h.method = span{h.start.start, h.start.start + sp1}
	h.target = span{h.start.start + sp1 + 1, h.start.start + sp2}
	return nil
}

// parseStatusLine parses "HTTP/1.x NNN reason".
func (h *head) parseStatusLine() error {
	line := h.bytes(h.start)
	if len(line) < 12 || line[8] != ' ' {
		return fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	minor, ok := httpMinor(line[:8])
	code, err := strconv.Atoi(string(line[9:12]))
	if !ok || err != nil || code < 100 || code > 999 || (len(line) > 12 && line[12] != ' ') {
		return fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	h.minor, h.status = minor, code
	return nil
}

// httpMinor parses "HTTP/1.0" or "HTTP/1.1".
func httpMinor(v []byte) (int, bool) {
	if len(v) != 8 || string(v[:7]) != "HTTP/1." || v[7] < '0' || v[7] > '9' {
		return 0, false
	}
	return int(v[7] - '0'), true
}

// isHopByHop reports whether a field belongs to one connection and so is not
// relayed: the fixed hop-by-hop fields, and any the Connection field names.
func (h *head) isHopByHop(f field) bool {
	name := h.bytes(f.name)
	for _, n := range [...]string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "TE", "Trailer", "Upgrade"} {
		if asciiEqualFold(name, n) {
			return true
		}
	}
	for _, tok := range h.connTokens {
		if asciiEqualFold(name, string(h.bytes(tok))) {
			return true
		}
	}
	return false
}

// readChunkedBody reads a chunked body from br into dst, through the trailer
// section, and returns it. A body of more than limit bytes is errBodyTooLarge,
// found from the chunk sizes before their data is read. The buffer grows with
// the data that arrives, never by what a chunk size announces.
func readChunkedBody(br *bufio.Reader, dst []byte, limit int64) ([]byte, error) {
	var line []byte
	for {
		n, err := readChunkSize(br, &line)
		if err != nil {
			return dst, err
		}
		if n == 0 {
			return dst, skipTrailers(br, &line)
		}
		if n > limit-int64(len(dst)) {
			return dst, errBodyTooLarge
		}
		if dst, err = readBodyN(br, dst, n); err != nil {
			return dst, err
		}
		if err := readCRLF(br); err != nil {
			return dst, err
		}
	}
}

// readBodyN appends the next n bytes of br to dst. The caller has checked n
// against its cap; the buffer still grows only as the bytes arrive (a client
// that announces a large body and sends little holds little memory).
func readBodyN(br *bufio.Reader, dst []byte, n int64) ([]byte, error) {
	const step = 64 << 10
	for n > 0 {
		k := int(min(n, step))
		start := len(dst)
		dst = slices.Grow(dst, k)[:start+k]
		if _, err := io.ReadFull(br, dst[start:]); err != nil {
			return dst[:start], noEOF(err)
		}
		n -= int64(k)
	}
	return dst, nil
}

// readChunkSize reads a chunk-size line (extensions ignored).
func readChunkSize(br *bufio.Reader, scratch *[]byte) (int64, error) {
	*scratch = (*scratch)[:0]
	sp, err := readLine(br, scratch)
	if err != nil {
		return 0, noEOF(err)
	}
	v := (*scratch)[sp.start:sp.end]
	if i := bytes.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 16, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: chunk size %q", errMalformed, v)
	}
	return n, nil
}

// skipTrailers reads the trailer section after the last chunk.
func skipTrailers(br *bufio.Reader, scratch *[]byte) error {
	for {
		*scratch = (*scratch)[:0]
		sp, err := readLine(br, scratch)
		if err != nil {
			return noEOF(err)
		}
		if sp.start == sp.end {
			return nil
		}
	}
}

func readCRLF(br *bufio.Reader) error {
	c, err := br.ReadByte()
	if err == nil && c == '\r' {
		c, err = br.ReadByte()
	}
	if err != nil {
		return noEOF(err)
	}
	if c != '\n' {
		return fmt.Errorf("%w: no line end after chunk data", errMalformed)
	}
	return nil
}

// noEOF turns a clean end inside a message into an unexpected one.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// appendChunk appends p as one chunk of a chunked body.
func appendChunk(b, p []byte) []byte {
	if len(p) == 0 {
		return b
	}
	b = strconv.AppendInt(b, int64(len(p)), 16)
	b = append(b, '\r', '\n')
	b = append(b, p...)
	return append(b, '\r', '\n')
}

// lastChunk ends a chunked body (no trailers).
const lastChunk = "0\r\n\r\n"

func asciiEqualFold[T string | []byte](a T, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := a[i], b[i]
		if x != y && lower(x) != lower(y) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
