package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/tap/replay"
)

func newTapReplayServerCmd() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "replay-server FILE.jsonl [--http ADDR]",
		Short: "Serve a capture as a mock MCP server (stdio, or HTTP with --http)",
		Example: `  mcpkit tap replay-server /tmp/mcp.jsonl
  mcpkit tap replay-server --http 127.0.0.1:8090 /tmp/mcp.jsonl`,
		Long: `Serve a capture of "mcpkit tap" as a mock MCP server, on standard input and output or,
with --http, over Streamable HTTP (/mcp) and HTTP+SSE (/sse).

It introduces itself with the recorded server info, capabilities and instructions,
negotiating the client's protocol version; it answers the stateless (2026-07-28) era
too. Every other request gets the recorded response of the recorded request with the
same method and params (compared as canonical JSON: key order and white space do not
matter, nor _meta such as the progress token), with the new request's id; the
notifications the server sent while it ran (progress, logging) come first. When
several recorded requests match, they are answered in recorded order, then the last
again. A request that matches none gets a JSON-RPC error naming the method and the
closest recorded params. Ping and logging/setLevel are answered even if the capture
holds none.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := replay.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("tap replay-server: %w", err)
			}
			srv := replay.NewServer(c)
			if addr == "" {
				return mcpkit.ServeStdio(cmd.Context(), srv)
			}
			ln, err := mcpkit.Listen(addr)
			if err != nil {
				return fmt.Errorf("tap replay-server: --http: %w", err)
			}
			fmt.Fprintf(os.Stderr, "mcpkit: replaying %s at http://%s/mcp (Streamable HTTP) and http://%s/sse (HTTP+SSE)\n", args[0], ln.Addr(), ln.Addr())
			return mcpkit.Serve(cmd.Context(), ln, srv, nil)
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve over HTTP on this address (e.g. 127.0.0.1:8090) instead of stdio")
	return cmd
}

func newTapReplayCmd() *cobra.Command {
	g := &globalFlags{} // the target's flags: --url, --header, OAuth
	var asJSON bool
	var ignore []string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "replay FILE.jsonl (-- SERVER [ARGS...] | --url URL)",
		Short: "Re-send a capture's requests to a live server and report what it answers differently",
		Example: `  mcpkit tap replay /tmp/mcp.jsonl -- mcpkit serve
  mcpkit tap replay --json --ignore content.0.text /tmp/mcp.jsonl --url http://127.0.0.1:8080/mcp`,
		Long: `Re-send the client side of a capture to a live server and report the differences.

It initializes with the recorded client info, capabilities and protocol version (a
stateless capture has no initialize: its requests carry all that), then sends every
recorded client request in order with its recorded params, one at a time. Requests the
server sends meanwhile (sampling, elicitation, roots) are answered with what the
capture recorded for the same method and params.

Reported: tools, prompts, resources and templates added or removed; a tool's schema,
description or any other field changed; results that differ (with the JSON paths);
errors that appeared, vanished or changed code; requests not answered in --timeout.
Not compared (they change from run to run): ` + strings.Join(replay.DefaultIgnore, ", ") + `
("**." is any depth, "*" one member or index); --ignore adds paths, relative to the
result (e.g. content.0.text, structuredContent.**.id). Error messages are not compared,
only codes.

A 2026-07-28 input-required round (the server answers input_required with a sealed
requestState, the client retries with it) is replayed with the requestState the live
server sealed in the same round, since a server opens only states sealed with its own
keys. A retry whose round the live server did not start sends the recorded state: that
works only when the live server shares the recording server's MCPKIT_STATE_KEYS.

Exit status: 0 the same, 1 differences, 2 the replay could not run. Output is sorted
and holds no timings, so that it can be compared in CI.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			file, target := args, []string(nil)
			if dash >= 0 {
				file, target = args[:dash], args[dash:]
			}
			if len(file) != 1 || (len(target) == 0) == (g.url == "") {
				return exitError2(errors.New("tap replay: give one capture file, and the server: -- COMMAND [ARGS...] or --url URL"))
			}
			return runTapReplay(cmd.Context(), cmd.OutOrStdout(), file[0], g, target, replay.Options{Ignore: ignore, Timeout: timeout}, asJSON)
		},
	}
	cmd.Flags().StringVar(&g.url, "url", "", "the live server's URL (Streamable HTTP, falling back to HTTP+SSE), instead of a command after --")
	cmd.Flags().StringArrayVar(&g.headers, "header", nil, "an HTTP header for --url, as 'Name: value' (repeatable; ${env:VAR} is replaced from the environment)")
	g.oauth.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringSliceVar(&ignore, "ignore", nil, "a JSON path of results not to compare (repeatable)")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for each response")
	return cmd
}

// exitError2 prints err and makes the command exit with status 2 (could not run).
func exitError2(err error) error {
	fmt.Fprintln(os.Stderr, "mcpkit:", err)
	return exitError{2}
}

// runTapReplay replays the capture file against the target (g.url, or the
// command target), reached as the client commands reach theirs.
func runTapReplay(ctx context.Context, w io.Writer, file string, g *globalFlags, target []string, opts replay.Options, asJSON bool) error {
	c, err := replay.ReadFile(file)
	if err != nil {
		return exitError2(fmt.Errorf("tap replay: %w", err))
	}
	conn, done, err := dialTarget(ctx, g, nil, target, slog.New(slog.DiscardHandler))
	if err != nil {
		return exitError2(fmt.Errorf("tap replay: %w", err))
	}
	defer done()
	rep, err := replay.Run(ctx, conn, c, opts)
	if err != nil {
		return exitError2(fmt.Errorf("tap replay: %w", err))
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitError2(err)
		}
	} else {
		who := "the server"
		if rep.Server != nil {
			who = fmt.Sprintf("%s %s (protocol %s)", rep.Server.ServerInfo.Name, rep.Server.ServerInfo.Version, rep.Server.ProtocolVersion)
		}
		fmt.Fprintf(w, "replayed %d requests of %s against %s\n", rep.Requests, file, who)
		sealed := false
		for _, d := range rep.Differences {
			fmt.Fprintln(w, d.String())
			sealed = sealed || strings.Contains(d.Live, "requestState rejected")
		}
		if sealed {
			fmt.Fprintln(w, "hint: the live server could not open a recorded requestState: run it with the MCPKIT_STATE_KEYS of the server the capture recorded")
		}
		switch n := len(rep.Differences); n {
		case 0:
			fmt.Fprintln(w, "no differences")
		default:
			fmt.Fprintf(w, "%d difference(s)\n", n)
		}
	}
	if len(rep.Differences) > 0 {
		return exitError{1}
	}
	return nil
}
