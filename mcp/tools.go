package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcpkit/mcpkit/internal/argdecode"
	"github.com/mcpkit/mcpkit/internal/jsonerr"
	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/schema"
	"github.com/mcpkit/mcpkit/transport"
)

// ToolRequest is a tools/call as a tool handler sees it: the [Request] (who asks,
// and the means to talk back) and the call's [protocol.CallToolParams].
type ToolRequest struct {
	Request
	Params *protocol.CallToolParams

	task toolTaskLink // ties the call to a task (RunAsTask); see tasks_run.go
	out  toolOutput   // room for the result of a typed handler (textResult)
}

// toolOutput is room, inside a ToolRequest, for the result of a typed handler
// that returned a string, or for a raw result (RawResult): the result then
// costs no allocation of its own.
//
// A raw result's JSON is kept in the text block's Input (a field no text block
// has) rather than in a field of its own: a stateless call's one allocation
// (statelessToolCall) is 8 bytes short of the next size class, and textResult
// overwriting the block discards a raw result with no extra store.
type toolOutput struct {
	result protocol.CallToolResult
	text   [1]protocol.Content
}

// raw returns the JSON of the raw result stored by RawResult, or nil.
func (o *toolOutput) raw() json.RawMessage { return o.text[0].Input }

// setRaw stores a raw result: result is then only its mark.
func (o *toolOutput) setRaw(raw json.RawMessage) {
	o.result = protocol.CallToolResult{}
	o.text[0] = protocol.Content{Input: raw}
}

// textResult returns a result holding one text block, stored in req itself.
// It is the call's own, fresh each call: the stateless engine may stamp it in
// place instead of copying it.
func (req *ToolRequest) textResult(text string) *protocol.CallToolResult {
	o := &req.out
	o.text[0] = protocol.NewTextContent(text)
	o.result = protocol.CallToolResult{Content: o.text[:]}
	return &o.result
}

// ownsResult reports whether res is the result textResult made for this call.
func (req *ToolRequest) ownsResult(res *protocol.CallToolResult) bool {
	return res == &req.out.result
}

// toolCall is one tools/call as the server runs it: the handler's request and
// the params it points to, in one allocation.
type toolCall struct {
	ToolRequest
	params protocol.CallToolParams
}

// ToolHandler handles calls of a tool registered with [Server.AddRawTool]. Arguments
// arrive raw in req.Params.Arguments, already validated against the tool's input
// schema. An error becomes an isError result carrying its text.
type ToolHandler func(ctx context.Context, req *ToolRequest) (*protocol.CallToolResult, error)

// TypedToolHandler handles calls of a tool registered with [AddTool]: in holds the
// decoded arguments. What it returns becomes the result:
//   - a *[protocol.CallToolResult] is sent as it is;
//   - a string becomes one text block;
//   - any other value becomes structuredContent (when Out's schema is an object;
//     the tool then declares it as its outputSchema) plus a text block with its JSON.
//
// An error, or a panic, becomes an isError result that says what went wrong; the
// server keeps serving.
type TypedToolHandler[In, Out any] func(ctx context.Context, req *ToolRequest, in In) (Out, error)

type serverTool struct {
	tool      protocol.Tool
	handler   ToolHandler
	validator *schema.Validator      // nil for a forwarded tool: the server behind validates
	headers   []protocol.ParamHeader // x-mcp-header declarations, checked on stateless HTTP calls
}

// validate checks a call's arguments against the tool's input schema.
func (t *serverTool) validate(args json.RawMessage) error {
	if t.validator == nil {
		return nil
	}
	return t.validator.Validate(args)
}

