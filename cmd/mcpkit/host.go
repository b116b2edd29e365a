package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/anthropic"
	"github.com/mcpkit/mcpkit/llm/openai"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// webDefaultAddr is where a bare --web serves the page: loopback, any free port.
const webDefaultAddr = "127.0.0.1:0"

// hostFlags are the flags of `mcpkit host`.
type hostFlags struct {
	servers       []string
	headers       []string
	config        string
	model         string
	baseURL       string
	prompt        string
	system        string
	yes           bool
	maxSteps      int
	maxTokens     int
	timeout       time.Duration
	roots         []string
	elicitAnswers string
	web           string
	session       string
	toolSearch    string
	telemetry     telemetryFlags // --metrics-addr; OTLP from OTEL_* (telemetry.go)
}

func newHostCmd(g *globalFlags) *cobra.Command {
	f := &hostFlags{}
	cmd := &cobra.Command{
		Use:   "host --model PROVIDER:MODEL (--config FILE | --server COMMAND|URL...) [-p PROMPT]",
		Short: "Chat with a language model that uses the tools of MCP servers",
		Long: `host runs a language model over the tools of MCP servers: the model sees every
server's tools (named SERVER__TOOL when there are several servers), asks for calls,
and host runs them through MCP and gives the results back, until the model answers.

--config reads the servers from a Claude Desktop or VS Code configuration file
(as mcpkit gateway does): each enabled server is started and kept running (a
crashed one is restarted), and its allowedTools/excludedTools decide which of
its tools the model sees. --server adds servers to those of --config, run by
the same supervisor; one that does not come up ends the command.

Without -p it is a chat on the terminal: the answer streams, each tool call is shown
with its arguments and result (a spinner turns while it runs; /last shows the
last result in full), and each call waits for your approval (y, n, or a:
always for that tool) unless --yes. @server:uri in a message attaches that
resource of that server (@uri with one server; /resources lists them), and
/prompt NAME [JSON arguments] sends a server's prompt (/prompts lists them).
Colours only on a terminal, and not with NO_COLOR set.

--session FILE (or --resume FILE) keeps the conversation in FILE and goes on
from it when it exists; the file is the same for the terminal and --web, so a
conversation begun in one goes on in the other. With -p it runs one turn and prints the final
answer on stdout (tool calls go to stderr); with no -p and no terminal, the prompt
is read from standard input.

Models: openai:MODEL (OPENAI_API_KEY; --base-url or OPENAI_BASE_URL for any
OpenAI-compatible server: vLLM, LM Studio, llama.cpp, OpenRouter), ollama:MODEL
(OLLAMA_HOST, default localhost:11434; no key), anthropic:MODEL (ANTHROPIC_API_KEY;
ANTHROPIC_BASE_URL). -v adds the tokens each turn used.
Servers that ask for sampling get the same model (approved like tool calls).

--web serves the same chat as a page in the browser instead (on a loopback
address; every asset is in the binary): streamed answers, a card per tool call
with approve / deny / always, the servers' state, tokens per turn, and the MCP
Apps views of tool results, each in a sandboxed iframe on another origin.

--tool-search (default auto) spares the model every tool's definition in every
request: it gets search_tools (names and one-line descriptions, best match
first) and load_tools (the full definitions of the tools it picked, offered from
the next request on) instead. auto turns it on when the definitions would cost
over 3,000 tokens (about two servers). Tools that an MCP App keeps for its view
(_meta.ui.visibility without "model") are never offered to the model; a result
that an app renders is shown as text, with a note that its view needs --web.

` + telemetryHelp + `
The host measures its calls to the servers (mcp.client.operation.duration) and
their states (mcpkit.upstream.servers, mcpkit.upstream.restarts).`,
		Example: `  # chat with GPT-4o over the demo server's tools
  mcpkit host --model openai:gpt-4o --server 'mcpkit serve'
  # one turn, two named servers (their tools become demo__echo, more__echo, ...)
  mcpkit host --model anthropic:claude-sonnet-4-5 --server 'demo=mcpkit serve' --server 'more=mcpkit serve' -p 'Add 2 and 3'
  # a local model, a server over HTTP, no approval prompts, token counts
  mcpkit host --model ollama:qwen3 --server http://127.0.0.1:8080/mcp --yes -v -p 'Echo hi'
  # a server over HTTP that wants an API key, taken from the environment (secrets are never printed)
  mcpkit host --model openai:gpt-4o --server http://127.0.0.1:8080/mcp --header 'X-Api-Key: ${env:API_KEY:-dev-key}' --yes -p 'Echo hi'
  # the servers of a Claude Desktop or VS Code configuration file
  mcpkit host --model openai:gpt-4o --config mcp.json --yes
  # the chat in the browser, MCP Apps views included
  mcpkit host --model openai:gpt-4o --server http://127.0.0.1:8080/mcp --web`,
		// One argument: the address of a bare --web ("--web 127.0.0.1:8080"
		// reads as --web and an argument, since --web's value is optional).
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if f.web != webDefaultAddr {
					return fmt.Errorf("unexpected argument %q", args[0])
				}
				f.web = args[0]
			}
			return runHost(cmd.Context(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.servers, "server", nil, "an MCP server: a command line to run (stdio) or an http(s) URL, optionally named NAME=... (repeatable)")
	fl.StringArrayVar(&f.headers, "header", nil, "an HTTP header for the --server URLs, as 'Name: value', or 'SERVER=Name: value' for one of them (repeatable; ${env:VAR} is replaced from the environment)")
	fl.StringVar(&f.config, "config", "", "read the MCP servers from this configuration file (Claude Desktop or VS Code format)")
	fl.StringVar(&f.model, "model", "", "the model, as PROVIDER:MODEL (openai, anthropic, ollama)")
	fl.StringVar(&f.baseURL, "base-url", "", "the provider's API base URL (an OpenAI-compatible server's .../v1)")
	fl.StringVarP(&f.prompt, "prompt", "p", "", "run one turn with this prompt and print the final answer")
	fl.StringVar(&f.system, "system", "", "the system prompt")
	fl.BoolVarP(&f.yes, "yes", "y", false, "run every tool call and sampling request without asking")
	fl.IntVar(&f.maxSteps, "max-steps", host.DefaultMaxSteps, "the most model requests in one turn")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "the most tokens in one answer (0: the provider's default)")
	fl.DurationVar(&f.timeout, "timeout", defaultTimeout, "give up on a tool call its server has not answered in this long; 0 waits for ever")
	fl.StringArrayVar(&f.roots, "root", nil, "offer this directory to the servers as a root (repeatable)")
	fl.StringVar(&f.elicitAnswers, "elicit-answers", "", "answer the servers' elicitation forms from this JSON file instead of prompting")
	fl.StringVar(&f.web, "web", "", "serve the chat as a web page at this loopback address (bare --web: 127.0.0.1, any free port), MCP Apps views included")
	fl.Lookup("web").NoOptDefVal = webDefaultAddr
	fl.StringVar(&f.session, "session", "", "keep the conversation in this file, going on from it when it exists (the same file for the terminal and --web)")
	fl.StringVar(&f.session, "resume", "", "the same as --session: go on from the conversation saved in this file, and keep saving it there")
	fl.StringVar(&f.toolSearch, "tool-search", "auto", "offer the model a search over the tools instead of every definition: on, off, or auto (on when the definitions would cost over 3,000 tokens)")
	f.telemetry.register(fl)
	_ = cmd.MarkFlagRequired("model")
	return cmd
}

