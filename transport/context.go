package transport

import (
	"context"
	"net/http"
)

// headerKey is the context key of WithHeader.
type headerKey struct{}

// WithHeader returns a copy of ctx that asks an HTTP client transport to add the
// fields of h to the HTTP request carrying the message written with that context
// ([Conn].Write). It is how a layer above the transport sends headers that depend on
// the message, such as the Mcp-Param-{Name} headers a 2026-07-28 tools/call mirrors
// from its arguments. Transports that are not HTTP ignore it, and HTTP transports
// do not let it replace the headers they set themselves. h must not be modified
// after the call.
func WithHeader(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headerKey{}, h)
}

// HeaderFromContext returns the header set by [WithHeader], or nil.
func HeaderFromContext(ctx context.Context) http.Header {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h
}

type principalKey struct{}

// WithPrincipal returns a context that names the authenticated caller. HTTP
// authentication middleware (auth/resource) sets it on the request's context,
// and the HTTP handlers pass the request's values on to the handler's context.
// A transport that shares sessions between replicas binds each session to the
// principal that created it; the mcp server binds every requestState it seals
// to it, so a state minted for one caller is refused for another, and owns
// tasks by it. [PrincipalFrom] reads it; it is the one door for the principal.
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalFrom returns the principal set by WithPrincipal ("" when none).
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
