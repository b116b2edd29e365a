// Package serverkit is the scaffolding shared by the benchmark's server binaries
// (cmd/srv-*): flags, listening on a loopback port, serving stdio, profiles, the
// statistics the load generator asks for with signals, and a clean stop.
//
// Every server binary is the same program around a different MCP implementation:
//
//	-transport http|stdio   what to serve (default http)
//	-addr 127.0.0.1:0       where to listen (http); the bound address is printed on
//	                        standard output as "LISTEN <host:port>"
//	-sessionless            Streamable HTTP without sessions
//	-cpuprofile FILE        write a CPU profile at exit
//	-memprofile FILE        write an allocation profile at exit
//
// Signals: SIGUSR1 prints one line "BENCHSTATS ..." (cumulative allocations, heap,
// goroutines) on standard error; SIGUSR2 does the same after a garbage collection,
// so that the heap figure is the live heap; SIGINT and SIGTERM stop the server,
// write the profiles and exit 0. A stdio server also exits when its input ends.
package serverkit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit"
)

// StatsPrefix starts the statistics line a server prints on standard error when it
// receives SIGUSR1 or SIGUSR2.
const StatsPrefix = "BENCHSTATS"

// ListenPrefix starts the line an HTTP server prints on standard output once it
// listens: "LISTEN 127.0.0.1:PORT".
const ListenPrefix = "LISTEN"

// Impl is what one server binary provides: its HTTP handler and its stdio loop.
type Impl struct {
	// Name identifies the implementation in messages.
	Name string
	// HTTP returns the handler to mount at /mcp; sessionless selects the transport's
	// sessionless mode.
	HTTP func(sessionless bool) (http.Handler, error)
	// Stdio serves one session on in and out until in ends (nil) or ctx is done.
	Stdio func(ctx context.Context, in io.Reader, out io.Writer) error
}

// flags are the command line of a server binary.
type flags struct {
	transport   string
	addr        string
	sessionless bool
	cpuProfile  string
	memProfile  string
}

// Main parses the command line, serves impl until it is told to stop, writes the
// profiles and exits. It never returns.
func Main(impl Impl) {
	var f flags
	flag.StringVar(&f.transport, "transport", "http", "http or stdio")
	flag.StringVar(&f.addr, "addr", "127.0.0.1:0", "listen address (http)")
	flag.BoolVar(&f.sessionless, "sessionless", false, "Streamable HTTP without sessions")
	flag.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile to this file at exit")
	flag.StringVar(&f.memProfile, "memprofile", "", "write an allocation profile to this file at exit")
	flag.Parse()
	if err := run(impl, &f); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", impl.Name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// run serves until a stop signal (or, for stdio, the end of input) and finishes the
// profiles.
func run(impl Impl, f *flags) error {
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = pf.Close()
		}()
	}
	if f.memProfile != "" {
		defer writeAllocProfile(f.memProfile)
	}

	// Stop signals stay caught until the process exits (no deferred stop): a
	// SIGINT that arrives while a stdio server is already returning on end of input
	// must not kill it by the default action, which the loader reports as a failure.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigc
		cancel()
	}()
	stopStats := serveStats()
	defer stopStats()

	switch f.transport {
	case "http":
		return serveHTTP(ctx, impl, f)
	case "stdio":
		return serveStdio(ctx, impl)
	default:
		return fmt.Errorf("unknown -transport %q (want http or stdio)", f.transport)
	}
}

// serveHTTP listens, announces the address and serves impl's handler at /mcp until
// ctx ends.
func serveHTTP(ctx context.Context, impl Impl, f *flags) error {
	h, err := impl.HTTP(f.sessionless)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := mcpkit.NewHTTPServer("", mux) // the same recommended settings for every implementation
	fmt.Fprintf(os.Stdout, "%s %s\n", ListenPrefix, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Streams that never end (a GET stream) would hold Shutdown: close at once, the
	// benchmark is over.
	_ = hs.Close()
	<-errc
	return nil
}

// serveStdio serves impl on standard input and output until the input ends or ctx
// ends; then it waits at most a second for the implementation to return.
func serveStdio(ctx context.Context, impl Impl) error {
	errc := make(chan error, 1)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { errc <- impl.Stdio(runCtx, os.Stdin, os.Stdout) }()
	select {
	case err := <-errc:
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	cancel()
	select {
	case <-errc:
	case <-time.After(time.Second):
	}
	return nil
}

// serveStats answers SIGUSR1 and SIGUSR2 with a statistics line on standard error
// until the returned function is called.
func serveStats() (stop func()) {
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, syscall.SIGUSR1, syscall.SIGUSR2)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case s := <-sigc:
				if s == syscall.SIGUSR2 {
					runtime.GC()
				}
				writeStats(os.Stderr)
			}
		}
	}()
	return func() {
		signal.Stop(sigc)
		close(done)
		<-finished
	}
}

// writeStats prints one statistics line in a single write.
func writeStats(w io.Writer) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	line := fmt.Sprintf("%s mallocs=%d totalalloc=%d heapalloc=%d heapobjects=%d stackinuse=%d goroutines=%d numgc=%d\n",
		StatsPrefix, m.Mallocs, m.TotalAlloc, m.HeapAlloc, m.HeapObjects, m.StackInuse, runtime.NumGoroutine(), m.NumGC)
	_, _ = io.WriteString(w, line)
}

// writeAllocProfile writes the allocation profile (all allocations since start).
func writeAllocProfile(path string) {
	pf, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "memprofile: %v\n", err)
		return
	}
	defer pf.Close()
	if err := pprof.Lookup("allocs").WriteTo(pf, 0); err != nil {
		fmt.Fprintf(os.Stderr, "memprofile: %v\n", err)
	}
}
