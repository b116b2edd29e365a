package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// `mcpkit shell`: one session with a server, driven line by line. Each line is
// a command (see shellHelp); names may be cut to any unique beginning (the
// shell completes them, and lists the candidates of an ambiguous one). Server
// log messages and notifications are printed on stderr as they arrive.

const shellHelp = `commands:
  tools | resources | prompts     list them (names complete in the commands below)
  call TOOL [ARGS_JSON]           call a tool
  read URI                        read a resource
  get PROMPT [ARGS_JSON]          get a prompt
  ping                            check that the server answers
  log LEVEL                       server log messages at LEVEL and above (debug ... emergency)
  help                            this list
  quit | exit | Ctrl-D            end the session
a name may be cut to any unique beginning: "call ec" calls echo.`

const shellExample = `  mcpkit shell -- mcpkit serve
  mcpkit shell --url http://127.0.0.1:8080/mcp
  # server log messages from debug up
  mcpkit shell --log-level debug -- mcpkit serve`

func newShellCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shell (--url URL | -- COMMAND [ARGS...])",
		Short: "Talk to a server in one session, command by command",
		Long: `Open one session with the server (a command to start, or --url) and read commands
from standard input until quit or the end of the input: the server is started
once and keeps its state between calls.

` + shellHelp + `

Server log messages (at --log-level, info unless set) and the server's notifications
(list changes, resource updates) are printed on stderr as they arrive.`,
		Example: shellExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			own, target, err := splitTarget(cmd, g, args)
			if err != nil {
				return err
			}
			if len(own) != 0 {
				return fmt.Errorf("usage: %s", cmd.UseLine())
			}
			if err := validProtocol(g.protocol); err != nil {
				return err
			}
			if g.logLevel == "" {
				g.logLevel = string(protocol.LevelInfo)
			}
			if err := validLogLevel(g.logLevel); err != nil {
				return err
			}
			return runShell(cmd.Context(), g, target, os.Stdin, os.Stdout, os.Stderr)
		},
	}
	addClientFlags(cmd, g)
	return cmd
}

// shell is one session of `mcpkit shell`.
type shell struct {
	g      *globalFlags
	cs     *mcp.ClientSession
	out    io.Writer
	errOut io.Writer

	mu    sync.Mutex
	names map[string][]string // tool, resource and prompt names, by kind
}

// runShell connects to the target and runs the commands read from in.
func runShell(ctx context.Context, g *globalFlags, target []string, in io.Reader, out, errOut io.Writer) error {
	clock := newRequestClock(g.timeout)
	lines := term.NewLineReader(in)
	opts, err := clientOptionsOn(g, clock, lines, &sync.Mutex{}, errOut)
	if err != nil {
		return err
	}
	sh := &shell{g: g, out: out, errOut: errOut, names: map[string][]string{}}
	printLogs(opts, errOut)
	notice := func(what string) func(context.Context, *mcp.ClientSession) {
		return func(context.Context, *mcp.ClientSession) {
			fmt.Fprintf(errOut, "mcpkit: notification: the server's %s changed\n", what)
		}
	}
	opts.ToolListChangedHandler = notice("tool list")
	opts.PromptListChangedHandler = notice("prompt list")
	opts.ResourceListChangedHandler = notice("resource list")
	opts.ResourceUpdatedHandler = func(_ context.Context, _ *mcp.ClientSession, p *protocol.ResourceUpdatedParams) {
		fmt.Fprintf(errOut, "mcpkit: notification: resource %s updated\n", capture.TermSafe(p.URI))
	}
	cs, done, err := connect(ctx, g, clock, target, opts)
	if err != nil {
		return err
	}
	defer done()
	defer cs.Close()
	sh.cs = cs
	if err := askForLogs(ctx, cs, g.logLevel, errOut); err != nil {
		return err
	}
	fmt.Fprintf(out, "connected to %s, protocol %s; type help for the commands\n", capture.TermSafe(serverName(cs)), cs.ProtocolVersion())
	for {
		fmt.Fprint(out, "mcp> ")
		line, err := lines.ReadLine(ctx)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(out)
			return nil
		}
		if err != nil {
			return err
		}
		if quit := sh.run(ctx, strings.TrimSpace(line)); quit {
			return nil
		}
	}
}

