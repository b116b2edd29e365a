package h1

import (
	"net/http"
	"sync"
)

// responses holds the responses given back by Recycle.
var responses sync.Pool

// newResponse returns a response to fill: one given back by Recycle, with its
// empty Header map, or a new one.
func newResponse() *response {
	if r, _ := responses.Get().(*response); r != nil {
		return r
	}
	return new(response)
}

// Recycle gives back resp, a response of a Transport whose body has ended (read
// to its end or closed), so that a later response reuses it and its Header
// map: the caller must not use resp, its Header or its Body again (strings
// taken from them stay valid). A response of another RoundTripper, one without
// a body and one whose body has not ended are left alone. The Streamable HTTP
// client recycles the JSON replies it has read: a response and its header map
// are most of what a call allocates here.
func Recycle(resp *http.Response) {
	b, ok := resp.Body.(*body)
	if !ok || b.r == nil || &b.r.resp != resp {
		return
	}
	b.mu.Lock()
	ended := b.done && !b.reading
	b.mu.Unlock()
	if !ended {
		return
	}
	r := b.r
	h := r.resp.Header
	if len(h) > 64 {
		h = nil // not worth keeping
	}
	clear(h)
	*r = response{}
	r.resp.Header = h
	responses.Put(r)
}
