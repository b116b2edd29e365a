package otelmcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
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
	m := &meters{}
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

	var op operation
	op.incoming, op.method = incoming, call.Method
	if t := targetOf(call.Method); t.name {
		op.name, op.nameKey = paramsName(call.Params), t.nameKey
		if len(op.name) > maxNameInSpanName {
			op.name = nil
		}
	}
	if call.Session != nil {
		op.version = call.Session.ProtocolVersion()
	}
	switch {
	case err != nil:
		op.errType, op.status = classifyError(err, incoming)
	case call.Method == methodToolsCall && toolFailed(res, incoming):
		op.errType = errorTypeToolError
	}
	opts := m.sets.options(&op, m.network)
	if incoming {
		m.serverOp.Record(ctx, elapsed, opts...)
	} else {
		m.clientOp.Record(ctx, elapsed, opts...)
	}
	if err == nil && call.Method == protocol.MethodInitialize {
		m.sessionStarted(call.Session, incoming)
	}
	return res, err
}

// operation is what the attributes of one measured operation are made of.
type operation struct {
	incoming        bool
	method          string
	name            []byte // the tool or prompt name (nil: none), with nameKey
	nameKey         attribute.Key
	version         string
	errType, status string
}

// attributes returns op's attributes followed by network's.
func (op *operation) attributes(network []attribute.KeyValue) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, maxOperationAttrs)
	attrs = append(attrs, methodNameKey.String(op.method))
	if op.name != nil && len(op.name) > 0 {
		attrs = append(attrs, op.nameKey.String(string(op.name)))
	}
	if op.method == methodToolsCall {
		attrs = append(attrs, operationNameKey.String(operationExecute))
	}
	if op.version != "" {
		attrs = append(attrs, protocolVersionKey.String(op.version))
	}
	attrs = append(attrs, network...)
	if op.errType != "" {
		attrs = append(attrs, errorTypeKey.String(op.errType))
	}
	if op.status != "" {
		attrs = append(attrs, statusCodeKey.String(op.status))
	}
	return attrs
}

// paramsName returns the string value of params.name as inspectParams reads
// it (the last "name" wins; nil when absent, not a string, or the params are
// not one valid object): the bytes inside params when the string has no
// escapes, so that a repeated name costs no allocation.
func paramsName(params []byte) []byte {
	s := jsonscan.Scanner{Data: params}
	s.SkipSpace()
	if s.Peek() != '{' {
		return nil
	}
	var name []byte
	it := newMemberIter(params, s.Pos, 0)
	for mb, ok := it.next(); ok; mb, ok = it.next() {
		if !mb.keyIs(params, "name") {
			continue
		}
		name = nil
		if params[mb.valStart] != '"' {
			continue
		}
		raw := params[mb.valStart+1 : mb.valEnd-1]
		if bytes.IndexByte(raw, '\\') >= 0 {
			raw = []byte(unquote(params[mb.valStart:mb.valEnd]))
		}
		name = raw
	}
	if it.err != nil || !it.atEnd() {
		return nil
	}
	return name
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

// setCache keeps the record options of each combination of operation
// attributes seen, so that a measurement whose combination was seen before
// builds no attribute set (which sorts and copies the attributes, and boxes
// the option) and no option slice: most operations repeat a handful of
// methods and tools. Lookups read an immutable map without locking; a new
// combination replaces the map with a copy that has it.
type setCache struct {
	m  atomic.Pointer[map[string][]metric.RecordOption]
	mu sync.Mutex // serializes writers
}

// options returns the record options carrying op's attributes and network's.
func (c *setCache) options(op *operation, network []attribute.KeyValue) []metric.RecordOption {
	var buf [256]byte
	key := append(buf[:0], 0)
	if op.incoming {
		key[0] = 1
	}
	// Lengths first: a peer's name may hold any byte.
	for _, v := range [...]string{op.method, string(op.nameKey), op.version, op.errType, op.status} {
		key = binary.AppendUvarint(key, uint64(len(v)))
		key = append(key, v...)
	}
	key = binary.AppendUvarint(key, uint64(len(op.name)))
	key = append(key, op.name...)
	if m := c.m.Load(); m != nil {
		if opts, ok := (*m)[string(key)]; ok {
			return opts
		}
	}
	opts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(op.attributes(network)...))}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil && len(*old) >= maxCachedSets {
		return opts
	}
	next := make(map[string][]metric.RecordOption, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	next[string(key)] = opts
	c.m.Store(&next)
	return opts
}

// lenOf is the length of *m, 0 for nil.
func lenOf(m *map[string][]metric.RecordOption) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
