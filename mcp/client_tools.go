package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// CallTool calls the tool name with args as its arguments:
//   - nil (or a nil map or pointer) sends no arguments;
//   - a [json.RawMessage] or []byte is sent as it is, and must hold a JSON object;
//   - any other value (a struct, a map) is encoded as encoding/json encodes
//     it, and must encode as a JSON object (a map[string]any, the arguments
//     hosts and gateways build, is written by hand with the same bytes,
//     straight into the request).
//
// A tool that ran and failed returns a result with IsError set, not an error;
// an error means the call could not be made (unknown tool, invalid params,
// connection lost), or that the result breaks the tool's outputSchema (an
// [*OutputError], for tools the session has listed). [CallToolAs] turns the first into an error too and decodes
// the output into a Go value. In the stateless era the server's requests for
// input are answered through the client's handlers and the call retried until
// it completes. [ClientSession.CallToolParams] sends params the caller builds
// (a _meta, a task, the answers to input requests).
func (cs *ClientSession) CallTool(ctx context.Context, name string, args any, opts ...RequestOption) (*protocol.CallToolResult, error) {
	if cs.plainCalls(opts) {
		switch a := args.(type) {
		case map[string]any:
			if a != nil {
				// The common arguments of hosts and gateways: encoded by
				// hand, straight into the request's params.
				return cs.callToolPlainResult(ctx, name, nil, a, opts)
			}
		case nil, json.RawMessage, []byte:
		default:
			return cs.callToolEncoded(ctx, name, args)
		}
	}
	raw, err := toolArguments(args)
	if err != nil {
		return nil, fmt.Errorf("mcp: calling tool %q: %w", name, err)
	}
	return cs.callTool(ctx, protocol.CallToolParams{Name: name, Arguments: raw}, opts, true)
}

// callToolEncoded is CallTool without request options or middleware for args
// that encoding/json encodes (a struct): they are encoded into a pooled
// buffer, which goes back when the call is over (nothing else sees the
// arguments), rather than into one of their own.
func (cs *ClientSession) callToolEncoded(ctx context.Context, name string, args any) (*protocol.CallToolResult, error) {
	e := argEncoders.Get().(*argEncoder)
	defer e.put()
	raw, err := e.encode(args)
	if err != nil {
		return nil, fmt.Errorf("mcp: calling tool %q: %w", name, err)
	}
	return cs.callTool(ctx, protocol.CallToolParams{Name: name, Arguments: raw}, nil, true)
}

// argEncoder encodes the arguments of callToolEncoded.
type argEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder // writes to buf
}

