package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// serveFlags are the flags of `mcpkit serve`.
type serveFlags struct {
	http  string
	redis string // see serve_redis.go
	// singleUseState makes requestStates single-use on Redis (serve only).
	singleUseState bool
	opts           mcpkit.HTTPOptions // the HTTP settings and limits the flags set
	auth           inboundAuthFlags   // inbound auth: --auth-issuer, --auth-token-file, ... (inbound_auth.go)
	debugAddr      string             // --debug-addr: runtime profiles (serve_debug.go)
	rate           rateFlags          // --rate-limit, --tool-rate-limit (ratelimit.go)
	telemetry      telemetryFlags     // --metrics-addr; OTLP from OTEL_* (telemetry.go)
	// conformance adds the fixtures of the official conformance suite.
	conformance bool
}

func newServeCmd(g *globalFlags) *cobra.Command {
	cmd, _ := newServeCmdFlags(g)
	return cmd
}

// newServeCmdFlags returns the serve command and the flags it fills.
func newServeCmdFlags(g *globalFlags) (*cobra.Command, *serveFlags) {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the demo server (every MCP feature) over stdio or HTTP",
		Long: `Serve mcpkit's demo server: on standard input and output by default, or over HTTP with
--http ADDR: Streamable HTTP at /mcp, and the old HTTP+SSE transport at /sse (stream)
and /messages (posts). An address without a host binds to 127.0.0.1.

Over HTTP the server bounds what clients can hold (the --max-* and *-timeout flags):
connections beyond the cap wait to be accepted; sessions and streams beyond theirs
are refused with 503 (server full) or 429 (this client address's share used) and a
Retry-After header; slow and idle connections are closed.

It offers the tools echo, count (progress), test_throw (a failing tool), echo_ip,
add (structured output), log, sample (sampling), ask_name (elicitation),
list_roots (roots) and touch (resource updates); the resources demo://readme,
demo://logo.png and the template demo://items/{id}; the prompts greet and
describe_logo, with completions. --conformance adds the fixtures the official
conformance suite calls (test_* tools, test:// resources, test_* prompts).

Both protocol eras are served on the same endpoint: clients that begin with initialize
(2024-11-05 … 2025-11-25) get a session, and stateless 2026-07-28 requests are served
one by one. Replicas behind a load balancer share the key that protects input-required
round trips through MCPKIT_STATE_KEYS ("id:base64-32-byte-secret,..."; the first key
seals, every key opens). With --redis redis://HOST:PORT/DB (or MCPKIT_REDIS_URL) they
also share legacy sessions, SSE events, tasks and the change feed, and relay messages
to each other (answers to the server's requests, the GET stream, HTTP+SSE sessions), so
that any replica serves any session behind a round-robin balancer; MCPKIT_REPLICA_ID
begins the replica's id on the relay (letters and digits; each process adds random
ones). When Redis is
unreachable, session requests get 503 with Retry-After while stateless requests keep
being served. --single-use-state also records each requestState a replica accepts on
Redis, so that a replayed state is refused (-32602) on every replica. GET /healthz
answers while the process runs, GET /readyz until shutdown begins (not when Redis is
down: the replica still serves stateless requests and answers the others itself);
?verbose on either lists Redis's state.

` + telemetryHelp,
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
			dopts := &demo.Options{Logger: logger, Keyring: keyring, OmitConformanceFixtures: !f.conformance}
			if dopts.Middleware, err = f.rate.toolMiddleware(); err != nil {
				return err
			}
			tel, observed, err := f.startTelemetry(cmd.Context(), "mcpkit serve")
			if err != nil {
				return err
			}
			defer tel.closeLogged(logger)
			dopts.Middleware = append(observed, dopts.Middleware...)
			if url := f.redisURL(); url != "" {
				if f.http == "" {
					return errRedisNeedsHTTP
				}
				b, err := openRedis(cmd.Context(), url, logger)
				if err != nil {
					return err
				}
				if keyring == nil {
					fmt.Fprintln(os.Stderr, warnNoStateKeys)
				}
				defer b.Close()
				b.apply(dopts, &f.opts, f.singleUseState)
			} else if f.singleUseState {
				return errSingleUseNeedsRedis
			}
			srv, err := demo.NewServer(dopts)
			if err != nil {
				return err
			}
			if f.http == "" {
				return mcpkit.ServeStdio(cmd.Context(), srv)
			}
			return serveHTTP(cmd.Context(), f, srv, logger, "the demo server")
		},
	}
	f.register(cmd.Flags())
	f.auth.register(cmd)
	// Only serve's demo server keeps its sessions, events, tasks and changes on Redis.
	cmd.Flags().BoolVar(&f.conformance, "conformance", false, "also serve the fixtures of the official conformance suite (test_* tools, resources and prompts)")
	cmd.Flags().StringVar(&f.redis, "redis", "", "share sessions, events, tasks and changes with other replicas on this Redis (redis://HOST:PORT/DB; default $"+redisEnv+")")
	cmd.Flags().BoolVar(&f.singleUseState, "single-use-state", false, "accept each requestState of a 2026-07-28 input-required round once across all replicas (needs --redis; a client that resends a state after a lost answer is refused)")
	return cmd, f
}

