package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
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
	opts, err := clientOptionsOn(sg, clock, ui.in, &ui.mu, os.Stderr)
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
	return opts, nil
}

// startConfigServers starts the enabled servers of --config under a
// supervisor (restarted when they crash) and returns them as the agent's
// servers, each offering only the tools its allowedTools/excludedTools let
// through, and their supervisor. stop stops them all.
func startConfigServers(ctx context.Context, g *globalFlags, f *hostFlags, ui *hostUI, p llm.Provider, model string) (servers []host.Server, sup *upstream.Supervisor, stop func(), err error) {
	cfg, err := upstream.Load(f.config)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := make(map[string]*mcp.ClientOptions, len(cfg.Servers))
	var names []string // the enabled servers
	for _, name := range cfg.Names() {
		sc := cfg.Servers[name]
		if sc.Disabled {
			continue
		}
		timeout := f.timeout
		if sc.Timeout > 0 {
			timeout = sc.Timeout
		}
		sg := &globalFlags{verbose: g.verbose, timeout: timeout, roots: f.roots, elicitAnswers: f.elicitAnswers}
		o, err := hostClientOptions(sg, newRequestClock(timeout), ui, name, p, model)
		if err != nil {
			return nil, nil, nil, err
		}
		opts[name] = o
		names = append(names, name)
	}
	if len(names) == 0 && len(f.servers) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: every server is disabled", f.config)
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
	stop = func() {
		_ = sup.Close()
		oauth.close()
	}
	wctx, cancel := context.WithTimeout(ctx, hostStartTimeout)
	err = sup.WaitStarted(wctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		stop()
		return nil, nil, nil, err
	}
	for _, st := range sup.Statuses() {
		if st.State != upstream.StateReady && st.State != upstream.StateDisabled {
			fmt.Fprintf(os.Stderr, "mcpkit: server %s is %s: %s\n", st.Name, st.State, st.LastError)
		}
	}
	return servers, sup, stop, nil
}
