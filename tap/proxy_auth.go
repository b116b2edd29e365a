package tap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// An OAuth-protected upstream cannot be reached by passing the client's OAuth
// through the tap: the client would obtain a token for the resource it talks
// to, the tap (audience binding, RFC 8707), which the upstream refuses, and the
// upstream's metadata names a resource the tap's URL does not lie under, which
// the client refuses. Passing the client's token on would be the token
// passthrough MCP forbids anyway. So with an Authorizer the tap is a client of
// the upstream in its own right: it removes the client's Authorization and DPoP
// fields, presents its own token on every request it relays, and when the
// upstream still challenges one (401, or 403 insufficient_scope) it sends that
// request again through the Authorizer, which authorizes first, and relays that
// answer instead. The client sees an upstream that needs no authorization.

// Authorizer makes an HTTP tap authorize its requests to a protected upstream
// itself (HTTPOptions.Authorizer). *auth.Transport is one.
type Authorizer interface {
	// AuthorizationHeader returns the header fields that present the tap's
	// credentials on a request with method to u; none before the first
	// authorization.
	AuthorizationHeader(ctx context.Context, method string, u *url.URL) (http.Header, error)
	// RoundTrip sends a request the upstream challenged again, authorizing
	// first: it obtains a token (or one with more scopes) and answers with the
	// upstream's response to the request sent with it.
	RoundTrip(*http.Request) (*http.Response, error)
}

// resend is what the tap keeps of a request to send it again when the
// upstream challenges it: its header (the client's fields the tap forwards)
// and its body.
type resend struct {
	header http.Header
	body   []byte
}

// isCredential reports whether a request field carries the client's
// credentials, which a tap that authorizes itself does not forward.
func isCredential(name []byte) bool {
	return asciiEqualFold(name, "Authorization") || asciiEqualFold(name, "DPoP")
}

// upstreamURL is the upstream's URL for a request target (origin-form).
func (p *HTTPTap) upstreamURL(target string) (*url.URL, error) {
	return url.Parse(p.opts.Upstream.Scheme + "://" + p.upHost + target)
}

// credentials returns the header lines ("Name: value\r\n") that present the
// tap's credentials on x, when it has an Authorizer.
func (c *proxyConn) credentials(x *exchange) ([]byte, error) {
	a := c.p.opts.Authorizer
	if a == nil {
		return nil, nil
	}
	u, err := c.p.upstreamURL(x.target)
	if err != nil {
		return nil, err
	}
	h, err := a.AuthorizationHeader(c.ctx, x.method, u)
	if err != nil {
		return nil, err
	}
	var b []byte
	for name, values := range h {
		for _, v := range values {
			if strings.ContainsAny(name+v, "\r\n") {
				return nil, errors.New("a credential holds a line break")
			}
			b = append(append(append(append(b, name...), ": "...), v...), "\r\n"...)
		}
	}
	return b, nil
}

// authorizationFailed answers x with a 502 saying why the tap could not
// authorize it; closeConn says that the connection ends after it.
func (c *proxyConn) authorizationFailed(x *exchange, err error, closeConn bool) {
	msg := "mcpkit tap: authorizing to the upstream failed: " + err.Error()
	c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
		HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: http.StatusBadGateway, ContentType: "text/plain; charset=utf-8"}, Text: msg})
	_ = c.writeLocal(http.StatusBadGateway, msg, closeConn)
}

// challenged reports whether the response head h to x challenges the tap for
// authorization, and x can be sent again: a 401, or a 403 insufficient_scope,
// with a short body that is not a stream.
func (c *proxyConn) challenged(x *exchange, h *head, mode int) bool {
	if x.again == nil {
		return false
	}
	switch {
	case h.status == http.StatusUnauthorized:
	case h.status == http.StatusForbidden:
		ch, _ := h.get("WWW-Authenticate")
		if !strings.Contains(ch, "insufficient_scope") {
			return false
		}
	default:
		return false
	}
	ct, _ := h.get("Content-Type")
	return !isEventStream(ct) && (mode == bodyNone || mode == bodyChunked || (mode == bodyLength && h.contentLength <= smallBody))
}

// reauthorize handles the challenge h (whose body is still to be read from ubr)
// to x: it reads the challenge's body, sends x again through the Authorizer and
// relays that answer. It reports whether the connection may carry another
// exchange.
func (c *proxyConn) reauthorize(x *exchange, h *head, mode int, ubr *bufio.Reader) (bool, error) {
	var err error
	switch mode {
	case bodyLength:
		_, err = ubr.Discard(int(h.contentLength))
	case bodyChunked:
		err = discardBody(newBodyReader(ubr, bodyChunked, 0)) // whatever its chunk sizes say: nothing is kept
	}
	if err != nil {
		c.badGateway(x, noEOF(err))
		return false, err
	}
	keep := !x.closeAfter && !h.closeConn
	c.p.record(&capture.Record{Kind: capture.KindHTTPError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
		HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: h.status},
		Text: fmt.Sprintf("%d %s: the tap authorizes to the upstream and sends the request again", h.status, http.StatusText(h.status))})

	again := x.again
	x.again = nil // the next answer is relayed, whatever it is
	u, err := c.p.upstreamURL(x.target)
	var req *http.Request
	if err == nil {
		req, err = http.NewRequestWithContext(c.ctx, x.method, u.String(), bytes.NewReader(again.body))
	}
	var resp *http.Response
	if err == nil {
		req.Header = again.header
		req.Header.Set("Accept-Encoding", "identity") // as the tap asks: a body it can read
		resp, err = c.p.opts.Authorizer.RoundTrip(req)
	}
	if err != nil {
		c.authorizationFailed(x, err, !keep)
		return keep, nil
	}
	ok, err := c.relayHTTPResponse(x, resp)
	return keep && ok, err
}

// relayHTTPResponse relays resp, the answer to x sent again, as the tap relays
// the upstream's answers: written out as HTTP/1.1 (chunked when its length is
// not known) into a pipe that relayResponse reads. The connection it came on
// is not the client's upstream connection, so its own framing is not relayed.
func (c *proxyConn) relayHTTPResponse(x *exchange, resp *http.Response) (bool, error) {
	defer resp.Body.Close()
	resp.Header.Del("Connection")
	resp.Close = false
	if resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 {
		resp.TransferEncoding = []string{"chunked"}
	}
	pr, pw := io.Pipe()
	written := make(chan struct{})
	go func() {
		defer close(written)
		pw.CloseWithError(resp.Write(pw))
	}()
	keep, err := c.relayResponse(x, bufio.NewReader(pr))
	_ = pr.Close()        // a writer still writing stops
	_ = resp.Body.Close() // and so does one waiting for the body
	<-written
	return keep, err
}
