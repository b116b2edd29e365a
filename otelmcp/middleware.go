package otelmcp

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// InstrumentationName is the name of the tracer the middleware asks its
// TracerProvider for, as OpenTelemetry recommends: the package's import path.
const InstrumentationName = "github.com/mcpkit/mcpkit/otelmcp"

// Options configures Middleware. The zero value (or nil) traces with the global
// TracerProvider and propagates W3C Trace Context and W3C Baggage.
type Options struct {
	// TracerProvider creates the tracer. Nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// Propagator reads and writes the trace context in params._meta. Nil means
	// W3C Trace Context followed by W3C Baggage (the keys traceparent, tracestate
	// and baggage, which the MCP specification reserves for this), whatever the
	// global propagator is.
	Propagator propagation.TextMapPropagator
	// Filter, when set, is asked about every call; a call it returns false for is
	// passed on untouched: no span, nothing extracted or injected.
	Filter func(ctx context.Context, call *mcp.Call) bool
	// TraceIncomingNotifications makes incoming notifications get a span of kind
	// Server too, whose parent is the trace context in their params._meta.
	// Off by default: notifications such as progress can be frequent, and the
	// receiver of a notification has nothing to answer.
	TraceIncomingNotifications bool
}

// Middleware returns middleware that traces MCP requests and propagates trace
// context in params._meta, for a Server (ServerOptions.Middleware) or a Client
// (ClientOptions.Middleware). Requests from the peer get a span of kind Server,
// child of the context the peer sent; requests to the peer get a span of kind
// Client, whose context is written into the request. See the package
// documentation for the span names and attributes.
//
// Place it first in the middleware list, so that the spans cover the other
// middleware and the handlers see the span in their context.
func Middleware(opts *Options) mcp.Middleware {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	t := &tracer{
		tracer:             o.TracerProvider.Tracer(InstrumentationName),
		prop:               o.Propagator,
		filter:             o.Filter,
		traceNotifications: o.TraceIncomingNotifications,
	}
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			if t.filter != nil && !t.filter(ctx, call) {
				return next(ctx, call)
			}
			switch {
			case call.Direction == mcp.Outgoing && call.Notification:
				t.inject(ctx, call)
				return next(ctx, call)
			case call.Direction == mcp.Outgoing:
				return t.send(ctx, call, next)
			case call.Notification && !t.traceNotifications:
				return next(ctx, call)
			default:
				return t.receive(ctx, call, next)
			}
		}
	}
}

// The span kinds as start options, made once: an option is an interface value,
// and making one per call would allocate.
var (
	serverKind = trace.WithSpanKind(trace.SpanKindServer)
	clientKind = trace.WithSpanKind(trace.SpanKindClient)
)

// tracer is the configured middleware's state; it is immutable.
type tracer struct {
	tracer             trace.Tracer
	prop               propagation.TextMapPropagator
	filter             func(context.Context, *mcp.Call) bool
	traceNotifications bool
}

// receive traces a call from the peer: it extracts the peer's context from
// params._meta and runs next under a Server span that is its child.
func (t *tracer) receive(ctx context.Context, call *mcp.Call, next mcp.Invoker) (any, error) {
	target := targetOf(call.Method)
	info := inspectParams(call.Params, target.name, target.uri)

	parentCtx := ctx
	var links []trace.Link
	if info.meta != nil {
		parentCtx = t.prop.Extract(ctx, &metaReader{obj: info.meta})
		// The context in _meta is the parent; the ambient one (an HTTP server span,
		// say) is linked, as the MCP semantic conventions ask.
		if ambient := trace.SpanContextFromContext(ctx); ambient.IsValid() {
			if remote := trace.SpanContextFromContext(parentCtx); !remote.Equal(ambient) {
				links = []trace.Link{{SpanContext: ambient}}
			}
		}
	}

	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = appendCallAttributes(attrs, call, target, &info)
	if !call.Notification {
		attrs = appendRequestID(attrs, ctx)
	}
	startOpts := []trace.SpanStartOption{serverKind, trace.WithAttributes(attrs...)}
	if links != nil {
		startOpts = append(startOpts, trace.WithLinks(links...))
	}
	ctx, span := t.tracer.Start(parentCtx, spanName(call.Method, target, &info), startOpts...)
	ended := false
	defer func() {
		if !ended { // next panicked; the connection answers with an internal error
			code := errorCode(jsonrpc.CodeInternalError)
			span.SetAttributes(errorTypeKey.String(code), statusCodeKey.String(code))
			span.SetStatus(codes.Error, "handler panicked")
			span.End()
		}
	}()

	res, err := next(ctx, call)
	if err != nil {
		recordError(span, err, true)
	} else if call.Method == methodToolsCall && incomingToolError(res) {
		recordToolError(span)
	}
	ended = true
	span.End()
	return res, err
}

// send traces a call to the peer: it runs next under a Client span whose context
// (and the baggage of ctx) it writes into params._meta.
func (t *tracer) send(ctx context.Context, call *mcp.Call, next mcp.Invoker) (any, error) {
	target := targetOf(call.Method)
	info := inspectParams(call.Params, target.name, target.uri)
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = appendCallAttributes(attrs, call, target, &info)
	ctx, span := t.tracer.Start(ctx, spanName(call.Method, target, &info), clientKind, trace.WithAttributes(attrs...))
	defer span.End()

	t.inject(ctx, call)
	res, err := next(ctx, call)
	if err != nil {
		recordError(span, err, false)
	} else if call.Method == methodToolsCall {
		if raw, ok := res.(json.RawMessage); ok && rawToolError(raw) {
			recordToolError(span)
		}
	}
	return res, err
}

// inject writes the trace context and baggage of ctx into call.Params._meta. Params
// it cannot add _meta to (not an object) are sent as they are: tracing must never
// break a call.
func (t *tracer) inject(ctx context.Context, call *mcp.Call) {
	var w metaWriter
	t.prop.Inject(ctx, &w)
	if len(w.fields) == 0 {
		return
	}
	if p, err := injectMeta(call.Params, w.fields); err == nil {
		call.Params = p
	}
}
