package main

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// completeTimeout bounds the talk with the server behind a completion: a
// shell waits for it.
const completeTimeout = 5 * time.Second

// completeNames completes the first argument of call (kind "tool"), get
// ("prompt") or read ("resource") with the names the --url server offers,
// each with its description. Shells send only the words before the cursor,
// so a server given after "--" is never known at that point: without --url
// nothing is offered. No OAuth flow is started (a browser opening on Tab would
// surprise): a server that needs authorization gets --header's credentials or
// completes nothing.
func completeNames(g *globalFlags, kind string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		// Cobra parses the words with a "--" added after them: a dash before
		// the last argument is the user's.
		if dash := cmd.ArgsLenAtDash(); dash >= 0 && dash < len(args) {
			return nil, cobra.ShellCompDirectiveDefault // the server's own command line
		}
		if len(args) > 0 || g.url == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, completeTimeout)
		defer cancel()
		names, err := serverNames(ctx, g, kind)
		if err != nil {
			cobra.CompDebugln("mcpkit: completing: "+err.Error(), true)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n[0], toComplete) {
				out = append(out, cobra.CompletionWithDesc(n[0], firstLine(n[1])))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// serverNames lists the names and descriptions of the --url server's tools,
// prompts or resources (kind).
func serverNames(ctx context.Context, g *globalFlags, kind string) ([][2]string, error) {
	flags, err := parseHeaderFlags(g.headers, false)
	if err != nil {
		return nil, err
	}
	header, err := headerFor(flags, "")
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.DiscardHandler)
	conn, err := mcpkit.Dial(ctx, mcpkit.Target{URL: g.url, Header: header}, &mcpkit.DialOptions{Logger: quiet})
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(protocol.Implementation{Name: "mcpkit", Version: clientVersion()}, &mcp.ClientOptions{Logger: quiet, ProtocolVersion: g.protocol})
	cs, err := client.Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	defer cs.Close()
	var out [][2]string
	switch kind {
	case "tool":
		tools, err := collect(cs.Tools(ctx))
		for _, t := range tools {
			out = append(out, [2]string{t.Name, t.Description})
		}
		return out, err
	case "prompt":
		prompts, err := collect(cs.Prompts(ctx))
		for _, p := range prompts {
			out = append(out, [2]string{p.Name, p.Description})
		}
		return out, err
	}
	resources, err := collect(cs.Resources(ctx))
	for _, r := range resources {
		out = append(out, [2]string{r.URI, r.Name})
	}
	return out, err
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