// AddTool registers a tool whose input schema is inferred from In (a struct: see
// package [schema] for the tags it reads) and, unless Out is a string or a
// *[protocol.CallToolResult], whose output schema is inferred from Out. A schema
// already set in t is kept. Registering a name again replaces the tool; connected
// clients are told the list changed. h is a [TypedToolHandler]; a tool whose
// arguments are better decoded by hand is registered with [Server.AddRawTool].
func AddTool[In, Out any](s *Server, t *protocol.Tool, h TypedToolHandler[In, Out]) error {
	tool := *t
	if len(tool.InputSchema) == 0 {
		in, err := schema.For[In](nil)
		if err != nil {
			return fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
		}
		tool.InputSchema = in
	}
	structured := false
	switch reflect.TypeFor[Out]() {
	case reflect.TypeFor[string](), reflect.TypeFor[*protocol.CallToolResult]():
	default:
		if len(tool.OutputSchema) == 0 {
			if out, err := schema.For[Out](nil); err == nil && schema.IsObjectSchema(out) {
				tool.OutputSchema = out
			}
		}
		structured = len(tool.OutputSchema) > 0
	}
	dec := argdecode.For(reflect.TypeFor[In]())
	return s.addTool(&tool, func(ctx context.Context, req *ToolRequest) (*protocol.CallToolResult, error) {
		var in In
		args := req.Params.Arguments
		if len(args) == 0 {
			args = emptyObject
		}
		if err := argdecode.Into(dec, args, &in); err != nil {
			return protocol.NewToolResultError(fmt.Sprintf("invalid arguments for tool %q: %s", req.Params.Name, jsonerr.Message(err))), nil
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if text, ok := any(out).(string); ok { // no boxing: the compiler sees through it
			return req.textResult(text), nil
		}
		return toolResult(out, structured)
	})
}

var emptyObject = json.RawMessage("{}")

// AddRawTool registers a tool with an explicit input schema (t.InputSchema; an empty
// one accepts any object) and a [ToolHandler] that decodes arguments itself.
func (s *Server) AddRawTool(t *protocol.Tool, h ToolHandler) error {
	tool := *t
	return s.addTool(&tool, h)
}

// AddForwardedTool registers a tool that h forwards to another server, which
// validates the arguments itself: its input schema is advertised exactly as
// given, whether or not this package can compile it, and no call is checked
// against it here (a proxy that checked would refuse what the server behind it
// accepts, and pay for the validation twice). Mcp-Param-* headers are still
// checked against the arguments when the tool declares them validly; invalid
// declarations are advertised as they are. Otherwise it is [Server.AddRawTool].
func (s *Server) AddForwardedTool(t *protocol.Tool, h ToolHandler) error {
	tool := *t
	if tool.Name == "" {
		return fmt.Errorf("mcp: a tool needs a name")
	}
	if len(tool.InputSchema) == 0 {
		tool.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	headers, _ := paramHeaderSpecs(&tool) // the server behind declared them
	s.register(&serverTool{tool: tool, handler: h, headers: headers})
	return nil
}

// checkHeaders compares the Mcp-Param-* headers of a stateless HTTP request with
// the arguments (see checkParamHeaderSpecs).
func (t *serverTool) checkHeaders(ss *ServerSession, args json.RawMessage) error {
	if len(t.headers) == 0 {
		return nil
	}
	hc, ok := ss.transport.(transport.HeaderConn)
	if !ok {
		return nil // stdio and in-memory: no headers to mirror the arguments
	}
	return checkParamHeaderSpecs(hc.Header(), t.headers, args)
}

func (s *Server) addTool(t *protocol.Tool, h ToolHandler) error {
	if t.Name == "" {
		return fmt.Errorf("mcp: a tool needs a name")
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	v, err := schema.Compile(t.InputSchema, nil)
	if err != nil {
		return fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
	}
	// A tool whose x-mcp-header declarations are invalid would be dropped by
	// every conforming client, so it is refused here, where the author sees it.
	headers, err := paramHeaderSpecs(t)
	if err != nil {
		return fmt.Errorf("mcp: tool %q: x-mcp-header: %w", t.Name, err)
	}
	s.register(&serverTool{tool: *t, handler: h, validator: v, headers: headers})
	return nil
}

// register adds (or replaces) a tool and tells connected clients.
func (s *Server) register(t *serverTool) {
	s.mu.Lock()
	s.tools.add(t.tool.Name, t)
	s.mu.Unlock()
	s.notifyAll(protocol.NotificationToolsListChanged, nil)
}

// RemoveTools unregisters tools by name; connected clients are told the list changed.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	removed := false
	for _, n := range names {
		removed = s.tools.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.notifyAll(protocol.NotificationToolsListChanged, nil)
	}
}

// toolResult turns a typed handler's output into a result.
func toolResult(out any, structured bool) (*protocol.CallToolResult, error) {
	switch v := out.(type) {
	case *protocol.CallToolResult:
		if v == nil {
			return &protocol.CallToolResult{Content: []protocol.Content{}}, nil
		}
		return v, nil
	case string:
		return protocol.NewToolResultText(v), nil
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the tool's output: %w", err)
	}
	res := &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent(string(raw))}}
	if structured {
		res.StructuredContent = json.RawMessage(raw)
	}
	return res, nil
}

