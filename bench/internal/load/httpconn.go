package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"time"
)

// httpConn is a minimal HTTP/1.1 client on one keep-alive connection: it POSTs a
// body and reads the whole response (Content-Length, chunked, or until close).
// It exists because net/http's client costs more CPU per request than the servers
// under test, and the load generator has one core: a heavy client would measure
// itself. It is not safe for concurrent use; each worker owns one.
type httpConn struct {
	addr    string
	timeout time.Duration
	conn    net.Conn
	br      *bufio.Reader
	req     []byte // request buffer, reused
	body    []byte // response body buffer, reused
	header  string // extra header lines sent with every request, each ending in CRLF
	// readBuffer is the size of br; 0 means 32 KiB.
	readBuffer int
}

// httpResponse is what post returns. Body aliases the connection's buffer: it is
// valid until the next post.
type httpResponse struct {
	Status      int
	ContentType string
	SessionID   string
	RetryAfter  string // the Retry-After header, if any
	Body        []byte
}

// errMalformed marks a response that does not parse as HTTP/1.1.
var errMalformed = errors.New("malformed HTTP response")

// newHTTPConn returns a client for addr (host:port); it dials on first use. Each
// exchange must complete within timeout.
func newHTTPConn(addr string, timeout time.Duration) *httpConn {
	return &httpConn{addr: addr, timeout: timeout}
}

// close closes the connection, if open.
func (h *httpConn) close() {
	if h.conn != nil {
		_ = h.conn.Close()
		h.conn = nil
	}
}

// post sends one POST to path with body and the MCP headers (the session id when
// not empty, the protocol version when not empty) and reads the whole response. On
// any error the connection is closed; the next post dials again.
func (h *httpConn) post(path string, body []byte, sessionID, protocolVersion string) (httpResponse, error) {
	if h.conn == nil {
		c, err := net.DialTimeout("tcp", h.addr, h.timeout)
		if err != nil {
			return httpResponse{}, err
		}
		h.conn = c
		if h.br == nil {
			size := h.readBuffer
			if size <= 0 {
				size = 32 << 10
			}
			h.br = bufio.NewReaderSize(c, size)
		} else {
			h.br.Reset(c)
		}
	}
	r := h.req[:0]
	r = append(r, "POST "...)
	r = append(r, path...)
	r = append(r, " HTTP/1.1\r\nHost: "...)
	r = append(r, h.addr...)
	r = append(r, "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"...)
	if sessionID != "" {
		r = append(r, "Mcp-Session-Id: "...)
		r = append(r, sessionID...)
		r = append(r, "\r\n"...)
	}
	if protocolVersion != "" {
		r = append(r, "Mcp-Protocol-Version: "...)
		r = append(r, protocolVersion...)
		r = append(r, "\r\n"...)
	}
	r = append(r, h.header...)
	r = append(r, "Content-Length: "...)
	r = strconv.AppendInt(r, int64(len(body)), 10)
	r = append(r, "\r\n\r\n"...)
	r = append(r, body...)
	h.req = r

	_ = h.conn.SetDeadline(time.Now().Add(h.timeout))
	if _, err := h.conn.Write(r); err != nil {
		h.close()
		return httpResponse{}, err
	}
	resp, keep, err := h.readResponse()
	if err != nil || !keep {
		h.close()
	}
	return resp, err
}

// readResponse reads one response; keep reports whether the connection may be reused.
func (h *httpConn) readResponse() (resp httpResponse, keep bool, err error) {
	line, err := h.readLine()
	if err != nil {
		return resp, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return resp, false, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	resp.Status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return resp, false, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	keep = true
	contentLength := int64(-1)
	chunked := false
	for {
		line, err = h.readLine()
		if err != nil {
			return resp, false, err
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return resp, false, fmt.Errorf("%w: header %q", errMalformed, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "Content-Length"):
			contentLength, err = strconv.ParseInt(string(value), 10, 64)
			if err != nil || contentLength < 0 {
				return resp, false, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
		case asciiEqualFold(name, "Transfer-Encoding"):
			chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
		case asciiEqualFold(name, "Content-Type"):
			resp.ContentType = string(value)
		case asciiEqualFold(name, "Mcp-Session-Id"):
			resp.SessionID = string(value)
		case asciiEqualFold(name, "Retry-After"):
			resp.RetryAfter = string(value)
		case asciiEqualFold(name, "Connection"):
			if asciiEqualFold(value, "close") {
				keep = false
			}
		}
	}
	h.body = h.body[:0]
	switch {
	case resp.Status == 204 || resp.Status == 304 || resp.Status/100 == 1:
	case chunked:
		if err := h.readChunked(); err != nil {
			return resp, false, err
		}
	case contentLength >= 0:
		if err := h.readN(contentLength); err != nil {
			return resp, false, err
		}
	default: // delimited by the end of the connection
		b, err := io.ReadAll(io.LimitReader(h.br, maxBody+1))
		if err != nil {
			return resp, false, err
		}
		if len(b) > maxBody {
			return resp, false, fmt.Errorf("%w: body over %d bytes", errMalformed, maxBody)
		}
		h.body = append(h.body, b...)
		keep = false
	}
	resp.Body = h.body
	return resp, keep, nil
}

// readChunked reads a chunked body into h.body, trailers included.
func (h *httpConn) readChunked() error {
	for {
		line, err := h.readLine()
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if n == 0 {
			for { // trailers, up to the empty line
				line, err := h.readLine()
				if err != nil {
					return err
				}
				if len(line) == 0 {
					return nil
				}
			}
		}
		if err := h.readN(n); err != nil {
			return err
		}
		crlf, err := h.readLine()
		if err != nil {
			return err
		}
		if len(crlf) != 0 {
			return fmt.Errorf("%w: no CRLF after chunk", errMalformed)
		}
	}
}

// maxBody bounds a response body: a benchmark answer is a few kilobytes, and a
// length header from a broken server must not make the load generator allocate it.
const maxBody = 64 << 20

// readN appends exactly n bytes of the body to h.body. The buffer grows with what
// has arrived, never by the announced size at once.
func (h *httpConn) readN(n int64) error {
	if n > maxBody-int64(len(h.body)) {
		return fmt.Errorf("%w: body over %d bytes", errMalformed, maxBody)
	}
	for n > 0 {
		step := min(n, 64<<10)
		start := len(h.body)
		h.body = slices.Grow(h.body, int(step))[:start+int(step)]
		if _, err := io.ReadFull(h.br, h.body[start:]); err != nil {
			return err
		}
		n -= step
	}
	return nil
}

// readLine returns one line without its CRLF (or LF). The slice is valid until the
// next read.
func (h *httpConn) readLine() ([]byte, error) {
	line, err := h.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line over %d bytes", errMalformed, h.br.Size())
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// asciiEqualFold reports whether b equals s, ignoring ASCII case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
