package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// newClientCmds returns the commands that talk to a target server.
func newClientCmds(g *globalFlags) []*cobra.Command {
	return []*cobra.Command{
		clientCmd(g, "tools", "List the server's tools", toolsExample, 0, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return listAll(g, cs.Tools(ctx), printTool)
		}),
		clientCmd(g, "resources", "List the server's resources and resource templates", resourcesExample, 0, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return listResources(ctx, g, cs)
		}),
		clientCmd(g, "prompts", "List the server's prompts", promptsExample, 0, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return listAll(g, cs.Prompts(ctx), printPrompt)
		}),
		clientCmd(g, "ping", "Check that the server answers", pingExample, 0, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			if err := cs.Ping(ctx); err != nil {
				return err
			}
			fmt.Println("pong")
			return nil
		}),
		withCompletion(g, "resource", clientCmd(g, "read URI", "Read a resource", readExample, 1, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return readResource(ctx, g, cs, args)
		})),
		withCompletion(g, "prompt", clientCmd(g, "get PROMPT [ARGS_JSON]", "Get a prompt, with arguments as a JSON object of strings", getExample, -2, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return getPrompt(ctx, g, cs, args)
		})),
		withCompletion(g, "tool", clientCmd(g, "call TOOL [ARGS_JSON]", "Call a tool, with arguments as a JSON object", callExample, -2, func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return callTool(ctx, g, cs, args)
		})),
	}
}

// withCompletion completes cmd's first argument with the names of the
// server's tools, prompts or resources (kind; see completeNames).
func withCompletion(g *globalFlags, kind string, cmd *cobra.Command) *cobra.Command {
	cmd.ValidArgsFunction = completeNames(g, kind)
	return cmd
}

// clientCmd builds a command that connects to the target after "--" and runs do.
// nargs is the exact number of the command's own arguments, or -n for 1 to n.
// Every such command detects the server's era, or speaks the version --protocol
// names, and answers the server's requests (see clientOptions).
func clientCmd(g *globalFlags, use, short, example string, nargs int, do func(context.Context, *mcp.ClientSession, []string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     use + " (--url URL | -- COMMAND [ARGS...])",
		Short:   short,
		Example: example,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			own, target, err := splitTarget(cmd, g, args)
			if err != nil {
				return err
			}
			if (nargs >= 0 && len(own) != nargs) || (nargs < 0 && (len(own) < 1 || len(own) > -nargs)) {
				return fmt.Errorf("usage: %s", cmd.UseLine())
			}
			if err := validProtocol(g.protocol); err != nil {
				return err
			}
			if err := validLogLevel(g.logLevel); err != nil {
				return err
			}
			clock := newRequestClock(g.timeout)
			opts, err := clientOptions(g, clock, os.Stdin, term.IsTerminal(os.Stdin), os.Stderr)
			if err != nil {
				return err
			}
			printLogs(opts, os.Stderr)
			cs, done, err := connect(cmd.Context(), g, clock, target, opts)
			if err != nil {
				return err
			}
			defer done()
			defer cs.Close()
			if err := askForLogs(cmd.Context(), cs, g.logLevel, os.Stderr); err != nil {
				return err
			}
			return do(cmd.Context(), cs, own)
		},
	}
	addClientFlags(cmd, g)
	return cmd
}

// readResource reads the resource args[0] names and prints its contents.
func readResource(ctx context.Context, g *globalFlags, cs *mcp.ClientSession, args []string) error {
	res, err := cs.ReadResource(ctx, args[0])
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(res)
	}
	for _, c := range res.Contents {
		printResourceContents(c)
	}
	return nil
}

// getPrompt gets the prompt args[0] names, with args[1] (if any) as its
// arguments, and prints its messages.
func getPrompt(ctx context.Context, g *globalFlags, cs *mcp.ClientSession, args []string) error {
	var pargs map[string]string
	if len(args) > 1 {
		if err := json.Unmarshal([]byte(args[1]), &pargs); err != nil {
			return fmt.Errorf("prompt arguments must be a JSON object of strings: %w", err)
		}
	}
	res, err := cs.GetPrompt(ctx, args[0], pargs)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(res)
	}
	if res.Description != "" {
		fmt.Println("#", res.Description)
	}
	for _, m := range res.Messages {
		fmt.Printf("[%s] ", m.Role)
		printContent(m.Content)
	}
	return nil
}

// listResources prints the server's resources and resource templates.
func listResources(ctx context.Context, g *globalFlags, cs *mcp.ClientSession) error {
	if err := listAll(g, cs.Resources(ctx), printResource); err != nil {
		return err
	}
	return listAll(g, cs.ResourceTemplates(ctx), printTemplate)
}

func callTool(ctx context.Context, g *globalFlags, cs *mcp.ClientSession, args []string) error {
	var targs json.RawMessage // sent as it is; CallTool checks it is an object
	if len(args) > 1 {
		if !json.Valid([]byte(args[1])) {
			return fmt.Errorf("tool arguments are not valid JSON: %s", args[1])
		}
		targs = json.RawMessage(args[1])
	}
	bar := term.NewProgressBar(os.Stderr, term.IsTerminal(os.Stderr))
	res, err := cs.CallTool(ctx, args[0], targs, mcp.WithProgress(bar.Update))
	bar.Finish()
	if err != nil {
		return err
	}
	if g.json {
		if err := printJSON(res); err != nil {
			return err
		}
	} else if !res.IsError {
		printToolResult(res)
	}
	if res.IsError {
		if !g.json {
			for _, c := range res.Content {
				if c.Type == protocol.ContentTypeText {
					fmt.Fprintln(os.Stderr, "mcpkit:", c.Text)
				}
			}
		}
		return exitError{code: 1}
	}
	return nil
}

// The Example sections of the client commands' --help. Every line is a working
// invocation (TestHelpExamplesRun runs them against the demo server).
const (
	toolsExample = `  mcpkit tools -- mcpkit serve
  mcpkit tools --json -- mcpkit serve
  mcpkit tools --url http://127.0.0.1:8080/mcp`
	resourcesExample = `  mcpkit resources -- mcpkit serve
  mcpkit resources --url http://127.0.0.1:8080/mcp --header 'Authorization: Bearer TOKEN'`
	promptsExample = `  mcpkit prompts -- mcpkit serve`
	pingExample    = `  mcpkit ping -- mcpkit serve
  # fail after 5 s without an answer (the default is 60 s; 0 waits for ever)
  mcpkit ping --timeout 5s --url http://127.0.0.1:8080/mcp`
	readExample = `  mcpkit read demo://items/42 -- mcpkit serve
  mcpkit read demo://readme --json -- mcpkit serve`
	getExample  = `  mcpkit get greet '{"name":"Ada","style":"pirate"}' -- mcpkit serve`
	callExample = `  mcpkit call echo '{"message":"hi"}' -- mcpkit serve
  # a progress bar on stderr (plain lines when stderr is not a terminal), then "5"
  mcpkit call count '{"n":5}' -- mcpkit serve
  # the server asks for your name: a prompt on the terminal
  mcpkit call ask_name -- mcpkit serve
  # ... or the answers from a file, e.g. {"name":"Ada"}
  mcpkit call ask_name --elicit-answers answers.json -- mcpkit serve
  # offer directories to the server as roots
  mcpkit call list_roots --root . -- mcpkit serve
  # speak a legacy protocol version instead of detecting the server's era
  mcpkit call echo '{"message":"hi"}' --protocol 2025-11-25 -- mcpkit serve
  mcpkit call add '{"a":1,"b":2}' --json --url http://127.0.0.1:8080/mcp`
)
