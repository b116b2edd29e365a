package otelmcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Attribute keys of the OpenTelemetry semantic conventions for MCP
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/). They are spelled out
// here rather than taken from a semconv package: the MCP conventions are still in
// development and move between semconv releases.
const (
	methodNameKey      = attribute.Key("mcp.method.name")
	protocolVersionKey = attribute.Key("mcp.protocol.version")
	resourceURIKey     = attribute.Key("mcp.resource.uri")
	toolNameKey        = attribute.Key("gen_ai.tool.name")
	promptNameKey      = attribute.Key("gen_ai.prompt.name")
	operationNameKey   = attribute.Key("gen_ai.operation.name")
	requestIDKey       = attribute.Key("jsonrpc.request.id")
	errorTypeKey       = attribute.Key("error.type")
	statusCodeKey      = attribute.Key("rpc.response.status_code")
)

// Values of error.type and gen_ai.operation.name.
const (
	errorTypeToolError = "tool_error" // a tools/call result with isError: true
	errorTypeTimeout   = "timeout"    // the caller's deadline expired
	errorTypeCancelled = "cancelled"  // the caller cancelled the request
	errorTypeOther     = "_OTHER"     // anything else that is not a JSON-RPC error
	operationExecute   = "execute_tool"
)

const methodToolsCall = protocol.MethodToolsCall

// target says which params member names the object of a method: the tool or
// prompt name (which also goes into the span name) or the resource URI (which
// does not: it is not low-cardinality).
type target struct {
	name    bool
	nameKey attribute.Key
	uri     bool
}

func targetOf(method string) target {
	switch method {
	case protocol.MethodToolsCall:
		return target{name: true, nameKey: toolNameKey}
	case protocol.MethodPromptsGet:
		return target{name: true, nameKey: promptNameKey}
	case protocol.MethodResourcesRead, protocol.MethodResourcesSubscribe,
		protocol.MethodResourcesUnsubscribe, protocol.NotificationResourcesUpdated:
		return target{uri: true}
	}
	return target{}
}

// maxNameInSpanName bounds the tool or prompt name put in a span name. Span names
// must stay low-cardinality, and a name is whatever the peer sent, known tool or
// not; a longer one leaves the span named after the method (the attribute still
// has it, within the SDK's attribute limits).
const maxNameInSpanName = 128

// spanName is "{mcp.method.name} {target}", or the method alone when there is no
// tool or prompt name (or an implausibly long one).
func spanName(method string, t target, info *paramsInfo) string {
	if t.name && info.name != "" && len(info.name) <= maxNameInSpanName {
		return method + " " + info.name
	}
	return method
}

// appendCallAttributes appends the attributes known before the call runs.
func appendCallAttributes(attrs []attribute.KeyValue, call *mcp.Call, t target, info *paramsInfo) []attribute.KeyValue {
	attrs = append(attrs, methodNameKey.String(call.Method))
	if t.name && info.name != "" {
		attrs = append(attrs, t.nameKey.String(info.name))
	}
	if call.Method == methodToolsCall {
		attrs = append(attrs, operationNameKey.String(operationExecute))
	}
	if t.uri && info.uri != "" {
		attrs = append(attrs, resourceURIKey.String(info.uri))
	}
	if call.Session != nil {
		if v := call.Session.ProtocolVersion(); v != "" {
			attrs = append(attrs, protocolVersionKey.String(v))
		}
	}
	return attrs
}

// appendRequestID appends jsonrpc.request.id for an incoming request, whose id the
// connection records in the handler's context.
func appendRequestID(attrs []attribute.KeyValue, ctx context.Context) []attribute.KeyValue {
	id, ok := jsonrpc.RelatedRequest(ctx)
	if !ok {
		return attrs
	}
	switch v := id.Raw().(type) {
	case string:
		return append(attrs, requestIDKey.String(v))
	case int64:
		return append(attrs, requestIDKey.String(strconv.FormatInt(v, 10)))
	}
	return attrs
}

// classifyError returns the error.type of a failed call and, when the failure
// has a JSON-RPC code, rpc.response.status_code (else ""). A JSON-RPC error gives
// both its code. Any other error of an incoming request reaches the peer as an
// internal error (-32603), so it is classified as one; an outgoing request that
// failed without an answer (timeout, cancellation, closed connection) has no code.
func classifyError(err error, incoming bool) (errType, status string) {
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		code := errorCode(rpcErr.Code)
		return code, code
	case errors.Is(err, context.DeadlineExceeded):
		return errorTypeTimeout, ""
	case errors.Is(err, context.Canceled):
		return errorTypeCancelled, ""
	case incoming:
		code := errorCode(jsonrpc.CodeInternalError)
		return code, code
	}
	return errorTypeOther, ""
}

// recordError marks span as failed, with the attributes classifyError gives and
// the error's message (a JSON-RPC error's own message) as the status.
func recordError(span trace.Span, err error, incoming bool) {
	errType, status := classifyError(err, incoming)
	if status != "" {
		span.SetAttributes(errorTypeKey.String(errType), statusCodeKey.String(status))
	} else {
		span.SetAttributes(errorTypeKey.String(errType))
	}
	msg := err.Error()
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		msg = rpcErr.Message
	}
	span.SetStatus(codes.Error, msg)
}

// errorCode is a JSON-RPC error code as error.type and rpc.response.status_code
// record it.
func errorCode(code int64) string {
	switch code { // the codes MCP peers send, without formatting them each time
	case jsonrpc.CodeInvalidParams:
		return "-32602"
	case jsonrpc.CodeMethodNotFound:
		return "-32601"
	case jsonrpc.CodeInternalError:
		return "-32603"
	case jsonrpc.CodeInvalidRequest:
		return "-32600"
	}
	return strconv.FormatInt(code, 10)
}

// recordToolError marks span as failed because the tool reported an error in its
// result.
func recordToolError(span trace.Span) {
	span.SetAttributes(errorTypeKey.String(errorTypeToolError))
	span.SetStatus(codes.Error, "tool returned isError: true")
}

// incomingToolError reports whether the result a tools/call handler is about to
// send has isError: true.
func incomingToolError(res any) bool {
	switch r := res.(type) {
	case *protocol.CallToolResult:
		return r != nil && r.IsError
	case protocol.CallToolResult:
		return r.IsError
	case mcp.RawToolResult:
		return rawToolError(r.JSON())
	case json.RawMessage:
		return rawToolError(r)
	case []byte:
		return rawToolError(r)
	}
	return false
}

// rawToolError reports whether a tools/call result in JSON has isError: true.
func rawToolError(raw []byte) bool {
	start := 0
	for start < len(raw) && (raw[start] == ' ' || raw[start] == '\t' || raw[start] == '\n' || raw[start] == '\r') {
		start++
	}
	if start == len(raw) || raw[start] != '{' {
		return false
	}
	isErr := false
	it := newMemberIter(raw, start, 0)
	for m, ok := it.next(); ok; m, ok = it.next() {
		if m.keyIs(raw, "isError") {
			isErr = raw[m.valStart] == 't'
		}
	}
	return isErr && it.err == nil
}
