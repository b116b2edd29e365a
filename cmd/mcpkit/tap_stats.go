package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

func newTapStatsCmd() *cobra.Command {
	var asJSON, schema bool
	var slow time.Duration
	cmd := &cobra.Command{
		Use:   "stats FILE.jsonl",
		Short: "Analyse a capture: latency by method, progress, session lanes, failures by name",
		Example: `  mcpkit tap stats /tmp/mcp.jsonl
  mcpkit tap stats --json --slow 2s /tmp/mcp.jsonl`,
		Long: `Analyse a capture of "mcpkit tap" and print what a person debugging an MCP
integration asks first:

- latency percentiles (p50/p90/p99/max) per method and direction, with errors,
  refused and unanswered requests;
- time to first progress per request, and its percentiles;
- session lanes (HTTP): the POST exchanges and GET streams of each Mcp-Session-Id
  (or HTTP+SSE session), how each stream ended, resumptions with Last-Event-ID;
- the failures of the field, by name: session-lost (404 on a session that had
  worked: a balancer without shared sessions), stream-cut (a stream ended with
  requests unanswered, lost upstream, or after a proxy-timeout-looking time),
  unanswered, second-stream-refused (a standalone GET refused with 405/409),
  slow-request (--slow), invalid-json, schema-violation (against the official
  schema of the session's negotiated version), upstream-error, dropped.

--json prints the same report as JSON. The exit status is 0 whenever the capture
could be read: a failure in the capture is a finding, not an error of the command.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTapStats(cmd.Context(), args[0], asJSON, timeline.Options{Schema: schema}, timeline.ReportOptions{Slow: slow})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&schema, "schema", true, "validate messages against the official schema of the negotiated version")
	cmd.Flags().DurationVar(&slow, "slow", timeline.DefaultSlow, "flag requests slower than this as slow-request (negative: never)")
	return cmd
}

func runTapStats(ctx context.Context, path string, asJSON bool, opts timeline.Options, ropts timeline.ReportOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("tap stats: %w", err)
	}
	defer f.Close()
	cr, err := capture.NewReader(f)
	if err != nil {
		return fmt.Errorf("tap stats: %s: %w", path, err)
	}
	// The capture streams through the analysis: memory does not grow with it.
	// SIGINT and SIGTERM stop it (a large capture takes a while).
	next := func() (*capture.Record, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return cr.Next()
	}
	rep, err := timeline.ReportFrom(next, opts, ropts)
	if err != nil {
		return fmt.Errorf("tap stats: %s: %w", path, err)
	}
	warnCut(path, cr)
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("tap stats: %w", err)
		}
		return nil
	}
	if err := rep.WriteText(os.Stdout); err != nil {
		return fmt.Errorf("tap stats: %w", err)
	}
	return nil
}

// warnCut says on stderr that a capture's last line was cut short (a crash, a
// full disk) and left out.
func warnCut(path string, cr *capture.Reader) {
	if cr.Cut() {
		fmt.Fprintf(os.Stderr, "mcpkit tap: %s: line %d is cut short (the tap was stopped or its disk filled up): read up to it\n", path, cr.Line())
	}
}
