package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// hostUI is the terminal side of `mcpkit host`: it shows the run (the
// streamed answer, tool calls and their results) and asks for approvals.
type hostUI struct {
	out     io.Writer        // the transcript: stdout in a chat, stderr for -p
	in      *term.LineReader // the terminal, or nil when there is none
	yes     bool             // approve everything
	verbose bool             // token usage and call durations
	stream  bool             // show the answer as it streams (a chat)

	color     palette         // colour the transcript (a terminal, no NO_COLOR)
	spin      *term.Spinner   // turns on standard error while tools run; nil without a terminal there
	running   map[string]bool // ids of the tool calls under way (onEvent's calls are serialized)
	last      *host.Event     // the last tool result, for /last
	mu        sync.Mutex      // one prompt on the terminal at a time (shared with elicitation forms)
	approvals term.Approvals  // tools and servers approved for the session ("a"); guarded by mu
	midLine   bool            // the streamed text has not ended its line

	usageMu  sync.Mutex
	sampling llm.Usage // tokens of the servers' sampling requests
	samples  int
}

// onEvent shows an event of the run. Every string from the model or a
// server is escaped (termSafe): it cannot move the cursor or retitle the
// window.
func (ui *hostUI) onEvent(ev host.Event) {
	switch ev.Type {
	case host.EventText:
		if ui.stream {
			fmt.Fprint(ui.out, termText(ev.Text))
			ui.midLine = !strings.HasSuffix(ev.Text, "\n")
		}
	case host.EventToolCall:
		ui.spin.Pause()
		ui.newLine()
		fmt.Fprintf(ui.out, "  %s\n", ui.color.call("→ "+capture.TermSafe(ev.Call.Name)+" "+capture.TermSafe(clipLine(string(ev.Call.Arguments), 300))))
		ui.spin.Resume()
		if ui.running == nil {
			ui.running = map[string]bool{}
		}
		ui.running[ev.Call.ID] = true
		ui.spin.Start(ui.runningLabel(ev.Call.Name))
	case host.EventToolResult:
		delete(ui.running, ev.Call.ID) // a call refused or unknown never ran
		if len(ui.running) == 0 {
			ui.spin.Stop()
		} else {
			ui.spin.Pause()
			defer ui.spin.Resume()
		}
		ui.newLine()
		ev := ev
		ui.last = &ev
		mark, paint := "←", ui.color.ok
		if ev.Result.IsError {
			mark, paint = "✗", ui.color.bad
		}
		took := ""
		if ui.verbose && ev.Duration > 0 {
			took = fmt.Sprintf(" (%s)", ev.Duration.Round(1e6))
		}
		fmt.Fprintf(ui.out, "  %s\n", paint(fmt.Sprintf("%s %s%s: %s", mark, capture.TermSafe(ev.Call.Name), took, capture.TermSafe(clipLine(summarize(ev.Result), 400)))))
		if ev.Call.Tool != nil && !ev.Result.IsError {
			if uri := host.ViewOf(&ev.Call.Tool.MCP); uri != "" {
				fmt.Fprintf(ui.out, "    %s\n", ui.color.dim("(the server renders this result as an app view, "+strconv.QuoteToASCII(clipLine(uri, 200))+": open it with mcpkit host --web)"))
			}
		}
	}
}

// runningLabel is the spinner's text while tools run.
func (ui *hostUI) runningLabel(name string) string {
	if len(ui.running) > 1 {
		return fmt.Sprintf("running %d tools…", len(ui.running))
	}
	return "running " + capture.TermSafe(clipLine(name, 60)) + "…"
}

// termLock is the lock of the terminal's prompts (approvals, elicitation
// forms): it holds mu and keeps the spinner off the line meanwhile.
func (ui *hostUI) termLock() sync.Locker { return uiLock{ui} }

type uiLock struct{ ui *hostUI }

func (l uiLock) Lock()   { l.ui.mu.Lock(); l.ui.spin.Pause() }
func (l uiLock) Unlock() { l.ui.spin.Resume(); l.ui.mu.Unlock() }

