// Package tui is the terminal view of `mcpkit tap --ui` and `mcpkit tap view`: a
// Bubble Tea program showing the live timeline (one row per request, its
// notifications folded under it), the filters of timeline.Filter, a detail pane
// with pretty JSON and schema violations, and the analysis.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

// ErrNoTerminal is wrapped by OpenTTY's error when the process has no terminal.
var ErrNoTerminal = errors.New("no terminal for the UI")

// OpenTTY opens the controlling terminal, for a UI that cannot use standard input
// and output (the stdio tap relays the MCP messages on them). Without one (a
// host started the tap) it fails, wrapping ErrNoTerminal.
func OpenTTY() (*os.File, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: opening /dev/tty: %w", ErrNoTerminal, err)
	}
	return f, nil
}

// Options configures Run.
type Options struct {
	// Hub is the timeline shown.
	Hub *view.Hub
	// Input and Output are the terminal; nil means standard input and output.
	Input  io.Reader
	Output io.Writer
	// Filter is the filter the UI starts with.
	Filter timeline.Filter
}

// refreshInterval spaces redraws while records pour in.
const refreshInterval = 100 * time.Millisecond

// Run shows the UI until the user quits (q) or ctx ends. It handles no signals:
// in raw mode Ctrl+C is a key, and the tap's own signal handling stays as it is.
func Run(ctx context.Context, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the goroutine waiting for changes
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	p := tea.NewProgram(New(ctx, o.Hub, o.Filter), opts...)
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // ended from outside: the tap stopped
	}
	if err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}
