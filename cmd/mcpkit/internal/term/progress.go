package term

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	xterm "golang.org/x/term"

	"github.com/mcpkit/mcpkit/protocol"
)

// ProgressBar shows notifications/progress: on a terminal, one line redrawn in
// place; elsewhere (a file, a pipe, a CI log) plain lines without escape codes.
type ProgressBar struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	drawn bool
}

// NewProgressBar returns a bar writing to w; tty says whether w is a terminal.
func NewProgressBar(w io.Writer, tty bool) *ProgressBar { return &ProgressBar{w: w, tty: tty} }

// barWidth is the number of cells of the bar on a terminal.
const barWidth = 30

// Update shows p.
func (b *ProgressBar) Update(p *protocol.ProgressParams) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.tty {
		line := fmt.Sprintf("progress %g", p.Progress)
		if p.Total > 0 {
			line += fmt.Sprintf("/%g", p.Total)
		}
		if p.Message != "" {
			line += " " + p.Message
		}
		fmt.Fprintln(b.w, line)
		return
	}
	line := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		filled := max(0, min(int(p.Progress/p.Total*barWidth), barWidth))
		line = fmt.Sprintf("[%s%s] %g/%g", strings.Repeat("#", filled), strings.Repeat(" ", barWidth-filled), p.Progress, p.Total)
	}
	if p.Message != "" {
		line += " " + p.Message
	}
	fmt.Fprintf(b.w, "\r\033[K%s", line)
	b.drawn = true
}

// Finish clears the bar's line on a terminal.
func (b *ProgressBar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return xterm.IsTerminal(int(f.Fd())) }
