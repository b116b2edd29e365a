package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
	"github.com/mcpkit/mcpkit/tap/view/tui"
	"github.com/mcpkit/mcpkit/tap/view/web"
)

func newTapViewCmd() *cobra.Command {
	var webAddr string
	cmd := &cobra.Command{
		Use:   "view FILE.jsonl [--web ADDR]",
		Short: "Browse a saved capture in the terminal UI, or in a browser with --web",
		Example: `  mcpkit tap view /tmp/mcp.jsonl
  mcpkit tap view /tmp/mcp.jsonl --web 127.0.0.1:8090`,
		Long: `Open a capture of "mcpkit tap" in the views of the live tap: the timeline (each
request with its response, latency and notifications), filters, a detail pane with
pretty JSON and schema violations, and the analysis.

The terminal UI is the default. Keys: ↑↓ move, enter detail, space fold, / method,
s session, d direction, e errors only, > latency, t text, c clear, a analysis, T tokens,
q quit. In the analysis, n/N select a failure or a row and enter shows its entry; in
the token panel (what the tools of the latest tools/list cost in a model's context),
f switches between the OpenAI and Anthropic formats and o the encoding.
--web ADDR serves the same views to a browser instead (loopback unless a host is
named; Host and Origin are checked) until interrupted; the page also flags tool
names that more than one server lists and previews the MCP App views the capture
read, in a sandboxed frame with no network and no server behind it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTapView(cmd.Context(), args[0], webAddr)
		},
	}
	cmd.Flags().StringVar(&webAddr, "web", "", "serve the views to a browser on this address (e.g. 127.0.0.1:8090) instead of the terminal UI")
	return cmd
}

func runTapView(ctx context.Context, path, webAddr string) error {
	// The views show their first screen while the capture loads; a line that
	// cannot be read (a cut last line included) is shown, not fatal. The
	// timeline keeps the newest entries, as a live view does: a capture of any
	// size opens in bounded memory (the view counts what it evicted).
	hub, feed, err := view.OpenFile(path, timeline.Options{Schema: true})
	if err != nil {
		return fmt.Errorf("tap view: %w", err)
	}
	go feed()
	if webAddr != "" {
		ln, err := mcpkit.Listen(webAddr)
		if err != nil {
			return fmt.Errorf("tap view: %w", err)
		}
		fmt.Fprintf(os.Stderr, "mcpkit tap view: open http://%s/ (Ctrl+C to stop)\n", ln.Addr())
		return web.Serve(ctx, ln, web.Options{Hub: hub})
	}
	if err := tui.Run(ctx, tui.Options{Hub: hub}); err != nil {
		return fmt.Errorf("tap view: %w", err)
	}
	return nil
}

// tapViews are the live views of a running tap (--ui, --web).
type tapViews struct {
	hub    *view.Hub
	tty    *os.File // the terminal of a stdio tap's UI
	cancel context.CancelFunc
	done   chan error // the web view's end
	fed    chan struct{}
}

// startTapViews starts what --ui and --web ask for, fed by rec. A stdio tap's UI
// needs the terminal (/dev/tty): without one it fails before anything starts.
func startTapViews(ctx context.Context, f *tapFlags, httpMode bool, header capture.Header, rec *capture.Recorder) (*tapViews, error) {
	if !f.ui && f.web == "" {
		return nil, nil
	}
	v := &tapViews{hub: view.NewHub(header, true, timeline.Options{Schema: true})}
	if f.ui && !httpMode {
		tty, err := tui.OpenTTY()
		if err != nil {
			return nil, fmt.Errorf("tap: --ui: the stdio tap relays MCP on standard input and output, so the UI needs a terminal of its own: %w", err)
		}
		v.tty = tty
	}
	var ln net.Listener
	if f.web != "" {
		var err error
		if ln, err = mcpkit.Listen(f.web); err != nil {
			if v.tty != nil {
				_ = v.tty.Close()
			}
			return nil, fmt.Errorf("tap: %w", err)
		}
	}
	ctx, v.cancel = context.WithCancel(ctx)
	sub := rec.Subscribe(1 << 14)
	v.fed = make(chan struct{})
	go func() { defer close(v.fed); v.hub.Run(ctx, sub.C) }()
	if ln != nil {
		v.done = make(chan error, 1)
		fmt.Fprintf(os.Stderr, "mcpkit tap: web view on http://%s/\n", ln.Addr())
		go func() { v.done <- web.Serve(ctx, ln, web.Options{Hub: v.hub}) }()
	}
	return v, nil
}

// runUI shows the terminal UI until the user quits or ctx ends.
func (v *tapViews) runUI(ctx context.Context) error {
	o := tui.Options{Hub: v.hub}
	if v.tty != nil {
		o.Input, o.Output = v.tty, v.tty
	}
	return tui.Run(ctx, o)
}

// stop ends the views and waits for them.
func (v *tapViews) stop() error {
	if v == nil {
		return nil
	}
	v.cancel()
	<-v.fed
	var err error
	if v.done != nil {
		err = <-v.done
	}
	if v.tty != nil {
		_ = v.tty.Close()
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}
