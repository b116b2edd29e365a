package otelmcp

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Names of the metrics Metrics records. The first four are those of the
// OpenTelemetry semantic conventions for MCP; the session gauges are mcpkit's
// own (the conventions define no count of open sessions).
const (
	ServerOperationDuration = "mcp.server.operation.duration"
	ClientOperationDuration = "mcp.client.operation.duration"
	ServerSessionDuration   = "mcp.server.session.duration"
	ClientSessionDuration   = "mcp.client.session.duration"
	ServerActiveSessions    = "mcpkit.server.session.active"
	ClientActiveSessions    = "mcpkit.client.session.active"
)

// durationBuckets are the bucket boundaries (seconds) the conventions advise
// for the four duration histograms.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Attribute keys of the network the session runs on.
const (
	networkTransportKey = attribute.Key("network.transport")
	networkProtocolKey  = attribute.Key("network.protocol.name")
)

// Values of MetricsOptions.Transport, as the conventions record MCP's
// transports.
const (
	TransportPipe = "pipe" // stdio
	TransportTCP  = "tcp"  // Streamable HTTP and HTTP+SSE
)

// MetricsOptions configures Metrics. The zero value (or nil) records with the
// global MeterProvider and leaves out the network attributes.
type MetricsOptions struct {
	// MeterProvider creates the meter. Nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Transport is network.transport: TransportPipe for stdio, TransportTCP
	// for HTTP; empty leaves the attribute out.
	Transport string
	// NetworkProtocol is network.protocol.name: "http" over HTTP; empty
	// leaves it out.
	NetworkProtocol string
	// Filter, when set, is asked about every call; a call it returns false for
	// is not measured.
	Filter func(ctx context.Context, call *mcp.Call) bool
}

// Metrics returns middleware that measures MCP traffic with the metrics of the
// OpenTelemetry semantic conventions for MCP, for a Server or a Client:
//
//   - mcp.server.operation.duration: each request and notification the peer
//     sends, from its arrival until the result is ready (histogram, seconds);
//   - mcp.client.operation.duration: each one sent to the peer, until its
//     answer arrives;
//   - mcp.server.session.duration and mcp.client.session.duration: each
//     legacy-era session, from its initialize until it ends;
//   - mcpkit.server.session.active and mcpkit.client.session.active: the
//     sessions open now.
//
// Operations carry mcp.method.name, gen_ai.tool.name (tools/call),
// gen_ai.prompt.name (prompts/get), gen_ai.operation.name (execute_tool for
// tools/call), mcp.protocol.version, the network attributes of opts, and on
// failure error.type (the JSON-RPC code, "tool_error" for a tool result with
// isError, "timeout", "cancelled" or "_OTHER") and rpc.response.status_code
// (the JSON-RPC code). A tool or prompt name longer than 128 bytes is left out:
// names are whatever the peer sent, and each distinct one is a series (the SDK's
// cardinality limit bounds them too). Resource URIs are left out (opt-in in the
// conventions, and unbounded).
//
// It may be combined with Middleware (spans); either can be installed alone.
func Metrics(opts *MetricsOptions) (mcp.Middleware, error) {
	var o MetricsOptions
	if opts != nil {
		o = *opts
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	m, err := newMeters(o.MeterProvider.Meter(InstrumentationName))
	if err != nil {
		return nil, err
	}
	if o.Transport != "" {
		m.network = append(m.network, networkTransportKey.String(o.Transport))
	}
	if o.NetworkProtocol != "" {
		m.network = append(m.network, networkProtocolKey.String(o.NetworkProtocol))
	}
	filter := o.Filter
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			if filter != nil && !filter(ctx, call) {
				return next(ctx, call)
			}
			return m.measure(ctx, call, next)
		}
	}, nil
}

// meters holds the instruments; it is immutable once made.
type meters struct {
	serverOp, clientOp           metric.Float64Histogram
	serverSession, clientSession metric.Float64Histogram
	serverActive, clientActive   metric.Int64UpDownCounter
	network                      []attribute.KeyValue
	sets                         setCache
}

func newMeters(meter metric.Meter) (*meters, error) {
	m := &meters{sets: setCache{m: make(map[string]metric.MeasurementOption)}}
	var err error
	hist := func(name, desc string) metric.Float64Histogram {
		if err != nil {
			return nil
		}
		var h metric.Float64Histogram
		h, err = meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		return h
	}
	gauge := func(name, desc string) metric.Int64UpDownCounter {
		if err != nil {
			return nil
		}
		var c metric.Int64UpDownCounter
		c, err = meter.Int64UpDownCounter(name, metric.WithUnit("{session}"), metric.WithDescription(desc))
		return c
	}
	m.serverOp = hist(ServerOperationDuration, "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.")
	m.clientOp = hist(ClientOperationDuration, "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.")
	m.serverSession = hist(ServerSessionDuration, "The duration of the MCP session as observed on the MCP server.")
	m.clientSession = hist(ClientSessionDuration, "The duration of the MCP session as observed on the MCP client.")
	m.serverActive = gauge(ServerActiveSessions, "MCP sessions open on the server.")
	m.clientActive = gauge(ClientActiveSessions, "MCP sessions open on the client.")
	return m, err
}

