package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpkit/mcpkit"
)

// errDebugNotLoopback refuses a --debug-addr that other machines could reach.
var errDebugNotLoopback = errors.New("--debug-addr: must be a loopback address (127.0.0.1:PORT or [::1]:PORT): the profiles show the server's internals")

// registerDebugFlag declares --debug-addr on fl.
func registerDebugFlag(fl *pflag.FlagSet, addr *string) {
	fl.StringVar(addr, "debug-addr", "", "serve Go's runtime profiles (net/http/pprof: goroutines, heap, CPU) at http://ADDR/debug/pprof/ on a loopback address, for diagnosis")
}

// serveDebug serves net/http/pprof on addr, a loopback address, until ctx ends,
// and announces the address on stderr ("mcpkit: debug profiles at
// http://ADDR/debug/pprof/") and returns it. An empty addr serves nothing. The
// listener is open when serveDebug returns; wait waits for it to close.
func serveDebug(ctx context.Context, addr string) (bound string, wait func(), err error) {
	if addr == "" {
		return "", func() {}, nil
	}
	ln, err := mcpkit.Listen(addr)
	if err != nil {
		return "", nil, fmt.Errorf("--debug-addr: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		return "", nil, errors.Join(errDebugNotLoopback, ln.Close())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := mcpkit.NewHTTPServer("", mux)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns once Close below closes the listener
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Fprintf(os.Stderr, "mcpkit: debug profiles at http://%s/debug/pprof/\n", ln.Addr())
	return ln.Addr().String(), func() { <-done }, nil
}