// run runs one command line; it reports whether the session should end.
func (sh *shell) run(ctx context.Context, line string) (quit bool) {
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	var err error
	switch word {
	case "":
	case "quit", "exit":
		return true
	case "help", "?":
		fmt.Fprintln(sh.out, shellHelp)
	case "tools":
		err = sh.list(ctx, "tool")
	case "resources":
		err = sh.list(ctx, "resource")
	case "prompts":
		err = sh.list(ctx, "prompt")
	case "ping":
		if err = sh.cs.Ping(ctx); err == nil {
			fmt.Fprintln(sh.out, "pong")
		}
	case "log":
		if err = validLogLevel(rest); err == nil && rest != "" {
			err = askForLogs(ctx, sh.cs, rest, sh.errOut)
		}
	case "call", "read", "get":
		kind := map[string]string{"call": "tool", "read": "resource", "get": "prompt"}[word]
		name, args, _ := strings.Cut(rest, " ")
		if name == "" {
			err = fmt.Errorf("%s needs a %s name (type %ss to list them)", word, kind, kind)
			break
		}
		if name, err = sh.complete(ctx, kind, name); err != nil {
			break
		}
		argv := []string{name}
		if a := strings.TrimSpace(args); a != "" {
			argv = append(argv, a)
		}
		switch word {
		case "call":
			err = callTool(ctx, sh.g, sh.cs, argv)
		case "read":
			err = readResource(ctx, sh.g, sh.cs, argv)
		case "get":
			err = getPrompt(ctx, sh.g, sh.cs, argv)
		}
	default:
		err = fmt.Errorf("unknown command %q (type help for the commands)", capture.TermSafe(word))
	}
	var ee exitError
	switch {
	case errors.As(err, &ee):
		fmt.Fprintln(sh.errOut, "mcpkit: the tool reported an error (isError)")
	case err != nil:
		fmt.Fprintln(sh.errOut, "mcpkit:", err)
	}
	return false
}

// list prints the server's tools, resources or prompts, and keeps their names
// for completion.
func (sh *shell) list(ctx context.Context, kind string) error {
	var err error
	switch kind {
	case "tool":
		err = listAll(sh.g, sh.cs.Tools(ctx), printTool)
	case "resource":
		err = listResources(ctx, sh.g, sh.cs)
	case "prompt":
		err = listAll(sh.g, sh.cs.Prompts(ctx), printPrompt)
	}
	if err != nil {
		return err
	}
	_, err = sh.namesOf(ctx, kind, true)
	return err
}

// namesOf returns the names of kind, listing them from the server the first
// time (or again when fresh).
func (sh *shell) namesOf(ctx context.Context, kind string, fresh bool) ([]string, error) {
	sh.mu.Lock()
	names, ok := sh.names[kind]
	sh.mu.Unlock()
	if ok && !fresh {
		return names, nil
	}
	names = nil
	switch kind {
	case "tool":
		for t, err := range sh.cs.Tools(ctx) {
			if err != nil {
				return nil, err
			}
			names = append(names, t.Name)
		}
	case "resource":
		for r, err := range sh.cs.Resources(ctx) {
			if err != nil {
				return nil, err
			}
			names = append(names, r.URI)
		}
	case "prompt":
		for p, err := range sh.cs.Prompts(ctx) {
			if err != nil {
				return nil, err
			}
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	sh.mu.Lock()
	sh.names[kind] = names
	sh.mu.Unlock()
	return names, nil
}

// complete returns the name of kind that prefix begins: prefix itself when it
// is a name (or, for a resource, any URI: templates make more than the list
// holds), else the one name it begins; several are listed in the error.
func (sh *shell) complete(ctx context.Context, kind, prefix string) (string, error) {
	names, err := sh.namesOf(ctx, kind, false)
	if err != nil {
		return "", err
	}
	if slices.Contains(names, prefix) {
		return prefix, nil
	}
	var matches []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			matches = append(matches, n)
		}
	}
	switch {
	case len(matches) == 1:
		fmt.Fprintf(sh.errOut, "mcpkit: %s %s\n", kind, capture.TermSafe(matches[0]))
		return matches[0], nil
	case len(matches) > 1:
		for i, m := range matches {
			matches[i] = capture.TermSafe(m)
		}
		return "", fmt.Errorf("%q begins several %ss: %s", prefix, kind, strings.Join(matches, ", "))
	case kind == "resource":
		return prefix, nil
	}
	return "", fmt.Errorf("no %s %q (type %ss to list them)", kind, prefix, kind)
}
