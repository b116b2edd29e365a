// Package otelmcp traces and measures MCP traffic with OpenTelemetry.
//
// Middleware returns an mcp.Middleware for a Server, a Client or both. Installed, it
//
//   - starts a span of kind Server for each request the peer sends, whose parent is
//     the trace context the peer put in the request's params._meta (the keys
//     traceparent, tracestate and baggage, in W3C formats, as the MCP specification
//     reserves them); the handler's context carries that span and the baggage;
//   - starts a span of kind Client for each request sent to the peer, and writes the
//     current trace context and baggage into the outgoing params._meta, keeping every
//     key already there (progressToken, io.modelcontextprotocol/*, ...);
//   - writes the trace context into outgoing notifications too (without a span), and
//     traces incoming notifications only when asked to.
//
// Spans follow the OpenTelemetry semantic conventions for MCP: they are named
// "{mcp.method.name} {target}" ("tools/call get_weather", "prompts/get review",
// "resources/read"), and carry mcp.method.name, gen_ai.tool.name,
// gen_ai.prompt.name, mcp.resource.uri, jsonrpc.request.id (incoming requests),
// mcp.protocol.version, and on failure error.type and rpc.response.status_code. A
// JSON-RPC error sets the span's status to Error with the error's message; so does a
// tools/call result with isError: true, with error.type "tool_error".
//
// Metrics returns middleware that records the metrics of the same conventions:
// mcp.server.operation.duration and mcp.client.operation.duration (by method,
// tool or prompt, outcome, protocol version and transport), the sessions'
// durations (mcp.server.session.duration, mcp.client.session.duration) and the
// sessions open. It records through the OpenTelemetry API: the program chooses
// the MeterProvider and its exporters (mcpkit's CLI: OTLP from the OTEL_*
// variables, Prometheus with --metrics-addr).
//
// Tracing and metrics are off by default and cost nothing until installed:
// without middleware the mcp package takes a path that never builds a Call.
package otelmcp