func listTools(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	v := r.ProtocolVersion()
	tools, next, err := listPage(ctx, r, raw, FeatureTool, &r.server().tools, func(t *serverTool) protocol.Tool { return *t.tool.ForVersion(v) })
	if err != nil {
		return nil, err
	}
	return &protocol.ListToolsResult{Tools: tools, NextCursor: next}, nil
}

func callTool(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	tc := new(toolCall)
	if err := decodeParams(raw, &tc.params); err != nil {
		return nil, err
	}
	return r.callDecodedTool(ctx, tc)
}

// callDecodedTool runs a tools/call whose params are decoded in tc.params.
func (r *Request) callDecodedTool(ctx context.Context, tc *toolCall) (any, error) {
	p := &tc.params
	if p.Name == "" {
		return nil, errorf(CodeInvalidParams, "invalid params: missing tool name")
	}
	s := r.server()
	s.mu.RLock()
	t, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, errorf(CodeInvalidParams, "Unknown tool: '%s'", p.Name)
	}
	if err := s.hidden(ctx, r, FeatureTool, p.Name); err != nil {
		return nil, err
	}
	if r.stateless != nil {
		if err := t.checkHeaders(r.Session, p.Arguments); err != nil {
			return nil, err
		}
	}
	r.Meta = p.Meta
	if created, ok, err := s.tasks.startForCall(ctx, r, t, p); ok || err != nil {
		return created, err // the call became a task, or may not run without one
	}
	r.bind(ctx, p.Name, p.Arguments, p.RequestState, p.InputResponses)
	req := &tc.ToolRequest
	req.Request, req.Params = *r, p
	res := s.runTool(ctx, req, t)
	if created, err := req.task.handedOff(); created != nil || err != nil {
		return created, err // the handler called RunAsTask
	}
	if req.out.raw() != nil { // the handler may have answered with RawResult
		if raw := req.rawAnswer(res, r.ProtocolVersion()); raw != nil {
			return raw, nil
		}
	}
	return res.ForVersion(r.ProtocolVersion()), nil
}

// runTool validates the arguments and runs the handler, turning every failure
// (invalid arguments, an error, a panic) into an isError result.
func (s *Server) runTool(ctx context.Context, req *ToolRequest, t *serverTool) (res *protocol.CallToolResult) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = emptyObject
		req.Params.Arguments = args
	}
	if err := t.validate(args); err != nil {
		return protocol.NewToolResultError(fmt.Sprintf("invalid arguments for tool %q: %v", t.tool.Name, err))
	}
	defer func() {
		if p := recover(); p != nil {
			// The panic's value and stack are the server's internals: they go
			// to its log; the client learns only that the tool failed.
			s.log.Error("mcp: tool handler panicked", "tool", t.tool.Name, "panic", p, rpcconn.StackAttr())
			res = protocol.NewToolResultError(fmt.Sprintf("tool %q failed: internal error", t.tool.Name))
		}
	}()
	res, err := t.handler(ctx, req)
	if err != nil {
		return protocol.NewToolResultError(err.Error())
	}
	if res == nil {
		return &protocol.CallToolResult{Content: []protocol.Content{}}
	}
	return res
}