// maxOperationAttrs is the most attributes one operation carries.
const maxOperationAttrs = 9

// measure runs next and records how long it took.
func (m *meters) measure(ctx context.Context, call *mcp.Call, next mcp.Invoker) (any, error) {
	incoming := call.Direction == mcp.Incoming
	start := time.Now()
	res, err := next(ctx, call)
	elapsed := time.Since(start).Seconds()

	var buf [maxOperationAttrs]attribute.KeyValue
	attrs := buf[:0]
	attrs = append(attrs, methodNameKey.String(call.Method))
	if t := targetOf(call.Method); t.name {
		info := inspectParams(call.Params, true, false)
		if info.name != "" && len(info.name) <= maxNameInSpanName {
			attrs = append(attrs, t.nameKey.String(info.name))
		}
	}
	if call.Method == methodToolsCall {
		attrs = append(attrs, operationNameKey.String(operationExecute))
	}
	if call.Session != nil {
		if v := call.Session.ProtocolVersion(); v != "" {
			attrs = append(attrs, protocolVersionKey.String(v))
		}
	}
	attrs = append(attrs, m.network...)
	switch {
	case err != nil:
		errType, status := classifyError(err, incoming)
		attrs = append(attrs, errorTypeKey.String(errType))
		if status != "" {
			attrs = append(attrs, statusCodeKey.String(status))
		}
	case call.Method == methodToolsCall && toolFailed(res, incoming):
		attrs = append(attrs, errorTypeKey.String(errorTypeToolError))
	}
	opt := m.sets.option(attrs)
	if incoming {
		m.serverOp.Record(ctx, elapsed, opt)
	} else {
		m.clientOp.Record(ctx, elapsed, opt)
	}
	if err == nil && call.Method == protocol.MethodInitialize {
		m.sessionStarted(call.Session, incoming)
	}
	return res, err
}

// toolFailed reports whether a tools/call result says isError: true: the Go
// value a handler returned (incoming) or the peer's JSON (outgoing).
func toolFailed(res any, incoming bool) bool {
	if incoming {
		return incomingToolError(res)
	}
	raw, ok := res.(json.RawMessage)
	return ok && rawToolError(raw)
}

// endable is what a legacy session offers to learn when it ends: both
// *mcp.ServerSession and *mcp.ClientSession.
type endable interface {
	mcp.Session
	Done() <-chan struct{}
}

// sessionStarted counts a session that has just initialized, and records its
// duration when it ends. The session's protocol version and the network
// attributes go with both. A stateless-era call has no session to follow.
func (m *meters) sessionStarted(s mcp.Session, server bool) {
	es, ok := s.(endable)
	if !ok {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 1+len(m.network))
	if v := es.ProtocolVersion(); v != "" {
		attrs = append(attrs, protocolVersionKey.String(v))
	}
	attrs = append(attrs, m.network...)
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	active, duration := m.clientActive, m.clientSession
	if server {
		active, duration = m.serverActive, m.serverSession
	}
	start := time.Now()
	active.Add(context.Background(), 1, set)
	go func() {
		<-es.Done()
		active.Add(context.Background(), -1, set)
		duration.Record(context.Background(), time.Since(start).Seconds(), set)
	}()
}

// maxCachedSets bounds setCache: past it, a new combination of attributes is
// made for each measurement instead of kept.
const maxCachedSets = 1024

// setCache keeps the measurement option of each combination of operation
// attributes seen, so that a measurement whose combination was seen before
// builds no attribute set (which sorts and copies the attributes, and boxes
// the option): most operations repeat a handful of methods and tools.
type setCache struct {
	mu sync.RWMutex
	m  map[string]metric.MeasurementOption
}

// option returns the option carrying attrs, whose values are all strings.
func (c *setCache) option(attrs []attribute.KeyValue) metric.MeasurementOption {
	var buf [256]byte
	key := buf[:0]
	for _, a := range attrs { // lengths first: a peer's name may hold any byte
		v := a.Value.AsString()
		key = binary.AppendUvarint(key, uint64(len(a.Key)))
		key = append(key, a.Key...)
		key = binary.AppendUvarint(key, uint64(len(v)))
		key = append(key, v...)
	}
	c.mu.RLock()
	opt, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok {
		return opt
	}
	opt = metric.WithAttributeSet(attribute.NewSet(attrs...))
	c.mu.Lock()
	if len(c.m) < maxCachedSets {
		c.m[string(key)] = opt
	}
	c.mu.Unlock()
	return opt
}
