package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/llm/tokens"
	"github.com/mcpkit/mcpkit/mcp"
)

// tokensExample is tokens' --help Example section (TestHelpExamplesRun runs it).
const tokensExample = `  mcpkit tokens -- mcpkit serve
  # Anthropic's tool format, GPT-4's vocabulary, as JSON
  mcpkit tokens --format anthropic --encoding cl100k_base --json -- mcpkit serve
  mcpkit tokens --url http://127.0.0.1:8080/mcp`

// tokensOutput is what tokens --json prints.
type tokensOutput struct {
	Tools             tokens.Report      `json:"tools"`
	Prompts           *tokens.ListReport `json:"prompts,omitempty"`
	ResourceTemplates *tokens.ListReport `json:"resourceTemplates,omitempty"`
	Note              string             `json:"note"`
}

// newTokensCmd returns `mcpkit tokens`: what the server's tool list costs in a
// model's context.
func newTokensCmd(g *globalFlags) *cobra.Command {
	var format, encoding string
	cmd := clientCmd(g, "tokens", "Count the tokens the server's tools cost in a model's context", tokensExample, 0,
		func(ctx context.Context, cs *mcp.ClientSession, _ []string) error {
			out, err := countTokens(ctx, cs, tokens.Format(format), tokens.Encoding(encoding))
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(out)
			}
			printTokens(os.Stdout, out)
			return nil
		})
	cmd.Long = "Count how many tokens the server's tools cost in a model's context, per tool and in total, largest first: " +
		"each tool as the chosen provider's request carries it (--format), tokenized with tiktoken's --encoding. " +
		"Prompts and resource templates, when the server has them, are counted as their MCP JSON.\n\n" + tokens.Note
	cmd.Flags().StringVar(&format, "format", string(tokens.FormatOpenAI), "the request format of the tool definitions: "+joinNames(tokens.Formats))
	cmd.Flags().StringVar(&encoding, "encoding", string(tokens.O200kBase), "the tokenizer's vocabulary: "+joinNames(tokens.Encodings))
	return cmd
}

// joinNames lists names for a flag's help.
func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, " or ")
}

// countTokens lists the server's tools (and prompts and resource templates,
// when it offers them) and counts them.
func countTokens(ctx context.Context, cs *mcp.ClientSession, format tokens.Format, enc tokens.Encoding) (*tokensOutput, error) {
	if !slices.Contains(tokens.Formats, format) {
		return nil, fmt.Errorf("--format %q: want %s", format, joinNames(tokens.Formats))
	}
	c, err := tokens.NewCounter(enc)
	if err != nil {
		return nil, fmt.Errorf("--encoding: %w", err)
	}
	out := &tokensOutput{Note: tokens.Note}
	caps := cs.InitializeResult().Capabilities
	tools, err := collect(cs.Tools(ctx))
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	// Counting is CPU work on what the server sent (up to the message
	// limit): it must not hold the process past a signal.
	if out.Tools, err = untilDone(ctx, func() (tokens.Report, error) { return c.Tools(tools, format) }); err != nil {
		return nil, err
	}
	if caps.Prompts != nil {
		prompts, err := collect(cs.Prompts(ctx))
		if err != nil {
			return nil, fmt.Errorf("prompts/list: %w", err)
		}
		r, err := c.Prompts(prompts)
		if err != nil {
			return nil, err
		}
		out.Prompts = &r
	}
	if caps.Resources != nil {
		templates, err := collect(cs.ResourceTemplates(ctx))
		if err != nil {
			return nil, fmt.Errorf("resources/templates/list: %w", err)
		}
		r, err := c.ResourceTemplates(templates)
		if err != nil {
			return nil, err
		}
		out.ResourceTemplates = &r
	}
	return out, nil
}

// untilDone returns what f returns, or ctx's error as soon as ctx ends (f
// then runs on unobserved, until the process exits).
func untilDone[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

// collect gathers every page of a listing.
func collect[T any](items func(func(T, error) bool)) ([]T, error) {
	var all []T
	for it, err := range items {
		if err != nil {
			return nil, err
		}
		all = append(all, it)
	}
	return all, nil
}

// printTokens writes the counts as tables, largest first.
func printTokens(w io.Writer, out *tokensOutput) {
	r := &out.Tools
	fmt.Fprintf(w, "%d tools: %d tokens (%s tool definitions, %s)\n", len(r.Tools), r.Total, r.Format, r.Encoding)
	if len(r.Tools) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "tokens\tshare\tname+desc\tschema\tframing\t\ttool")
		for _, t := range r.Tools {
			name := t.Name
			if t.ModelName != "" {
				name += " (as " + t.ModelName + ")"
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t\t%s\n", t.Tokens, share(t.Tokens, r.Total), t.Text, t.Schema, t.Framing, name)
		}
		tw.Flush()
	}
	for _, l := range []struct {
		what string
		r    *tokens.ListReport
	}{{"prompts", out.Prompts}, {"resource templates", out.ResourceTemplates}} {
		if l.r == nil || len(l.r.Items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%d %s: %d tokens (as MCP JSON)\n", len(l.r.Items), l.what, l.r.Total)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, it := range l.r.Items {
			fmt.Fprintf(tw, "%d\t%s\t\t%s\n", it.Tokens, share(it.Tokens, l.r.Total), it.Name)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nnote: %s\n", out.Note)
}

// share writes n as a percentage of total.
func share(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}