// register declares the HTTP flags of a command that serves (serve, gateway) on fl.
func (f *serveFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.http, "http", "", "serve over HTTP on this address (e.g. 127.0.0.1:8080 or :8080) instead of stdio")
	fl.BoolVar(&f.opts.Sessionless, "sessionless", false, "Streamable HTTP without sessions: every POST stands alone")
	// --stateless was the name of --sessionless before "stateless" came to mean
	// the 2026-07-28 protocol; it still works, hidden, for existing scripts.
	fl.BoolVar(&f.opts.Sessionless, "stateless", false, "Streamable HTTP without sessions (deprecated: --sessionless)")
	_ = fl.MarkDeprecated("stateless", "use --sessionless")
	fl.StringSliceVar(&f.opts.AllowedOrigins, "allow-origin", nil, "also accept requests from this Origin (repeatable; \"*\" for any)")
	fl.StringSliceVar(&f.opts.AllowedHosts, "allow-host", nil, "accept only these Host headers (repeatable; \"*\" for any; default: loopback names on a loopback address)")
	fl.IntVar(&f.opts.MaxSessions, "max-sessions", transport.DefaultMaxSessions, "most sessions open at once (HTTP; both transports; -1 for no cap)")
	fl.IntVar(&f.opts.MaxSessionsPerClient, "max-sessions-per-client", 0, "most sessions of one client address (0: a tenth of --max-sessions; -1 for no cap, e.g. behind a proxy)")
	fl.IntVar(&f.opts.MaxStreams, "max-streams", transport.DefaultMaxStreams, "most SSE streams open at once that wait for messages (GET streams, listen requests, HTTP+SSE sessions; -1 for no cap)")
	fl.IntVar(&f.opts.MaxConnections, "max-connections", mcpkit.DefaultMaxConnections, "most HTTP connections open at once; more wait to be accepted (-1 for no cap)")
	fl.Int64Var(&f.opts.MaxBodyBytes, "max-body-bytes", streamable.DefaultMaxBodyBytes, "largest POST body accepted (413 beyond)")
	fl.DurationVar(&f.opts.SessionIdleTimeout, "idle-timeout", streamable.DefaultSessionIdleTimeout, "end a Streamable HTTP session idle this long (0: never)")
	fl.DurationVar(&f.opts.BodyReadTimeout, "body-timeout", streamable.DefaultBodyReadTimeout, "time allowed to read a POST body (408 beyond; 0: no bound)")
	fl.DurationVar(&f.opts.ReadHeaderTimeout, "header-timeout", mcpkit.DefaultReadHeaderTimeout, "time allowed to read a request's header (0: no bound)")
	fl.DurationVar(&f.opts.ConnIdleTimeout, "conn-idle-timeout", mcpkit.DefaultConnIdleTimeout, "close a kept-alive connection idle this long (0: never)")
	registerDebugFlag(fl, &f.debugAddr)
	f.rate.register(fl)
	f.telemetry.register(fl)
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

// serveHTTP serves srv (what names it in the banner) over both HTTP transports
// until ctx ends, then shuts down gracefully: open streams end cleanly and
// requests in flight may finish.
func serveHTTP(ctx context.Context, f *serveFlags, srv *mcp.Server, logger *slog.Logger, what string) error {
	ctx, cancel := context.WithCancel(ctx)
	_, waitDebug, err := serveDebug(ctx, f.debugAddr)
	if err != nil {
		cancel()
		return err
	}
	defer func() { cancel(); waitDebug() }() // cancel closes the debug server
	ln, err := mcpkit.Listen(f.http)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	protect, err := f.auth.middleware(ctx, "http://"+ln.Addr().String())
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	limit, err := f.rate.httpMiddleware()
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	opts := f.httpOptions(logger)
	opts.Middleware = protect
	if limit != nil {
		// After authentication, so that the principal is the key.
		opts.Middleware = func(next http.Handler) http.Handler { return protect(limit(next)) }
	}
	fmt.Fprintf(os.Stderr, "mcpkit: serving %s at http://%s/mcp (Streamable HTTP) and http://%s/sse (HTTP+SSE)\n", what, ln.Addr(), ln.Addr())
	for _, p := range slices.Sorted(maps.Keys(opts.Handlers)) {
		fmt.Fprintf(os.Stderr, "mcpkit: also serving http://%s%s\n", ln.Addr(), p)
	}
	return mcpkit.Serve(ctx, ln, srv, opts)
}

// httpOptions returns the HTTP options the flags set.
func (f *serveFlags) httpOptions(logger *slog.Logger) *mcpkit.HTTPOptions {
	opts := f.opts
	opts.Logger = logger
	// On the command line 0 turns a timeout off; in HTTPOptions 0 is the default.
	for _, d := range []*time.Duration{&opts.SessionIdleTimeout, &opts.BodyReadTimeout, &opts.ReadHeaderTimeout, &opts.ConnIdleTimeout} {
		if *d == 0 {
			*d = -1
		}
	}
	return &opts
}
