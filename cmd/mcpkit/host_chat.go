package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/host/web"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// maxListed bounds the resources and prompts /resources and /prompts list
// per server.
const maxListed = 200

// hostChat is a conversation of the terminal host: the agent, the servers'
// sessions for attachments and prompts, and the file it is saved in.
type hostChat struct {
	agent   *host.Agent
	src     *host.SessionSource
	session string            // --session FILE, or ""
	saved   *web.SavedSession // what the file holds (the page's events kept)
}

// openSession goes on from the conversation saved in c.session, if any (by
// this host or by --web: one format).
func (c *hostChat) openSession() (int, error) {
	c.saved = &web.SavedSession{}
	if c.session == "" {
		return 0, nil
	}
	sv, err := web.ReadSession(c.session)
	if err != nil || sv == nil {
		return 0, err
	}
	c.saved = sv
	c.agent.Resume(sv.Messages)
	return len(sv.Messages), nil
}

// turn runs one turn with text as the user's message, the resources it
// names (@server:uri) attached before it when attach is set, and saves the
// conversation.
func (c *hostChat) turn(ctx context.Context, ui *hostUI, text string, attach bool) (*host.Result, error) {
	prompt := text
	var names []string
	if attach {
		list := attachmentsIn(text, c.src.ServerNames())
		if len(list) > 0 {
			body, err := c.src.Attach(ctx, list)
			if err != nil {
				return nil, fmt.Errorf("attaching: %w", err)
			}
			for _, a := range list {
				names = append(names, a.Server+" "+a.URI)
				fmt.Fprintf(ui.out, "  %s\n", ui.color.dim("attached "+capture.TermSafe(a.URI)+" from "+capture.TermSafe(a.Server)))
			}
			prompt = strings.TrimSpace(body) + "\n\n" + text
		}
	}
	res, err := c.agent.Run(ctx, prompt)
	ui.endTurn(res)
	if c.session != "" {
		answer, steps := "", 0
		if res != nil {
			answer, steps = res.Text, res.Steps
			c.saved.AddTurn(text, names, answer, steps, res.Usage)
		}
		c.saved.Messages = c.agent.Messages()
		if serr := web.WriteSession(c.session, c.saved); serr != nil {
			fmt.Fprintf(os.Stderr, "mcpkit: saving the conversation: %v\n", serr)
		}
	}
	return res, err
}

// attachRE finds the @server:uri words of a message.
var attachRE = regexp.MustCompile(`(?:^|\s)@(\S+)`)

// attachmentsIn returns the resources a message names as @server:uri (with
// one server, @uri also does); a word that names no server (@alice) is left
// as text.
func attachmentsIn(text string, servers []string) []host.Attachment {
	var out []host.Attachment
	for _, m := range attachRE.FindAllStringSubmatch(text, -1) {
		word := strings.TrimRight(m[1], ".,;!?)")
		name, uri, ok := strings.Cut(word, ":")
		var a host.Attachment
		switch {
		case ok && uri != "" && slices.Contains(servers, name):
			a = host.Attachment{Server: name, URI: uri}
		case ok && len(servers) == 1:
			a = host.Attachment{Server: servers[0], URI: word}
		default:
			continue
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// chatHelp is /help's text.
const chatHelp = `  @server:uri in a message attaches that resource (with one server, @uri);
  /prompt NAME [JSON arguments] sends a server's prompt (SERVER:NAME with several servers);
  /resources and /prompts list what the servers offer; /last shows the last tool result in full;
  /tools lists the tools, /servers shows the servers' states, /usage shows the tokens so far,
  /quit (or Ctrl-D) quits; anything else goes to the model.`

// chat reads the user's messages on the terminal and runs a turn for each.
// servers counts the enabled servers; status returns their states, for
// /servers.
func (ui *hostUI) chat(ctx context.Context, c *hostChat, model string, tools []host.Tool, servers int, status func() []gateway.ServerStatus) error {
	fmt.Fprintf(ui.out, "mcpkit host: %s, %d tools from %d server(s). /help for commands, Ctrl-D to quit.\n", model, len(tools), servers)
	for {
		fmt.Fprint(ui.out, ui.color.bold("> "))
		line, err := ui.in.ReadLine(ctx)
		if err == io.EOF {
			fmt.Fprintln(ui.out)
			return nil
		}
		if err != nil {
			return err
		}
		line = strings.TrimSpace(line)
		cmd, rest, _ := strings.Cut(line, " ")
		attach := true
		switch cmd {
		case "":
			continue
		case "/quit", "/exit":
			return nil
		case "/help":
			fmt.Fprintln(ui.out, chatHelp)
			continue
		case "/servers":
			if err := printServers(ui.out, status()); err != nil {
				return err
			}
			continue
		case "/tools":
			for _, t := range tools {
				fmt.Fprintf(ui.out, "  %s — %s\n", capture.TermSafe(t.Name), capture.TermSafe(clipLine(t.MCP.Description, 100)))
			}
			continue
		case "/usage":
			fmt.Fprintf(ui.out, "  tokens so far: %s\n", c.agent.Usage())
			continue
		case "/last", "/full":
			ui.printLast()
			continue
		case "/resources", "/prompts":
			ui.listCatalog(ctx, c.src, cmd == "/prompts")
			continue
		case "/prompt":
			text, err := ui.promptMessage(ctx, c.src, strings.TrimSpace(rest))
			if err != nil {
				fmt.Fprintf(os.Stderr, "mcpkit: %s\n", capture.TermSafe(err.Error()))
				continue
			}
			line, attach = text, false
		}
		_, err = c.turn(ctx, ui, line, attach)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(os.Stderr, "mcpkit: %s\n", capture.TermSafe(hostError(err).Error()))
		}
	}
}

// promptMessage gets the prompt of a "/prompt [SERVER:]NAME [JSON]" line and
// shows its text, which becomes the user's message.
func (ui *hostUI) promptMessage(ctx context.Context, src *host.SessionSource, arg string) (string, error) {
	name, rawArgs, _ := strings.Cut(arg, " ")
	if name == "" {
		return "", fmt.Errorf("/prompt NAME [JSON arguments]")
	}
	servers := src.ServerNames()
	server := ""
	if s, n, ok := strings.Cut(name, ":"); ok && slices.Contains(servers, s) {
		server, name = s, n
	} else if len(servers) > 1 {
		server = findPrompt(ctx, src, name)
		if server == "" {
			return "", fmt.Errorf("no server has a prompt %q (/prompts lists them)", name)
		}
	}
	args := map[string]string{}
	if rawArgs = strings.TrimSpace(rawArgs); rawArgs != "" {
		var in map[string]any
		if err := json.Unmarshal([]byte(rawArgs), &in); err != nil {
			return "", fmt.Errorf("/prompt %s: the arguments are not a JSON object: %v", name, err)
		}
		for k, v := range in {
			if s, ok := v.(string); ok {
				args[k] = s
			} else {
				b, _ := json.Marshal(v)
				args[k] = string(b)
			}
		}
	}
	text, err := src.PromptText(ctx, server, name, args)
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", name, err)
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("prompt %s has no text to send", name)
	}
	fmt.Fprintf(ui.out, "  %s\n", ui.color.dim("prompt "+capture.TermSafe(name)+":"))
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(ui.out, "  %s\n", ui.color.dim("│ "+capture.TermSafe(l)))
	}
	return text, nil
}

