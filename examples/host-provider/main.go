// Command host-provider runs host.Agent — the model loop behind `mcpkit host`
// — with a language-model provider of its own instead of OpenAI or Anthropic:
// any type with a Stream method that yields llm.Events is an llm.Provider. Here
// the "model" is a few lines of rules, so the program runs without a network
// or a key; a real one would call its API and translate the stream.
//
//	go run ./examples/host-provider                  # asks "add 2 and 3"
//	go run ./examples/host-provider -prompt "add 40 and 2"
//
// The agent offers the model the tools of an MCP server (here one in the same
// process, over an in-memory pair), runs the tool calls the model asks for,
// hands it the results, and stops when the model answers in text.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"iter"
	"log"
	"regexp"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// ruleModel is an llm.Provider that answers by rule: asked to add two
// numbers, it calls the first tool it was offered with them; shown the
// tool's result, it reports it.
type ruleModel struct{}

var addRequest = regexp.MustCompile(`add (-?\d+) and (-?\d+)`)

// Stream implements llm.Provider: it yields one answer as a stream of events,
// the way a real provider translates its server-sent events.
func (ruleModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if !yield(llm.Event{Type: llm.EventStart, Model: "rules-1"}, nil) {
			return
		}
		last := req.Messages[len(req.Messages)-1]
		for _, p := range last.Parts {
			if p.Type == llm.PartToolResult { // the tool answered: report it
				text := "The tool said:"
				for _, c := range p.ToolResult.Content {
					text += " " + c.Text
				}
				_ = yield(llm.Event{Type: llm.EventTextDelta, Text: text}, nil) &&
					yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopEndTurn}, nil)
				return
			}
		}
		m := addRequest.FindStringSubmatch(last.Text())
		if m == nil || len(req.Tools) == 0 {
			_ = yield(llm.Event{Type: llm.EventTextDelta, Text: "I can only add two numbers."}, nil) &&
				yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopEndTurn}, nil)
			return
		}
		args := fmt.Sprintf(`{"a":%s,"b":%s}`, m[1], m[2])
		_ = yield(llm.Event{Type: llm.EventToolCallStart, Index: 0, ID: "call-1", Name: req.Tools[0].Name}, nil) &&
			yield(llm.Event{Type: llm.EventToolCallDelta, Index: 0, Text: args}, nil) &&
			yield(llm.Event{Type: llm.EventToolCallEnd, Index: 0}, nil) &&
			yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopToolUse}, nil)
	}
}

// calculator is the MCP server whose tools the model gets.
func calculator() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "calculator", Version: "1"}, nil)
	type addIn struct {
		A float64 `json:"a" jsonschema:"the first number"`
		B float64 `json:"b" jsonschema:"the second number"`
	}
	err := mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(ctx context.Context, req *mcp.ToolRequest, in addIn) (string, error) {
			return fmt.Sprint(in.A + in.B), nil
		})
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

func main() {
	prompt := flag.String("prompt", "add 2 and 3", "what to ask the model")
	flag.Parse()
	ctx := context.Background()

	clientEnd, serverEnd := memory.NewPair()
	if _, err := calculator().Connect(ctx, serverEnd); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "host-provider", Version: "1"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	src := host.NewSessionSource(host.Server{
		Name:    "calculator",
		Session: func(context.Context) (*mcp.ClientSession, error) { return cs, nil },
	})
	agent := host.New(src, host.Options{
		Provider: ruleModel{},
		Model:    "rules-1",
		OnEvent: func(ev host.Event) {
			switch ev.Type {
			case host.EventToolCall:
				fmt.Printf("model calls %s %s\n", ev.Call.Name, compact(ev.Call.Arguments))
			case host.EventToolResult:
				fmt.Printf("tool answers %s\n", ev.Result.Content[0].Text)
			}
		},
	})
	res, err := agent.Run(ctx, *prompt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("answer after %d model requests: %s\n", res.Steps, res.Text)
}

// compact returns JSON without insignificant space.
func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
