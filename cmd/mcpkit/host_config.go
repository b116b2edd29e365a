package main

import (
	"context"
	"fmt"
	"github.com/mcpkit/mcpkit/ext/apps"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/upstream"
)

// hostStartTimeout bounds the wait for --config's servers to come up before
// the first turn; a server still down is reported and left to the supervisor.
const hostStartTimeout = 60 * time.Second

// hostClientOptions returns the options of the client that talks to the server
// called name: --timeout's clock (sg's), roots and elicitation as the other
// commands have them, and sampling answered by the model, approved on the
// terminal.
func hostClientOptions(sg *globalFlags, clock *requestClock, ui *hostUI, name string, p llm.Provider, model string) (*mcp.ClientOptions, error) {
	opts, err := clientOptionsOn(sg, clock, ui.in, ui.termLock(), os.Stderr)
	if err != nil {
		return nil, err
	}
	opts.CreateMessageHandler = host.SamplingHandler(p, model, &host.SamplingOptions{
		Approve: func(ctx context.Context, cs *mcp.ClientSession, params *protocol.CreateMessageParams) (bool, error) {
			return ui.approveSampling(ctx, name, params)
		},
		OnResponse: ui.countSampling,
	})
	opts.SamplingWithTools = true
	// Both faces of the host know MCP Apps views: --web renders them, the
	// terminal shows the text fallback and says a view is there.
	opts.Extensions = map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()}
	return opts, nil
}

// startServers starts the enabled servers of --config and every --server under
// one supervisor (restarted when they crash, pinged while they run) and
// returns them as the agent's servers — a configured one offering only the
// tools its allowedTools/excludedTools let through — and their supervisor.
// A configured server still down once every server had its first attempt is
// reported and left to the supervisor; a --server one ends the command, as the
// user asked for it by name. stop stops them all.
func startServers(ctx context.Context, g *globalFlags, f *hostFlags, ui *hostUI, p llm.Provider, model string) (servers []host.Server, sup *upstream.Supervisor, stop func(), err error) {
	cfg := &upstream.Config{Servers: map[string]*upstream.ServerConfig{}}
	if f.config != "" {
		if cfg, err = upstream.Load(f.config); err != nil {
			return nil, nil, nil, err
		}
	}
	timeouts := map[string]time.Duration{}
	var names []string // the enabled servers
	for _, name := range cfg.Names() {
		sc := cfg.Servers[name]
		if sc.Disabled {
			continue
		}
		timeouts[name] = f.timeout
		if sc.Timeout > 0 {
			timeouts[name] = sc.Timeout
		}
		names = append(names, name)
	}
	if f.config != "" && len(names) == 0 && len(f.servers) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: every server is disabled", f.config)
	}
	given, err := addServerFlags(cfg, f)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, name := range given {
		timeouts[name] = f.timeout
	}
	names = append(names, given...)
	tel, err := startTelemetry(ctx, &f.telemetry, "mcpkit host")
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			_ = tel.close()
		}
	}()
	opts := make(map[string]*mcp.ClientOptions, len(names))
	for _, name := range names {
		sg := &globalFlags{verbose: g.verbose, timeout: timeouts[name], roots: f.roots, elicitAnswers: f.elicitAnswers}
		o, err := hostClientOptions(sg, newRequestClock(timeouts[name]), ui, name, p, model)
		if err != nil {
			return nil, nil, nil, err
		}
		transport := otelmcp.TransportPipe
		if cfg.Servers[name].URL != "" {
			transport = otelmcp.TransportTCP
		}
		observed, err := tel.middleware(transport)
		if err != nil {
			return nil, nil, nil, err
		}
		o.Middleware = append(observed, o.Middleware...)
		opts[name] = o
	}
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(cfg.RedactHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	oauth := newUpstreamOAuth(cfg, &oauthFlags{}, logger)
	sup = upstream.NewSupervisor(cfg, &upstream.Options{
		ClientInfo:    protocol.Implementation{Name: "mcpkit", Version: clientVersion()},
		ClientOptions: func(name string) *mcp.ClientOptions { return opts[name] },
		Logger:        logger,
		HTTPClientFor: oauth.client,
	})
	for _, name := range names {
		servers = append(servers, host.Server{
			Name:    name,
			Session: func(ctx context.Context) (*mcp.ClientSession, error) { return sup.Session(ctx, name) },
			Allow:   cfg.Servers[name].ToolAllowed,
		})
	}
	sup.Start(ctx)
	if err := tel.observeUpstreams(sup.Statuses); err != nil {
		_ = sup.Close()
		oauth.close()
		return nil, nil, nil, err
	}
	stop = func() {
		_ = sup.Close()
		oauth.close()
		tel.closeLogged(logger)
	}
	wctx, cancel := context.WithTimeout(ctx, hostStartTimeout)
	err = sup.WaitStarted(wctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		stop()
		return nil, nil, nil, err
	}
	for _, st := range sup.Statuses() {
		if st.State == upstream.StateReady || st.State == upstream.StateDisabled {
			continue
		}
		if slices.Contains(given, st.Name) {
			stop()
			return nil, nil, nil, fmt.Errorf("server %s: %s", st.Name, st.LastError)
		}
		fmt.Fprintf(os.Stderr, "mcpkit: server %s is %s: %s\n", st.Name, st.State, st.LastError)
	}
	return servers, sup, stop, nil
}

// addServerFlags adds the servers of --server to cfg, with the --header values
// for each URL one, and returns their names. A name --config (or an earlier
// --server) took gets a "_N" suffix.
func addServerFlags(cfg *upstream.Config, f *hostFlags) ([]string, error) {
	headers, err := parseHeaderFlags(f.headers, true)
	if err != nil {
		return nil, err
	}
	scoped := map[string]bool{} // servers some --header names
	for _, h := range headers {
		if h.server != "" {
			scoped[h.server] = true
		}
	}
	used := map[string]int{}
	for name := range cfg.Servers {
		used[name]++
	}
	var names []string
	for _, spec := range f.servers {
		sc, err := upstream.ParseServerSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("--server %w", err)
		}
		if used[sc.Name]++; used[sc.Name] > 1 {
			sc.Name = fmt.Sprintf("%s_%d", sc.Name, used[sc.Name])
		}
		if sc.URL != "" {
			delete(scoped, sc.Name)
			header, err := headerFor(headers, sc.Name)
			if err != nil {
				return nil, err
			}
			sc.Headers = make(map[string]string, len(header))
			for k, v := range header {
				sc.Headers[k] = strings.Join(v, ", ")
			}
		}
		cfg.Servers[sc.Name] = sc
		names = append(names, sc.Name)
	}
	for name := range scoped {
		return nil, fmt.Errorf("--header %s=...: no --server URL is named %s", name, name)
	}
	return names, nil
}