// findPrompt returns the first server that lists a prompt named name.
func findPrompt(ctx context.Context, src *host.SessionSource, name string) string {
	for _, s := range src.ServerNames() {
		cs, err := src.ServerSession(ctx, s)
		if err != nil || cs.InitializeResult().Capabilities.Prompts == nil {
			continue
		}
		n := 0
		for p, err := range cs.Prompts(ctx) {
			if err != nil || n >= maxListed {
				break
			}
			n++
			if p.Name == name {
				return s
			}
		}
	}
	return ""
}

// listCatalog prints the servers' resources (or prompts), as they are
// attached (@server:uri) or sent (/prompt server:name).
func (ui *hostUI) listCatalog(ctx context.Context, src *host.SessionSource, prompts bool) {
	for _, s := range src.ServerNames() {
		cs, err := src.ServerSession(ctx, s)
		if err != nil {
			continue
		}
		caps := cs.InitializeResult().Capabilities
		n := 0
		if prompts && caps.Prompts != nil {
			for p, err := range cs.Prompts(ctx) {
				if err != nil || n >= maxListed {
					break
				}
				n++
				var args []string
				for _, a := range p.Arguments {
					args = append(args, a.Name)
				}
				fmt.Fprintf(ui.out, "  %s:%s %s — %s\n", capture.TermSafe(s), capture.TermSafe(p.Name), capture.TermSafe(strings.Join(args, " ")), capture.TermSafe(clipLine(p.Description, 100)))
			}
		}
		if !prompts && caps.Resources != nil {
			for r, err := range cs.Resources(ctx) {
				if err != nil || n >= maxListed {
					break
				}
				n++
				fmt.Fprintf(ui.out, "  @%s:%s — %s\n", capture.TermSafe(s), capture.TermSafe(r.URI), capture.TermSafe(clipLine(r.Description, 100)))
			}
		}
	}
}

// printLast shows the last tool result in full: every content block, and
// the structured content as indented JSON.
func (ui *hostUI) printLast() {
	if ui.last == nil {
		fmt.Fprintln(ui.out, "  no tool result yet")
		return
	}
	ev := ui.last
	fmt.Fprintf(ui.out, "  %s\n", ui.color.call("result of "+capture.TermSafe(ev.Call.Name)+" "+capture.TermSafe(string(ev.Call.Arguments))))
	var b strings.Builder
	for _, c := range ev.Result.Content {
		switch c.Type {
		case protocol.ContentTypeText:
			b.WriteString(c.Text)
		case protocol.ContentTypeResource:
			if c.Resource != nil {
				fmt.Fprintf(&b, "[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
			}
		case protocol.ContentTypeResourceLink:
			fmt.Fprintf(&b, "[link %s]", c.URI)
		default:
			fmt.Fprintf(&b, "[%s %s, %d bytes]", c.Type, c.MimeType, len(c.Data))
		}
		b.WriteString("\n")
	}
	if ev.Result.StructuredContent != nil {
		if data, err := json.MarshalIndent(ev.Result.StructuredContent, "", "  "); err == nil {
			b.WriteString("structured content:\n")
			b.Write(data)
			b.WriteString("\n")
		}
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprintf(ui.out, "  │ %s\n", capture.TermSafe(l))
	}
}

// palette colours the transcript, or leaves it plain (not a terminal, or
// NO_COLOR set).
type palette bool

// colorFor says whether output to f gets colours: f is a terminal and
// NO_COLOR (https://no-color.org) is not set.
func colorFor(f *os.File) palette {
	return palette(term.IsTerminal(f) && os.Getenv("NO_COLOR") == "")
}

func (p palette) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) call(s string) string { return p.paint("36", s) }
func (p palette) ok(s string) string   { return p.paint("32", s) }
func (p palette) bad(s string) string  { return p.paint("31", s) }
func (p palette) dim(s string) string  { return p.paint("2", s) }
func (p palette) bold(s string) string { return p.paint("1", s) }

// termText escapes streamed model text for the terminal, keeping its line
// breaks and tabs.
func termText(s string) string {
	if capture.TermSafe(s) == s {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = capture.TermSafe(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}
