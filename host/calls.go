package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

// runCalls checks, approves and runs the model's tool calls, and returns
// their results in the calls' order. Checks and approvals go one call at a
// time; the approved calls then run concurrently. Only the end of ctx (or a
// failing approval hook) is an error: everything else is a result for the
// model.
func (a *Agent) runCalls(ctx context.Context, step int, calls []*llm.ToolCall, ts *toolset) ([]llm.Part, error) {
	byName := ts.byName
	results := make([]*protocol.CallToolResult, len(calls))
	prepared := make([]*Call, len(calls))
	reject := func(i int, msg string) {
		results[i] = protocol.NewToolResultError(msg)
		a.emit(Event{Type: EventToolResult, Call: prepared[i], Result: results[i], Step: step, NotRun: true})
	}
	for i, c := range calls {
		call := &Call{ID: c.ID, Name: c.Name}
		prepared[i] = call
		call.Tool = byName[c.Name]
		args, problem := checkArguments(c.Arguments)
		if call.Tool == nil && ts.search != nil && problem == "" {
			call.Arguments = args
			if text, isErr, ok := ts.search.run(c.Name, args, a.loaded); ok {
				a.emit(Event{Type: EventToolCall, Call: call, Step: step})
				results[i] = &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent(text)}, IsError: isErr}
				a.emit(Event{Type: EventToolResult, Call: call, Result: results[i], Step: step})
				continue
			}
		}
		if call.Tool == nil && ts.search != nil {
			reject(i, fmt.Sprintf("unknown tool %q; find tools with %s, then load them with %s", clip(c.Name, 100), ts.search.search, ts.search.load))
			continue
		}
		if call.Tool == nil {
			reject(i, unknownTool(c.Name, byName))
			continue
		}
		if problem != "" {
			reject(i, problem)
			continue
		}
		call.Arguments = args
		if ts.search != nil {
			a.loaded[c.Name] = true // called by a name it knew: its definition helps from now on
		}
		if a.opts.Approve != nil {
			ok, err := a.opts.Approve(ctx, call)
			if err != nil {
				return nil, fmt.Errorf("host: asking to approve %s: %w", c.Name, err)
			}
			if !ok {
				reject(i, "the user declined this tool call; do not call it again unless they ask for it")
				continue
			}
		}
	}
	for i, call := range prepared {
		if results[i] == nil {
			a.emit(Event{Type: EventToolCall, Call: call, Step: step})
		}
	}
	var wg sync.WaitGroup
	for i, call := range prepared {
		if results[i] != nil {
			continue
		}
		wg.Go(func() {
			start := time.Now()
			cctx := ctx
			if a.opts.Progress && a.opts.OnEvent != nil {
				cctx = context.WithValue(ctx, progressKey{}, func(p *protocol.ProgressParams) {
					a.emit(Event{Type: EventToolProgress, Call: call, Progress: p, Step: step})
				})
			}
			res, err := a.tools.CallTool(cctx, call.Name, call.Arguments)
			if err != nil {
				res = protocol.NewToolResultError("the tool call failed: " + err.Error())
			}
			results[i] = res
			a.emit(Event{Type: EventToolResult, Call: call, Result: res, Duration: time.Since(start), Step: step})
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	parts := make([]llm.Part, len(calls))
	for i, c := range calls {
		parts[i] = llm.Part{Type: llm.PartToolResult, ToolResult: llm.ToolResultFromMCP(c.ID, c.Name, results[i])}
	}
	return parts, nil
}

// maxListedTools bounds the tool names an unknown-tool error lists.
const maxListedTools = 50

// unknownTool is the error result of a call to a tool that does not exist.
func unknownTool(name string, byName map[string]*Tool) string {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return fmt.Sprintf("unknown tool %q: no tools are available", name)
	}
	more := ""
	if len(names) > maxListedTools {
		more = fmt.Sprintf(" and %d more", len(names)-maxListedTools)
		names = names[:maxListedTools]
	}
	return fmt.Sprintf("unknown tool %q; the available tools are: %s%s", name, strings.Join(names, ", "), more)
}

// checkArguments returns the arguments the model wrote as a JSON object
// (nothing at all means {}), or a message saying what is wrong with them.
func checkArguments(raw string) (json.RawMessage, string) {
	t := bytes.TrimSpace([]byte(raw))
	if len(t) == 0 {
		return json.RawMessage("{}"), ""
	}
	var v json.RawMessage
	if err := json.Unmarshal(t, &v); err != nil {
		return nil, fmt.Sprintf("the arguments are not valid JSON (%v): %s — call the tool again with a JSON object", err, clip(raw, 500))
	}
	if t[0] != '{' {
		return nil, fmt.Sprintf("the arguments must be a JSON object, not %s — call the tool again with a JSON object", clip(raw, 100))
	}
	return t, ""
}

// clip shortens s to n bytes (at a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
