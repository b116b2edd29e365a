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
	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

// hostUI is the terminal side of `mcpkit host`: it shows the run (the
// streamed answer, tool calls and their results) and asks for approvals.
type hostUI struct {
	out     io.Writer        // the transcript: stdout in a chat, stderr for -p
	in      *term.LineReader // the terminal, or nil when there is none
	yes     bool             // approve everything
	verbose bool             // token usage and call durations
	stream  bool             // show the answer as it streams (a chat)

	mu        sync.Mutex     // one prompt on the terminal at a time (shared with elicitation forms)
	approvals term.Approvals // tools and servers approved for the session ("a"); guarded by mu
	midLine   bool           // the streamed text has not ended its line

	usageMu  sync.Mutex
	sampling llm.Usage // tokens of the servers' sampling requests
	samples  int
}

// onEvent shows an event of the run.
func (ui *hostUI) onEvent(ev host.Event) {
	switch ev.Type {
	case host.EventText:
		if ui.stream {
			fmt.Fprint(ui.out, ev.Text)
			ui.midLine = !strings.HasSuffix(ev.Text, "\n")
		}
	case host.EventToolCall:
		ui.newLine()
		fmt.Fprintf(ui.out, "  → %s %s\n", ev.Call.Name, clipLine(string(ev.Call.Arguments), 300))
	case host.EventToolResult:
		ui.newLine()
		mark := "←"
		if ev.Result.IsError {
			mark = "✗"
		}
		took := ""
		if ui.verbose && ev.Duration > 0 {
			took = fmt.Sprintf(" (%s)", ev.Duration.Round(1e6))
		}
		fmt.Fprintf(ui.out, "  %s %s%s: %s\n", mark, ev.Call.Name, took, clipLine(summarize(ev.Result), 400))
		if ev.Call.Tool != nil && !ev.Result.IsError {
			if uri := host.ViewOf(&ev.Call.Tool.MCP); uri != "" {
				fmt.Fprintf(ui.out, "    (the server renders this result as an app view, %s: open it with mcpkit host --web)\n", strconv.QuoteToASCII(clipLine(uri, 200)))
			}
		}
	}
}

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
	ui.mu.Lock()
	defer ui.mu.Unlock()
	if ui.approvals.Always(c.Name) {
		return true, nil
	}
	if ui.in == nil {
		fmt.Fprintf(os.Stderr, "mcpkit: declined %s: no terminal to ask for approval on (use --yes)\n", c.Name)
		return false, nil
	}
	ui.newLine()
	return ui.approvals.Ask(ctx, ui.in, ui.out, c.Name, fmt.Sprintf("  Run %s %s? [y]es, [n]o, [a]lways for this tool: ", c.Name, clipLine(string(c.Arguments), 300)))
}

// approveSampling asks whether a server's sampling request may reach the
// model.
func (ui *hostUI) approveSampling(ctx context.Context, server string, p *protocol.CreateMessageParams) (bool, error) {
	if ui.yes {
		return true, nil
	}
	ui.mu.Lock()
	defer ui.mu.Unlock()
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
		server, clipLine(last, 200), p.MaxTokens))
}

// chat reads the user's messages on the terminal and runs a turn for each.
// servers counts the enabled servers; status returns their states, for
// /servers.
func (ui *hostUI) chat(ctx context.Context, agent *host.Agent, model string, tools []host.Tool, servers int, status func() []gateway.ServerStatus) error {
	fmt.Fprintf(ui.out, "mcpkit host: %s, %d tools from %d server(s). /help for commands, Ctrl-D to quit.\n", model, len(tools), servers)
	for {
		fmt.Fprint(ui.out, "> ")
		line, err := ui.in.ReadLine(ctx)
		if err == io.EOF {
			fmt.Fprintln(ui.out)
			return nil
		}
		if err != nil {
			return err
		}
		switch line = strings.TrimSpace(line); line {
		case "":
			continue
		case "/quit", "/exit":
			return nil
		case "/help":
			fmt.Fprintln(ui.out, "  /tools lists the tools, /servers shows the servers' states, /usage shows the tokens so far, /quit (or Ctrl-D) quits; anything else goes to the model.")
			continue
		case "/servers":
			if err := printServers(ui.out, status()); err != nil {
				return err
			}
			continue
		case "/tools":
			for _, t := range tools {
				fmt.Fprintf(ui.out, "  %s — %s\n", t.Name, clipLine(t.MCP.Description, 100))
			}
			continue
		case "/usage":
			fmt.Fprintf(ui.out, "  tokens so far: %s\n", agent.Usage())
			continue
		}
		res, err := agent.Run(ctx, line)
		ui.endTurn(res)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(os.Stderr, "mcpkit: %v\n", hostError(err))
		}
	}
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