// runHost connects the servers and runs one turn (-p, or standard input when
// it is not a terminal) or the chat.
func runHost(ctx context.Context, g *globalFlags, f *hostFlags) error {
	provider, model, err := newProvider(f.model, f.baseURL, os.Getenv)
	if err != nil {
		return err
	}
	if len(f.servers) == 0 && f.config == "" {
		return errors.New("no MCP server: give --config FILE, or at least one --server COMMAND or --server URL")
	}
	if f.maxSteps < 1 {
		return fmt.Errorf("--max-steps %d: must be at least 1", f.maxSteps)
	}
	search, err := host.ParseToolSearch(f.toolSearch)
	if err != nil {
		return fmt.Errorf("--tool-search %q: want auto, on or off", f.toolSearch)
	}
	if f.web != "" {
		return runHostWeb(ctx, g, f, provider, model, search)
	}
	onTerminal := term.IsTerminal(os.Stdin)
	chat := f.prompt == "" && onTerminal
	prompt := f.prompt
	if prompt == "" && !onTerminal {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return fmt.Errorf("reading the prompt from standard input: %w", err)
		}
		if prompt = strings.TrimSpace(string(data)); prompt == "" {
			return errors.New("no prompt: give -p PROMPT, or run on a terminal to chat")
		}
	}
	ui := &hostUI{out: os.Stderr, yes: f.yes, verbose: g.verbose, stream: chat, color: colorFor(os.Stderr)}
	if chat {
		ui.out, ui.color = os.Stdout, colorFor(os.Stdout)
	}
	if term.IsTerminal(os.Stderr) {
		ui.spin = term.NewSpinner(os.Stderr)
	}
	if onTerminal {
		ui.in = term.NewLineReader(os.Stdin)
	}
	list, sup, stop, err := startServers(ctx, g, f, ui, provider, model)
	if err != nil {
		return err
	}
	defer stop()
	src := host.NewSessionSource(list...)
	src.Warn = func(server string, err error) { fmt.Fprintf(os.Stderr, "mcpkit: %v\n", err) }
	agent := host.New(src, host.Options{Provider: provider, Model: model, System: f.system, MaxSteps: f.maxSteps,
		MaxTokens: f.maxTokens, Approve: ui.approveTool, OnEvent: ui.onEvent, ToolSearch: search})
	c := &hostChat{agent: agent, src: src, session: f.session}
	resumed, err := c.openSession()
	if err != nil {
		return err
	}
	if resumed > 0 {
		fmt.Fprintf(os.Stderr, "mcpkit: going on from %d messages saved in %s\n", resumed, capture.TermSafe(f.session))
	}
	if !chat {
		res, err := c.turn(ctx, ui, prompt, true)
		if err != nil {
			return hostError(err)
		}
		fmt.Println(res.Text)
		return nil
	}
	tools, err := src.Tools(ctx)
	if err != nil {
		return err
	}
	status := func() []gateway.ServerStatus { return hostStatuses(sup, src) }
	return ui.chat(ctx, c, f.model, tools, len(list), status)
}

