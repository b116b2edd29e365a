package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/export"
)

func newTapExportCmd() *cobra.Command {
	var har bool
	var format string
	cmd := &cobra.Command{
		Use:   "export (--har | --format har|markdown) FILE.jsonl",
		Short: "Write a capture as HAR 1.2 or as a Markdown transcript, on standard output",
		Example: `  mcpkit tap export --har /tmp/mcp.jsonl > mcp.har
  mcpkit tap export --format markdown /tmp/mcp.jsonl > mcp.md`,
		Long: `Write a capture of "mcpkit tap" to standard output in another format.

--har (or --format har) writes HAR 1.2, which browser devtools and HTTP debuggers
load: one entry per HTTP exchange, an SSE reply as text/event-stream content with its
events. A stdio capture has no HTTP: it gives one synthetic entry per request (POST
http://stdio.invalid/METHOD, the request as body, the response as content), marked
"_mcpkit": {"synthetic": true}.

--format markdown writes a transcript: one section per session, each request with its
response, latency and notifications, errors marked.

What the capture redacted stays redacted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if har {
				if format != "" && format != "har" {
					return errors.New("tap export: --har and --format " + format + " contradict each other")
				}
				format = "har"
			}
			return runTapExport(format, args[0])
		},
	}
	cmd.Flags().BoolVar(&har, "har", false, "write HAR 1.2 (same as --format har)")
	cmd.Flags().StringVar(&format, "format", "", "output format: har or markdown")
	return cmd
}

func runTapExport(format, path string) error {
	write := export.HAR
	switch format {
	case "har":
	case "markdown", "md":
		write = export.Markdown
	case "":
		return errors.New("tap export: choose a format: --har or --format markdown")
	default:
		return fmt.Errorf("tap export: unknown format %q (har or markdown)", format)
	}
	h, recs, err := capture.ReadFile(path)
	if err != nil {
		return fmt.Errorf("tap export: %w", err)
	}
	w := bufio.NewWriter(os.Stdout)
	if err := write(w, h, recs); err != nil {
		return fmt.Errorf("tap export: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("tap export: %w", err)
	}
	return nil
}
