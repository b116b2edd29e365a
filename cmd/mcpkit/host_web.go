package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/host/web"
	"github.com/mcpkit/mcpkit/llm"
)

// runHostWeb runs `mcpkit host --web`: the servers as for the terminal chat,
// the chat itself in the page of package host/web until ctx ends.
func runHostWeb(ctx context.Context, g *globalFlags, f *hostFlags, provider llm.Provider, model string, search host.ToolSearch) error {
	// Sampling requests and elicitation forms are still asked on the terminal
	// (or approved with --yes); tool calls are approved in the page.
	ui := &hostUI{out: os.Stderr, yes: f.yes, verbose: g.verbose}
	list, sup, stop, err := startServers(ctx, g, f, ui, provider, model)
	if err != nil {
		return err
	}
	defer stop()
	src := host.NewSessionSource(list...)
	src.Warn = func(server string, err error) { fmt.Fprintf(os.Stderr, "mcpkit: %v\n", err) }
	if _, err := src.Tools(ctx); err != nil {
		return err
	}
	srv, err := web.New(web.Options{Provider: provider, Model: model, System: f.system, MaxSteps: f.maxSteps,
		MaxTokens: f.maxTokens, Source: src, Yes: f.yes, Status: func() any { return hostStatuses(sup, src) },
		SessionFile: f.session, ToolSearch: search})
	if err != nil {
		return err
	}
	return srv.Serve(ctx, f.web, func(url string) {
		fmt.Fprintf(os.Stderr, "mcpkit: web host at %s (Ctrl-C stops it)\n", url)
	})
}