// hostError words an error that ended a turn.
func hostError(err error) error {
	if errors.Is(err, host.ErrMaxSteps) {
		return fmt.Errorf("stopped: %w; raise --max-steps to let it go on", err)
	}
	return err
}

// newProvider builds the provider of a --model PROVIDER:MODEL value, with its
// key from the environment.
func newProvider(spec, baseURL string, getenv func(string) string) (llm.Provider, string, error) {
	name, model, ok := strings.Cut(spec, ":")
	if !ok || model == "" {
		return nil, "", fmt.Errorf("--model %q: want PROVIDER:MODEL, e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5 or ollama:qwen3", spec)
	}
	switch name {
	case "openai":
		if baseURL == "" {
			baseURL = getenv("OPENAI_BASE_URL")
		}
		key := getenv("OPENAI_API_KEY")
		if key == "" && baseURL == "" {
			return nil, "", errors.New("openai: set OPENAI_API_KEY, or give --base-url for a local OpenAI-compatible server")
		}
		return openai.New(openai.Options{BaseURL: baseURL, APIKey: key}), model, nil
	case "ollama":
		if baseURL == "" {
			baseURL = ollamaBaseURL(getenv("OLLAMA_HOST"))
		}
		return openai.New(openai.Options{BaseURL: baseURL, APIKey: getenv("OLLAMA_API_KEY")}), model, nil
	case "anthropic":
		if baseURL == "" {
			baseURL = getenv("ANTHROPIC_BASE_URL")
		}
		key := getenv("ANTHROPIC_API_KEY")
		if key == "" && baseURL == "" {
			return nil, "", errors.New("anthropic: set ANTHROPIC_API_KEY")
		}
		return anthropic.New(anthropic.Options{BaseURL: baseURL, APIKey: key}), model, nil
	}
	return nil, "", fmt.Errorf("--model %q: unknown provider %q (openai, anthropic, ollama)", spec, name)
}

// ollamaBaseURL is the OpenAI-compatible API of the Ollama server at
// OLLAMA_HOST (host:port or a URL; empty means localhost:11434).
func ollamaBaseURL(env string) string {
	if env == "" {
		env = "localhost:11434"
	}
	if !strings.Contains(env, "://") {
		env = "http://" + env
	}
	return strings.TrimRight(env, "/") + "/v1"
}