var argEncoders = sync.Pool{New: func() any {
	e := new(argEncoder)
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// encode encodes args as toolArguments does (Encode writes what Marshal
// returns, and a newline), into e's buffer: valid until e goes back.
func (e *argEncoder) encode(args any) (json.RawMessage, error) {
	e.buf.Reset()
	if err := e.enc.Encode(args); err != nil {
		return nil, fmt.Errorf("encoding the arguments: %w", err)
	}
	b := e.buf.Bytes()
	return encodedObject(b[:len(b)-1], args)
}

// put gives e back to argEncoders, unless its buffer grew huge.
func (e *argEncoder) put() {
	if e.buf.Cap() <= 64<<10 {
		argEncoders.Put(e)
	}
}

// CallToolParams is [ClientSession.CallTool] with params the caller builds:
// they are sent as they are (Arguments unchecked), with the client's own
// _meta keys added in the stateless era.
func (cs *ClientSession) CallToolParams(ctx context.Context, p *protocol.CallToolParams, opts ...RequestOption) (*protocol.CallToolResult, error) {
	return cs.callTool(ctx, *p, opts, false)
}

// CallToolRaw is [ClientSession.CallToolParams] returning the result as the
// server sent it, undecoded: a JSON object (in the stateless era the final,
// complete one, after any rounds of input). It is what a program passing the
// result on needs (a gateway: [ToolRequest.RawResult]); it keeps every member
// the server wrote, resultType and _meta included, and it is not checked against
// the tool's outputSchema (the receiver of the result does that).
//
// Params with only a name and arguments (a JSON object, or none), sent with no
// request options and no middleware, take the path of CallTool: the arguments
// are written into the request as they are, not compacted.
func (cs *ClientSession) CallToolRaw(ctx context.Context, p *protocol.CallToolParams, opts ...RequestOption) (json.RawMessage, error) {
	var raw json.RawMessage
	var err error
	if cs.plainCalls(opts) && p.Meta == nil && p.Task == nil && p.InputResponses == nil &&
		p.RequestState == "" && isObjectOrNone(p.Arguments) {
		raw, _, err = cs.callToolPlain(ctx, p.Name, p.Arguments, nil, nil)
	} else {
		// Only this branch hands the params and the result on as interface
		// values (see callTool).
		params := *p
		var r json.RawMessage
		err = cs.request(ctx, toolCallOut(&params), &r, opts)
		raw = r
	}
	if err != nil {
		return nil, err
	}
	if c := bytes.TrimLeft(raw, " \t\r\n"); len(c) == 0 || c[0] != '{' {
		return nil, fmt.Errorf("mcp: tools/call %s: the result is not a JSON object", p.Name)
	}
	return raw, nil
}

// isObjectOrNone reports whether args is empty or a valid JSON object, which
// callToolPlain may write into a request as it is.
func isObjectOrNone(args json.RawMessage) bool {
	if len(args) == 0 {
		return true
	}
	c := bytes.TrimLeft(args, " \t\r\n")
	return len(c) > 0 && c[0] == '{' && jsonscan.Valid(args)
}

// callTool sends a tools/call; params is the session's own copy, which the
// request may change (_meta, input responses, request state). checked says
// that params.Arguments is known to be a valid JSON object (CallTool checked
// it), which lets a plain call be encoded by hand (see callToolPlain).
func (cs *ClientSession) callTool(ctx context.Context, params protocol.CallToolParams, opts []RequestOption, checked bool) (*protocol.CallToolResult, error) {
	if checked && cs.plainCalls(opts) && params.Meta == nil &&
		params.Task == nil && params.InputResponses == nil && params.RequestState == "" {
		return cs.callToolPlainResult(ctx, params.Name, params.Arguments, nil, opts)
	}
	// Only this branch hands the params and the result on as interface
	// values: params and raw stay on the stack.
	p := params
	var raw json.RawMessage
	if err := cs.request(ctx, toolCallOut(&p), &raw, opts); err != nil {
		return nil, err
	}
	return cs.toolResult(params.Name, raw, opts)
}

// callToolPlainResult is callToolPlain decoding the result, and checking it
// as toolResult does. The result is decoded once: in the stateless era
// callToolStateless learns its resultType by decoding it.
func (cs *ClientSession) callToolPlainResult(ctx context.Context, name string, args json.RawMessage, m map[string]any, opts []RequestOption) (*protocol.CallToolResult, error) {
	res := newToolResult()
	raw, decoded, err := cs.callToolPlain(ctx, name, args, m, res)
	if err != nil {
		return nil, err
	}
	if !decoded {
		if err := decodeToolResult(raw, res); err != nil {
			return nil, err
		}
	}
	if err := cs.checkOutput(name, res, opts); err != nil {
		return nil, err
	}
	return res, nil
}

// toolResult decodes the result of a call of the tool name and checks it
// against the tool's outputSchema.
func (cs *ClientSession) toolResult(name string, raw json.RawMessage, opts []RequestOption) (*protocol.CallToolResult, error) {
	res := newToolResult()
	if err := decodeToolResult(raw, res); err != nil {
		return nil, err
	}
	if err := cs.checkOutput(name, res, opts); err != nil {
		return nil, err
	}
	return res, nil
}

// plainCalls reports whether a call with opts goes out as it is: a session
// without request options or middleware, where callToolPlain can write a
// tools/call by hand.
func (cs *ClientSession) plainCalls(opts []RequestOption) bool {
	return len(opts) == 0 && cs.send == nil
}

// callToolPlain sends a tools/call with only a name and arguments (args, a
// valid JSON object, or nil; or m, a non-nil map), with no middleware and no
// request options: its params are written by hand, as encoding/json would
// write them (args as the caller gave them, where encoding/json would compact
// them; m encoded by jsonenc, as json.Marshal encodes it), into a pooled
// buffer, and the result comes back raw. In the stateless era
// callToolStateless does it, the session's envelope added, and, given res
// (fresh from newToolResult), may decode the result into it: decoded says
// whether it did.
func (cs *ClientSession) callToolPlain(ctx context.Context, name string, args json.RawMessage, m map[string]any, res *protocol.CallToolResult) (raw json.RawMessage, decoded bool, err error) {
	if cs.stateless != nil {
		return cs.callToolStateless(ctx, name, args, m, res)
	}
	bp := toolParamBufs.Get().(*[]byte)
	b, err := appendToolCallParams((*bp)[:0], name, args, m)
	if err != nil {
		err = fmt.Errorf("mcp: calling tool %q: encoding the arguments: %w", name, err)
	} else {
		if d := cs.client.opts.RequestTimeout; d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		raw, err = cs.conn.CallCheckedJSON(ctx, protocol.MethodToolsCall, b) // b is copied into the request
	}
	putToolParamBuf(bp, b)
	return raw, false, err
}

// appendToolCallParams appends the params of a tools/call with only a name
// and arguments, as encoding/json writes protocol.CallToolParams: args (a
// valid JSON object, or nil) as they are, or, when m is not nil, m as
// json.Marshal encodes it (its error when it cannot).
func appendToolCallParams(b []byte, name string, args json.RawMessage, m map[string]any) ([]byte, error) {
	b, _, err := appendNameArgs(append(b, '{'), name, args, m)
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// appendNameArgs appends the name and arguments members of a tools/call's
// params (see appendToolCallParams) to b, an object's opening, and returns
// where the arguments start in it (len(b) when there are none).
func appendNameArgs(b []byte, name string, args json.RawMessage, m map[string]any) ([]byte, int, error) {
	b = jsonrpc.AppendString(append(b, `"name":`...), name)
	if m == nil && len(args) == 0 {
		return b, len(b), nil
	}
	b = append(b, `,"arguments":`...)
	at := len(b)
	if m == nil {
		return append(b, args...), at, nil
	}
	b, err := jsonenc.Append(b, m)
	return b, at, err
}

// putToolParamBuf gives back bp, which the params b were written into, to
// toolParamBufs (unless b grew huge).
func putToolParamBuf(bp *[]byte, b []byte) {
	if cap(b) <= 64<<10 {
		*bp = b
		toolParamBufs.Put(bp)
	}
}

// toolParamBufs holds the buffers callToolPlain writes params into.
var toolParamBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// toolCallOut describes a tools/call with params, the session's own copy.
func toolCallOut(params *protocol.CallToolParams) *outgoing {
	return &outgoing{method: protocol.MethodToolsCall, params: params, meta: &params.Meta,
		responses: &params.InputResponses, state: &params.RequestState, tool: params.Name, args: params.Arguments}
}

// toolArguments encodes the args of CallTool; nil means no arguments.
func toolArguments(args any) (json.RawMessage, error) {
	var raw []byte
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	case map[string]any:
		if a == nil {
			return nil, nil
		}
		var err error
		if raw, err = jsonenc.Append(make([]byte, 0, 128), a); err != nil {
			return nil, fmt.Errorf("encoding the arguments: %w", err)
		}
		return raw, nil
	default:
		var err error
		if raw, err = json.Marshal(args); err != nil {
			return nil, fmt.Errorf("encoding the arguments: %w", err)
		}
		return encodedObject(raw, args)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	if !jsonscan.Valid(raw) {
		return nil, errors.New("the arguments are not valid JSON")
	}
	if c := bytes.TrimLeft(raw, " \t\r\n"); c[0] != '{' {
		return nil, fmt.Errorf("the arguments must be a JSON object, not %s", jsonKind(c[0]))
	}
	return raw, nil
}

// encodedObject returns raw, args as encoding/json encodes them, when it is
// an object; null (a nil map or pointer) is no arguments.
func encodedObject(raw []byte, args any) (json.RawMessage, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("the arguments must encode as a JSON object, not %s (%T)", jsonKind(raw[0]), args)
	}
	return raw, nil
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// ToolError is the error [CallToolAs] returns when the tool ran and reported
// a failure (a result with IsError set). Use [errors.As] to get at it.
type ToolError struct {
	// Tool is the name of the tool that failed.
	Tool string
	// Text is the text of the result's text blocks, joined by newlines: what
	// the tool said went wrong.
	Text string
	// Result is the whole result.
	Result *protocol.CallToolResult
}

// Error returns the tool's name and its text.
func (e *ToolError) Error() string { return fmt.Sprintf("mcp: tool %q failed: %s", e.Tool, e.Text) }

// newToolError returns the ToolError for an isError result.
func newToolError(tool string, res *protocol.CallToolResult) *ToolError {
	var texts []string
	for _, c := range res.Content {
		if c.Type == protocol.ContentTypeText {
			texts = append(texts, c.Text)
		}
	}
	return &ToolError{Tool: tool, Text: strings.Join(texts, "\n"), Result: res}
}

// CallToolAs calls a tool as [ClientSession.CallTool] does and decodes its
// output into an Out: its structuredContent, or, when there is none, its
// single text block, holding JSON (or any text, when Out is a string). A tool
// that reports a failure (isError) returns a [*ToolError]. The result is
// returned whenever the call was answered, for its other content and _meta.
func CallToolAs[Out any](ctx context.Context, cs *ClientSession, name string, args any, opts ...RequestOption) (Out, *protocol.CallToolResult, error) {
	var out Out
	res, err := cs.CallTool(ctx, name, args, opts...)
	if err != nil {
		return out, nil, err
	}
	if res.IsError {
		return out, res, newToolError(name, res)
	}
	if err := decodeToolOutput(res, &out); err != nil {
		return out, res, fmt.Errorf("mcp: tool %q: %w", name, err)
	}
	return out, res, nil
}

// decodeToolOutput decodes the output of a successful result into out.
func decodeToolOutput[Out any](res *protocol.CallToolResult, out *Out) error {
	var raw []byte
	switch sc := res.StructuredContent.(type) {
	case nil:
		if len(res.Content) != 1 || res.Content[0].Type != protocol.ContentTypeText {
			return fmt.Errorf("the result has no structuredContent, nor a single text block, to decode into %v", reflect.TypeFor[Out]())
		}
		text := res.Content[0].Text
		if s, ok := any(out).(*string); ok {
			*s = text
			return nil
		}
		raw = []byte(text)
	case json.RawMessage:
		raw = sc
	default:
		var err error
		if raw, err = json.Marshal(sc); err != nil {
			return fmt.Errorf("re-encoding the structuredContent: %w", err)
		}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding the output into %v: %w", reflect.TypeFor[Out](), err)
	}
	return nil
}
