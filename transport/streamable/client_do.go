// How a POST is sent: straight to the transport, and a redirect through
// net/http.

package streamable

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"sync"
)

// do sends a POST. With an http.Client that adds nothing to a request (no
// cookie jar, no timeout, no credentials in the URL), the request goes to its
// transport's RoundTrip directly: Client.Do would copy the request's headers
// for a redirect that (for a POST to an MCP endpoint) seldom comes. A redirect
// that does come is followed by sending the request again with Client.Do.
func (c *ClientConn) do(req *http.Request) (*http.Response, error) {
	hc := c.hc
	if hc.Jar != nil || hc.Timeout != 0 || req.URL.User != nil {
		return hc.Do(req)
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, &url.Error{Op: "Post", URL: c.url, Err: err}
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// Client.Do sends it again from the start and follows the redirect
		// by its rules (which headers go to another host, CheckRedirect).
		clientDiscard(resp)
		again := req.Clone(req.Context())
		if req.GetBody == nil { // a body of newRequest's, sent by h1
			if b, ok := req.Body.(*clientBody); ok {
				req.GetBody = func() (io.ReadCloser, error) { _, err := b.Seek(0, io.SeekStart); return b, err }
				again.GetBody = req.GetBody
			}
		}
		if again.Body, err = req.GetBody(); err != nil {
			return nil, &url.Error{Op: "Post", URL: c.url, Err: err}
		}
		if c.h1 != nil {
			return c.doRedirected(again)
		}
		return hc.Do(again)
	}
	return resp, nil
}

// doRedirected sends a redirected request through net/http, as without h1.
// Close ends a request on h1 through h1's Interrupter, which net/http does not
// know: the request gets the connection's cancellation too, until its body is
// closed.
func (c *ClientConn) doRedirected(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(c.ctx, cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { stop(); cancel() }}
	return resp, nil
}

// releasingBody runs release once, when the body is closed.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

// Close implements io.Closer.
func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
