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
