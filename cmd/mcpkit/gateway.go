package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/upstream"
)

// gatewayFlags are the flags of `mcpkit gateway`.
type gatewayFlags struct {
	serveFlags
	oauth        oauthFlags
	config       string
	list         bool
	json         bool
	startTimeout time.Duration
	require      []string
	names        string
	maxMessage   int
	// identityHeader names the header that carries the caller's principal to
	// HTTP upstreams (gateway_identity.go).
	identityHeader string
	// access is the file of per-principal catalogues (gateway_access.go).
	access string
	// watch is how often the configuration file is checked for changes
	// (gateway_reload.go); 0: only SIGHUP reloads it.
	watch time.Duration
}

const gatewayExample = `  # every server of mcp.json as one, on stdio (what a host starts)
  mcpkit gateway --config mcp.json
  # over HTTP: Streamable HTTP at http://127.0.0.1:8080/mcp, HTTP+SSE at /sse, the servers' states at /status
  mcpkit gateway --config mcp.json --http 127.0.0.1:8080
  # not ready (GET /readyz: 503) while the server "db" is down
  mcpkit gateway --config mcp.json --http 127.0.0.1:8080 --require db
  # the names the gateway gives the servers' tools, prompts and resources
  mcpkit gateway --config mcp.json --list
  # reload mcp.json only on SIGHUP (kill -HUP PID), not when the file changes (by default checked every 2s)
  mcpkit gateway --config mcp.json --http 127.0.0.1:8080 --watch 0
  # call a tool of the server "demo" through the gateway
  mcpkit call demo__echo '{"message":"hi"}' -- mcpkit gateway --config mcp.json`

