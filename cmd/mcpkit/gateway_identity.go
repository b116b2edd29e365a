package main

import (
	"net/http"

	"github.com/mcpkit/mcpkit/transport"
)

// identityTransport tells HTTP upstreams who the gateway's caller is: each
// request made for a call carries the caller's principal
// (transport.PrincipalFrom of the call's context) in the header --identity-header
// names, and never the client's token, which the gateway keeps. A request
// without a principal (the gateway's own pings, an unauthenticated gateway)
// carries no such header, whatever the configuration set.
type identityTransport struct {
	base   http.RoundTripper
	header string // canonical form
}

func (t *identityTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	p := transport.PrincipalFrom(r.Context())
	_, set := r.Header[t.header]
	if p == "" && !set {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not modify the request
	if p == "" {
		delete(r.Header, t.header)
	} else {
		r.Header[t.header] = []string{p}
	}
	return t.base.RoundTrip(r)
}

// withIdentity wraps clientFor (upstream.Options.HTTPClientFor) so that every
// client it gives sends the principal in header; an empty header leaves it as is.
func withIdentity(header string, clientFor func(name, url string) *http.Client) func(name, url string) *http.Client {
	if header == "" {
		return clientFor
	}
	header = http.CanonicalHeaderKey(header)
	return func(name, url string) *http.Client {
		c := clientFor(name, url)
		var base http.RoundTripper = plainHTTP()
		if c != nil && c.Transport != nil {
			base = c.Transport
		}
		return &http.Client{Transport: &identityTransport{base: base, header: header}}
	}
}
