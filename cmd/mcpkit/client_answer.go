package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file answers what a server asks of the client commands, in either era:
// elicitation (a prompt on the terminal, or answers from a file), roots (--root)
// and sampling (refused: the CLI has no language model).

// clientOptions returns the client options of a client command: the request
// clock of --timeout (nil: none), and the answers to the server's requests. stdin is where
// the user answers prompts (only when interactive, i.e. a terminal); notes and
// prompts go to stderr.
func clientOptions(g *globalFlags, clock *requestClock, stdin io.Reader, interactive bool, stderr io.Writer) (*mcp.ClientOptions, error) {
	var in *term.LineReader
	if interactive {
		in = term.NewLineReader(stdin)
	}
	return clientOptionsOn(g, clock, in, &sync.Mutex{}, stderr)
}

// clientOptionsOn is clientOptions with the terminal's line reader (nil when
// not interactive) and the lock held while a form is on the terminal, both
// shared with the caller's own prompts.
func clientOptionsOn(g *globalFlags, clock *requestClock, in *term.LineReader, termMu sync.Locker, stderr io.Writer) (*mcp.ClientOptions, error) {
	opts := &mcp.ClientOptions{}
	if clock != nil {
		opts.Middleware = []mcp.Middleware{clock.middleware}
	}
	roots, err := rootsOf(g.roots)
	if err != nil {
		return nil, err
	}
	opts.Roots = roots // nil without --root: then no roots capability is declared
	e := &elicitor{clock: clock, out: stderr, verbose: g.verbose, mu: termMu}
	if g.elicitAnswers != "" {
		if e.answers, err = readAnswers(g.elicitAnswers); err != nil {
			return nil, err
		}
		e.answersFrom = g.elicitAnswers
	} else {
		e.in = in
	}
	opts.ElicitationHandler = e.elicit
	opts.CreateMessageHandler = func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
		fmt.Fprintln(stderr, "mcpkit: refused the server's sampling request (sampling/createMessage): no language model is configured")
		return nil, jsonrpc.NewError(codeSamplingRefused, "sampling refused: the mcpkit CLI has no language model configured")
	}
	return opts, nil
}

// codeSamplingRefused is the error code of a refused sampling request: the one the
// specification's example uses for a user who rejects it.
const codeSamplingRefused = -1

// rootsOf turns --root directories into roots: absolute file:// URIs named after
// the directory. No directory gives nil, so that no roots capability is declared.
func rootsOf(dirs []string) ([]protocol.Root, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	roots := make([]protocol.Root, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", d, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", d, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--root %s: not a directory", d)
		}
		p := filepath.ToSlash(abs)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive: file:///C:/dir
		}
		roots = append(roots, protocol.Root{URI: (&url.URL{Scheme: "file", Path: p}).String(), Name: filepath.Base(abs)})
	}
	return roots, nil
}

// readAnswers reads an --elicit-answers file: one JSON object of field values.
func readAnswers(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--elicit-answers: %w", err)
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(data, &answers); err != nil || answers == nil {
		return nil, fmt.Errorf("--elicit-answers %s: want a JSON object of field values, e.g. {\"name\":\"Ada\"}", path)
	}
	return answers, nil
}

// elicitor answers elicitation/create: from a file of answers when one is given,
// else on the terminal when standard input is one, else by declining.
type elicitor struct {
	clock       *requestClock
	out         io.Writer
	verbose     bool
	answers     map[string]json.RawMessage // --elicit-answers
	answersFrom string                     // its file name
	in          *term.LineReader           // the terminal; nil when not interactive

	mu sync.Locker // one form (or other prompt) on the terminal at a time
}

func (e *elicitor) elicit(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	decline := &protocol.ElicitResult{Action: protocol.ElicitActionDecline}
	if p.IsURL() {
		fmt.Fprintf(e.out, "mcpkit: declined the server's request to open %s: the CLI answers form elicitation only\n", p.URL)
		return decline, nil
	}
	fields, err := term.ParseForm(p.RequestedSchema)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "elicitation/create: %v", err)
	}
	switch {
	case e.answers != nil:
		content, err := term.AnswersFor(fields, e.answers)
		if err != nil {
			fmt.Fprintf(e.out, "mcpkit: declined the server's question %q: %s: %v\n", p.Message, e.answersFrom, err)
			return decline, nil
		}
		if e.verbose {
			fmt.Fprintf(e.out, "mcpkit: answered the server's question %q from %s\n", p.Message, e.answersFrom)
		}
		return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: content}, nil
	case e.in != nil:
		e.mu.Lock()
		defer e.mu.Unlock()
		e.clock.pause() // the user's time does not count against --timeout
		defer e.clock.resume()
		return term.AskForm(ctx, e.in, e.out, p.Message, fields)
	}
	fmt.Fprintf(e.out, "mcpkit: declined the server's question %q: standard input is not a terminal to ask on (answer from a file with --elicit-answers FILE.json)\n", p.Message)
	return decline, nil
}