func newGatewayCmd(g *globalFlags) *cobra.Command {
	f := &gatewayFlags{}
	cmd := &cobra.Command{
		Use:   "gateway --config FILE",
		Short: "Serve every server of a configuration file as one MCP server",
		Long: `Serve the MCP servers of a configuration file as one server: on standard input and output
by default, or over HTTP with --http ADDR (Streamable HTTP at /mcp, HTTP+SSE at /sse).

The file is a host's: Claude Desktop's {"mcpServers": {...}}, VS Code's {"servers": {...}}
(or either under "mcp"); "mcpkit config import" gathers the ones installed here. Each
server is started (stdio) or dialled (url), restarted with a backoff when it fails, and
checked with ping. Its tools and prompts are offered as <server>__<name>, cut to 64
characters of [a-zA-Z0-9_-] with a short hash when needed (--names bare keeps a name
that no other server has); a call of a server's own tool name that only one server has
(an MCP App's view calling its tool) still reaches it. Resources keep their URIs unless
two servers share one (then mcpkit-gateway://<server>/<uri>, and for an MCP App's view
ui://mcpkit-gateway/<server>/<rest>, with every tool's _meta.ui.resourceUri following).
The servers' extensions (MCP Apps, Skills, tasks) are declared by the gateway, and the
Skills methods (skills/list, skills/get, resources/directory/read) forwarded. Progress,
cancellation, log messages, and the servers' requests for sampling, elicitation and
roots pass through to the client.

Per server: "allowedTools" / "excludedTools" (globs), "timeout" (seconds or "30s"),
"disabled", and ${env:VAR} / ${VAR:-default} in commands, arguments, env, URLs and
headers.

Over HTTP, GET /status shows each server as JSON: its state, the tools, prompts and
resources offered, calls in flight, restarts, the last error and stderr lines (secrets
of the configuration redacted; no command line, env, URL or header), behind the same
Host/Origin checks as /mcp. GET /healthz answers while the process runs; GET /readyz
answers 200 from the start of serving until shutdown whatever the servers' states (one
server down does not take the gateway out of rotation: its calls fail at once saying
why), unless --require names servers it cannot do without.

Over HTTP the gateway takes serve's inbound options: --auth-issuer (with --auth-audience,
--auth-scopes, --auth-introspection, --auth-dpop) and static bearer tokens (--auth-token-file
or $MCPKIT_AUTH_TOKENS). --access gives each principal its servers, tools, prompts and
resources; --rate-limit and --tool-rate-limit give each client a budget; --identity-header
sends the caller's principal (never its token) to HTTP servers.

The configuration is reloaded when the file changes (checked every --watch) and on SIGHUP:
added servers start, removed ones stop (their tools, prompts and resources are withdrawn),
changed ones restart, and the others keep their sessions and calls in flight; clients
hear list_changed. The --access file is reloaded the same way: the clients whose view
changed hear list_changed, and only they. A file that does not parse keeps the running
configuration (or rules), and the gateway logs why in one line.

` + telemetryHelp + `
The gateway also reports each server's state (mcpkit.upstream.servers) and
restarts (mcpkit.upstream.restarts), and its calls to them
(mcp.client.operation.duration).`,
		Example: gatewayExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGateway(cmd.Context(), g, f, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "the configuration file of the servers (required)")
	f.serveFlags.register(fl)
	f.oauth.register(fl)
	f.auth.register(cmd)
	f.auth.resourceName = "mcpkit gateway"
	fl.StringVar(&f.access, "access", "", "a JSON file of rules saying which principals see which servers, tools, prompts and resources (others are hidden and refused)")
	fl.StringVar(&f.identityHeader, "identity-header", "", "with inbound auth: send each caller's principal to HTTP servers in this header (e.g. X-Mcpkit-Principal; never the caller's token)")
	fl.DurationVar(&f.watch, "watch", 2*time.Second, "how often to check the configuration file for changes and reload it (0: only on SIGHUP)")
	fl.BoolVar(&f.list, "list", false, "start the servers, print the gateway's names for their tools, prompts and resources, and exit")
	fl.BoolVar(&f.json, "json", false, "with --list: print JSON")
	fl.DurationVar(&f.startTimeout, "start-timeout", time.Minute, "how long to wait for the servers' first connection before serving (the slow ones join later)")
	fl.StringVar(&f.names, "names", "prefixed", "prefixed: every tool and prompt is <server>__<name>; bare: a name no other server has stays as it is (the others are prefixed)")
	fl.StringArrayVar(&f.require, "require", nil, "with --http: GET /readyz answers 503 while this server is not ready (repeatable; by default the gateway is ready whatever its servers' states)")
	registerMaxMessage(fl, &f.maxMessage)
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

// gatewayStatusPath is where `mcpkit gateway --http` serves its servers'
// states as JSON (gateway.Gateway.StatusHandler).
const gatewayStatusPath = "/status"

func runGateway(ctx context.Context, g *globalFlags, f *gatewayFlags, stdout io.Writer) error {
	naming, err := gateway.ParseNaming(f.names)
	if err != nil {
		return fmt.Errorf("--names %q: want prefixed or bare", f.names)
	}
	cfg, err := upstream.Load(f.config)
	if err != nil {
		return err
	}
	for _, name := range f.require {
		if sc, ok := cfg.Servers[name]; !ok || sc.Disabled {
			return fmt.Errorf("--require %s: %s has no enabled server of that name", name, f.config)
		}
	}
	level := slog.LevelInfo
	if g.verbose {
		level = slog.LevelDebug
	}
	if f.list {
		level = slog.LevelError // the listing says how each server is
	}
	// stdout carries only protocol messages (stdio): diagnostics go to stderr.
	// The redactor follows reloads: the supervisor's Apply adds each new
	// configuration's secrets to it.
	redactor := upstream.NewRedactor(cfg)
	logger := slog.New(redactor.Handler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	keyring, err := keyringFromEnv()
	if err != nil {
		return err
	}
	sopts := mcp.ServerOptions{Keyring: keyring}
	if sopts.Middleware, err = f.rate.toolMiddleware(); err != nil {
		return err
	}
	tel, observed, err := f.startTelemetry(ctx, "mcpkit gateway")
	if err != nil {
		return err
	}
	defer tel.closeLogged(logger)
	sopts.Middleware = append(observed, sopts.Middleware...)
	// The servers' transports differ (stdio, HTTP): their calls are measured
	// without network attributes.
	upstreamObserved, err := tel.middleware("")
	if err != nil {
		return err
	}
	var gw *gateway.Gateway
	var access *liveAccess
	if f.access != "" {
		if access, err = newLiveAccess(f.access); err != nil {
			return err
		}
		sopts.Visible = access.visible(func(kind, name string) (string, bool) { return gw.ServerOf(kind, name) })
	}
	oauth := newUpstreamOAuth(cfg, &f.oauth, logger)
	defer oauth.close()
	gw = gateway.New(cfg, &gateway.Options{
		Info:            protocol.Implementation{Name: "mcpkit-gateway", Version: clientVersion()},
		Logger:          logger,
		Server:          sopts,
		Supervisor:      upstream.Options{HTTPClientFor: withIdentity(f.identityHeader, oauth.client), MaxMessageSize: f.maxMessage, Redactor: redactor},
		RequiredServers: f.require,
		Naming:          naming,

		UpstreamMiddleware: upstreamObserved,
	})
	if err := tel.observeUpstreams(func() []upstream.Status { return gw.Supervisor().Statuses() }); err != nil {
		return err
	}
	gw.Start(ctx)
	defer gw.Close()
	sctx, cancel := context.WithTimeout(ctx, f.startTimeout)
	err = gw.WaitStarted(sctx)
	cancel()
	if err != nil && ctx.Err() == nil {
		logger.Warn("gateway: not every server is up yet; serving those that are", "error", err)
	}
	if f.list {
		return printMapping(stdout, gw, f.json)
	}
	watcher := &configWatcher{path: f.config, interval: f.watch, gw: gw, oauth: oauth, require: f.require, access: access, redactor: redactor, log: logger}
	wctx, wstop := context.WithCancel(ctx)
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		watcher.run(wctx)
	}()
	defer func() { wstop(); <-wdone }() // before gw.Close
	srv := gw.Server()
	if f.http == "" {
		err = srv.Run(ctx, stdio.NewProcessServerConn(nil))
	} else {
		f.opts.Ready = gw.Ready
		f.opts.Handlers = map[string]http.Handler{gatewayStatusPath: gw.StatusHandler()}
		err = serveHTTP(ctx, &f.serveFlags, srv, logger, "the gateway")
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// printMapping prints what the gateway offers and the state of each server.
func printMapping(w io.Writer, gw *gateway.Gateway, asJSON bool) error {
	entries := gw.Entries()
	if asJSON {
		statuses := gw.Supervisor().Statuses()
		type server struct {
			Name      string   `json:"name"`
			State     string   `json:"state"`
			Transport string   `json:"transport"`
			Protocol  string   `json:"protocolVersion,omitempty"`
			Error     string   `json:"error,omitempty"`
			Stderr    []string `json:"stderr,omitempty"`
		}
		type entry struct {
			Kind     string `json:"kind"`
			Name     string `json:"name"`
			Server   string `json:"server"`
			Original string `json:"original"`
		}
		out := struct {
			Servers []server `json:"servers"`
			Entries []entry  `json:"entries"`
		}{Servers: []server{}, Entries: []entry{}}
		for _, st := range statuses {
			s := server{Name: st.Name, State: st.State.String(), Transport: string(st.Transport), Protocol: st.ProtocolVersion}
			if st.State != upstream.StateReady {
				s.Error, s.Stderr = st.LastError, st.Stderr
			}
			out.Servers = append(out.Servers, s)
		}
		for _, e := range entries {
			out.Entries = append(out.Entries, entry(e))
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if err := printServers(w, gw.Status().Servers); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tSERVER\tORIGINAL")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Kind, e.Name, e.Server, e.Original)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(entries) == 0 {
		fmt.Fprintln(w, "(nothing: no server is up)")
	}
	return nil
}

// upstreamOAuth gives each HTTP server of a gateway its own OAuth transport
// (one transport holds one server's token), with the CLI's file token store:
// a token stored by `mcpkit auth login --url` is used and refreshed, and a
// server that asks for authorization with none stored gets the browser flow
// (its URL printed on stderr). A server configured with its own Authorization
// header gets no OAuth layer.
type upstreamOAuth struct {
	cfg    *upstream.Config
	flags  *oauthFlags
	logger *slog.Logger

	mu       sync.Mutex
	clients  map[string]*http.Client
	cleanups []func()
}

func newUpstreamOAuth(cfg *upstream.Config, flags *oauthFlags, logger *slog.Logger) *upstreamOAuth {
	return &upstreamOAuth{cfg: cfg, flags: flags, logger: logger, clients: make(map[string]*http.Client)}
}

// client is the supervisor's upstream.Options.HTTPClientFor.
func (o *upstreamOAuth) client(name, url string) *http.Client {
	o.mu.Lock()
	defer o.mu.Unlock()
	if sc := o.cfg.Servers[name]; sc != nil {
		for k := range sc.Headers {
			if strings.EqualFold(k, "Authorization") {
				return nil
			}
		}
	}
	if c, ok := o.clients[name]; ok {
		return c
	}
	tr, cleanup, err := authTransport(o.flags, os.Stderr, nil, browserWait)
	if err != nil {
		o.logger.Warn("gateway: no OAuth for this server", "server", name, "url", url, "error", err)
		return nil
	}
	c := &http.Client{Transport: tr}
	o.clients[name] = c
	o.cleanups = append(o.cleanups, cleanup)
	return c
}

func (o *upstreamOAuth) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range o.cleanups {
		f()
	}
}
