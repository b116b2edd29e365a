package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/demo"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// serveFlags are the flags of `mcpkit serve`.
type serveFlags struct {
	http        string
	sessionless bool
	origins     []string
	auth        serveAuthFlags
}

func newServeCmd(g *globalFlags) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the demo server (every MCP feature) over stdio or HTTP",
		Long: `Serve mcpkit's demo server: on standard input and output by default, or over HTTP with
--http ADDR: Streamable HTTP at /mcp, and the old HTTP+SSE transport at /sse (stream)
and /messages (posts). An address without a host binds to 127.0.0.1.

It offers the tools echo, count (progress), test_throw (a failing tool), echo_ip,
add (structured output), log, sample (sampling), ask_name (elicitation),
list_roots (roots) and touch (resource updates); the resources demo://readme,
demo://logo.png and the template demo://items/{id}; the prompts greet and
describe_logo, with completions; and the fixtures of the official conformance suite.

Both protocol eras are served on the same endpoint: clients that begin with initialize
(2024-11-05 … 2025-11-25) get a session, and stateless 2026-07-28 requests are served
one by one. Replicas behind a load balancer share the key that protects input-required
round trips through MCPKIT_STATE_KEYS ("id:base64-32-byte-secret,..."; the first key
seals, every key opens).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelWarn
			if g.verbose {
				level = slog.LevelDebug
			}
			// stdout carries only protocol messages (stdio): diagnostics go to stderr.
			logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			keyring, err := keyringFromEnv()
			if err != nil {
				return err
			}
			srv, err := demo.NewServer(&demo.Options{Logger: logger, Keyring: keyring})
			if err != nil {
				return err
			}
			if f.http == "" {
				err = srv.Run(cmd.Context(), stdio.NewProcessServerConn(nil))
			} else {
				err = serveHTTP(cmd.Context(), f, srv, logger)
			}
			if errors.Is(err, context.Canceled) {
				return nil // interrupted: a normal way to stop a server
			}
			return err
		},
	}
	cmd.Flags().StringVar(&f.http, "http", "", "serve over HTTP on this address (e.g. 127.0.0.1:8080 or :8080) instead of stdio")
	cmd.Flags().BoolVar(&f.sessionless, "sessionless", false, "Streamable HTTP without sessions: every POST stands alone")
	// --stateless was the name of --sessionless before "stateless" came to mean
	// the 2026-07-28 protocol; it still works, hidden, for existing scripts.
	cmd.Flags().BoolVar(&f.sessionless, "stateless", false, "Streamable HTTP without sessions (deprecated: --sessionless)")
	_ = cmd.Flags().MarkDeprecated("stateless", "use --sessionless")
	cmd.Flags().StringSliceVar(&f.origins, "allow-origin", nil, "also accept requests from this Origin (repeatable; \"*\" for any)")
	f.auth.register(cmd)
	return cmd
}

// stateKeysEnv names the environment variable holding the requestState keys
// ("id:base64secret,..."; the first seals) that replicas of one server share. An
// environment variable rather than a flag, so the secret does not show in ps.
const stateKeysEnv = "MCPKIT_STATE_KEYS"

// keyringFromEnv returns the keyring named by MCPKIT_STATE_KEYS, or nil (a random
// key for this process) when it is unset.
func keyringFromEnv() (*requeststate.Keyring, error) {
	v := os.Getenv(stateKeysEnv)
	if v == "" {
		return nil, nil
	}
	kr, err := requeststate.ParseKeyring(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stateKeysEnv, err)
	}
	return kr, nil
}

// serveHTTP serves srv over both HTTP transports until ctx ends, then shuts down
// gracefully: open streams end cleanly and requests in flight may finish.
func serveHTTP(ctx context.Context, f *serveFlags, srv transport.Server, logger *slog.Logger) error {
	host, port, err := net.SplitHostPort(f.http)
	if err != nil {
		return fmt.Errorf("--http %q: %w", f.http, err)
	}
	if host == "" {
		host = "127.0.0.1" // secure default: loopback only unless a host is named
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	streamableHandler := streamable.NewHandler(srv, &streamable.HandlerOptions{Sessionless: f.sessionless, AllowedOrigins: f.origins, Logger: logger})
	sseHandler := legacysse.NewHandler(srv, &legacysse.HandlerOptions{AllowedOrigins: f.origins, Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamableHandler)
	mux.Handle("/sse", sseHandler)
	mux.Handle("/messages", sseHandler)
	protect, err := f.auth.middleware(ctx, "http://"+ln.Addr().String())
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	hs := &http.Server{Handler: protect(mux), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "mcpkit: serving the demo server at http://%s/mcp (Streamable HTTP) and http://%s/sse (HTTP+SSE)\n", ln.Addr(), ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if ms, ok := srv.(*mcp.Server); ok {
		ms.EndSubscriptions() // subscriptions/listen streams get their final result
		_ = ms.ShutdownTasks(shutdownCtx)
	}
	_ = streamableHandler.Shutdown(shutdownCtx)
	_ = sseHandler.Close()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return err
	}
	return ctx.Err()
}
