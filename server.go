package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// The recommended settings of an http.Server serving MCP (NewHTTPServer), and
// the defaults of Serve and ListenAndServe. The tap's listener uses the same.
const (
	// DefaultReadHeaderTimeout bounds the reading of a request's header: a
	// connection that opens and sends nothing, or trickles its header, is
	// closed after it.
	DefaultReadHeaderTimeout = httpguard.DefaultReadHeaderTimeout
	// DefaultConnIdleTimeout closes a kept-alive connection that waits this
	// long for its next request (http.Server.IdleTimeout).
	DefaultConnIdleTimeout = httpguard.DefaultConnIdleTimeout
	// DefaultMaxHeaderBytes bounds a request's header: room for large
	// Authorization and Mcp-Param-* headers, while a thousand connections
	// trickling headers hold 64 MiB at most, not a GiB (net/http's default).
	DefaultMaxHeaderBytes = httpguard.DefaultMaxHeaderBytes
	// DefaultMaxConnections caps the connections Serve holds open.
	DefaultMaxConnections = httpguard.DefaultMaxConnections
	// DefaultShutdownTimeout bounds a graceful shutdown.
	DefaultShutdownTimeout = 5 * time.Second
)

// NewHTTPServer returns an http.Server for h at addr with the settings MCP
// needs against slow and idle clients:
//
//   - ReadHeaderTimeout DefaultReadHeaderTimeout, IdleTimeout
//     DefaultConnIdleTimeout and MaxHeaderBytes DefaultMaxHeaderBytes;
//   - no ReadTimeout and no WriteTimeout: both bound a whole request, which
//     would cut the SSE streams of long tool calls and listening clients. The
//     handlers bound each POST body's reading (BodyReadTimeout) and each write
//     to a stream (30 seconds) instead.
//
// Cap its connections too: serve it on LimitListener, as Serve does.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		IdleTimeout:       DefaultConnIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
	}
}

// Listen listens on the TCP address addr ("host:port"). An address without a
// host (":8080") binds 127.0.0.1, so that a server is reachable from other
// machines only when a host says so.
func Listen(addr string) (net.Listener, error) { return httpguard.Listen(addr) }

// LimitListener returns a listener that lets at most n connections accepted
// from ln be open at once: while n are open, Accept waits for one to close,
// and new clients wait in the kernel's accept queue. A flood of idle or slow
// connections then costs the server n descriptors at most, and never makes
// accept fail with "too many open files" (on which net/http retries in a
// loop), while the server's timeouts close the idle ones and let waiting
// clients in.
func LimitListener(ln net.Listener, n int) net.Listener { return httpguard.LimitListener(ln, n) }

// ListenAndServe serves srv over HTTP at addr (see Listen: an address without
// a host binds 127.0.0.1) until ctx ends, then shuts down gracefully; see
// Serve.
func ListenAndServe(ctx context.Context, addr string, srv *mcp.Server, opts *HTTPOptions) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, srv, opts)
}

// Serve serves srv over both HTTP transports (see NewHTTPHandler) on ln, with
// the recommended http.Server settings (see NewHTTPServer) and at most
// opts.MaxConnections connections, until ctx ends. Then it shuts down
// gracefully: the handler first (see HTTPHandler.Shutdown), then the
// http.Server, within opts.ShutdownTimeout, after which what remains is
// closed. It closes ln. It returns nil after a shutdown that ctx started and
// that finished in time, and otherwise the error that stopped it.
func Serve(ctx context.Context, ln net.Listener, srv *mcp.Server, opts *HTTPOptions) error {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	h := NewHTTPHandler(srv, &o)
	var handler http.Handler = h
	if o.Middleware != nil {
		handler = h.withProbes(o.Middleware(h))
		// The middleware may refuse a request (401) before h sees it: its
		// body is bounded from the start.
		inner := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			httpguard.BoundBody(w, r, h.bodyTimeout)
			inner.ServeHTTP(w, r)
		})
	}
	hs := NewHTTPServer("", handler)
	if o.ReadHeaderTimeout != 0 {
		hs.ReadHeaderTimeout = o.ReadHeaderTimeout // negative: none
	}
	if o.ConnIdleTimeout != 0 {
		hs.IdleTimeout = o.ConnIdleTimeout
	}
	hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	if n := connectionCap(o.MaxConnections, logger); n > 0 {
		ln = LimitListener(ln, n)
	}
	shutdownTimeout := o.ShutdownTimeout
	if shutdownTimeout <= 0 {
		shutdownTimeout = DefaultShutdownTimeout
	}

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-served: // the listener failed
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	err := errors.Join(h.Shutdown(shutdownCtx), hs.Shutdown(shutdownCtx))
	if err != nil {
		_ = hs.Close()
	}
	if serveErr == nil {
		if e := <-served; !errors.Is(e, http.ErrServerClosed) {
			serveErr = e
		}
	}
	if serveErr != nil {
		return fmt.Errorf("serving HTTP: %w", serveErr)
	}
	if err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// connectionCap returns the connection cap Serve applies (0 for none): n, or
// DefaultMaxConnections for 0, lowered to leave the process descriptors to
// spare under its limit (RLIMIT_NOFILE) — otherwise the cap would not stop
// accept from failing with "too many open files".
func connectionCap(n int, logger *slog.Logger) int {
	if n < 0 {
		return 0
	}
	if n == 0 {
		n = DefaultMaxConnections
	}
	if limit := descriptorLimit(); limit > 0 && limit < 1<<31 { // not unlimited
		const spare = 64 // listeners, the poller, standard streams, files the server opens
		if fit := max(int(limit)-spare, 1); n > fit {
			logger.Warn("mcpkit: lowering the connection cap to fit the file descriptor limit", "cap", fit, "asked", n, "limit", limit)
			n = fit
		}
	}
	return n
}

// ServeStdio serves srv on standard input and output (one session, with the
// client that started this process) until the client goes away or ctx ends;
// either way it returns nil. Standard output then carries protocol messages
// only: log to standard error.
func ServeStdio(ctx context.Context, srv *mcp.Server) error {
	err := srv.Run(ctx, stdio.NewProcessServerConn(nil))
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}