// newLine ends the streamed text's line before other output.
func (ui *hostUI) newLine() {
	if ui.midLine {
		fmt.Fprintln(ui.out)
		ui.midLine = false
	}
}

// endTurn closes a turn's output: the streamed line, and with -v the tokens.
func (ui *hostUI) endTurn(res *host.Result) {
	ui.newLine()
	if !ui.verbose || res == nil {
		return
	}
	ui.usageMu.Lock()
	s, n := ui.sampling, ui.samples
	ui.sampling, ui.samples = llm.Usage{}, 0
	ui.usageMu.Unlock()
	line := fmt.Sprintf("mcpkit: tokens: %s in %d request(s)", res.Usage, res.Steps)
	if n > 0 {
		line += fmt.Sprintf("; sampling: %s in %d request(s)", s, n)
	}
	fmt.Fprintln(os.Stderr, line)
}

// countSampling adds a sampling answer's tokens to the turn's.
func (ui *hostUI) countSampling(r *llm.Response) {
	ui.usageMu.Lock()
	defer ui.usageMu.Unlock()
	ui.sampling = ui.sampling.Add(r.Usage)
	ui.samples++
}

// approveTool asks whether a tool call may run: y, n, or a (always, for this
// tool, until the end of the session).
func (ui *hostUI) approveTool(ctx context.Context, c *host.Call) (bool, error) {
	if ui.yes {
		return true, nil
	}
	l := ui.termLock()
	l.Lock()
	defer l.Unlock()
	if ui.approvals.Always(c.Name) {
		return true, nil
	}
	if ui.in == nil {
		fmt.Fprintf(os.Stderr, "mcpkit: declined %s: no terminal to ask for approval on (use --yes)\n", capture.TermSafe(c.Name))
		return false, nil
	}
	ui.newLine()
	return ui.approvals.Ask(ctx, ui.in, ui.out, c.Name, fmt.Sprintf("  Run %s %s? [y]es, [n]o, [a]lways for this tool: ", capture.TermSafe(c.Name), capture.TermSafe(clipLine(string(c.Arguments), 300))))
}

// approveSampling asks whether a server's sampling request may reach the
// model.
func (ui *hostUI) approveSampling(ctx context.Context, server string, p *protocol.CreateMessageParams) (bool, error) {
	if ui.yes {
		return true, nil
	}
	l := ui.termLock()
	l.Lock()
	defer l.Unlock()
	key := "sampling:" + server
	if ui.approvals.Always(key) {
		return true, nil
	}
	var last string
	if n := len(p.Messages); n > 0 {
		for _, c := range p.Messages[n-1].Content {
			if c.Type == protocol.ContentTypeText {
				last += c.Text
			}
		}
	}
	if ui.in == nil {
		fmt.Fprintf(os.Stderr, "mcpkit: refused server %s's sampling request: no terminal to ask for approval on (use --yes)\n", server)
		return false, nil
	}
	ui.newLine()
	return ui.approvals.Ask(ctx, ui.in, ui.out, key, fmt.Sprintf("  Server %s asks the model: %q (at most %d tokens). Allow? [y]es, [n]o, [a]lways for this server: ",
		capture.TermSafe(server), clipLine(last, 200), p.MaxTokens))
}

// summarize writes a tool result on one line: its text, and its other blocks
// named.
func summarize(r *protocol.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		switch c.Type {
		case protocol.ContentTypeText:
			parts = append(parts, c.Text)
		case protocol.ContentTypeResourceLink:
			parts = append(parts, "[link "+c.URI+"]")
		case protocol.ContentTypeResource:
			if c.Resource != nil {
				parts = append(parts, "[resource "+c.Resource.URI+"]")
			}
		default:
			parts = append(parts, fmt.Sprintf("[%s %s]", c.Type, c.MimeType))
		}
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		parts = append(parts, fmt.Sprint(r.StructuredContent))
	}
	return strings.Join(parts, " ")
}

// clipLine puts s on one line and shortens it to n bytes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
