// Package legacysse implements the HTTP+SSE transport of MCP 2024-11-05, which the
// Streamable HTTP transport replaced in 2025-03-26 but which many servers and clients
// still speak.
//
// The transport uses two HTTP endpoints. The client opens a long-lived GET on the SSE
// endpoint; the server answers with a text/event-stream whose first event, of type
// "endpoint", carries the URL to POST messages to (by convention a relative URL with
// the session id in its query string). Every message from the server then arrives on
// that stream as an event of type "message" whose data is the JSON-RPC message; every
// message from the client is the body of its own POST, which the server accepts with
// 202 and answers, if at all, on the stream. The session lasts as long as the stream.
//
// [NewHandler] serves a [transport.Server] (such as *mcp.Server) over this
// transport, one session per stream: the returned [Handler] is an [net/http.Handler]
// to mount at both paths (see [HandlerOptions]). [NewClientConn] connects to such a server and
// returns a [transport.Conn] for an MCP client (see [ClientOptions]). Both follow the
// WHATWG event-stream rules through package [sse], so they interoperate with servers
// that frame events with CRLF, omit the space after the colon, send comment
// keep-alives or number their events.
//
// Serve the handler with the timeouts and connection cap of
// [github.com/mcpkit/mcpkit.NewHTTPServer] and [github.com/mcpkit/mcpkit.LimitListener]
// (or [github.com/mcpkit/mcpkit.ListenAndServe], which mounts this transport beside
// Streamable HTTP), never with a bare http.ListenAndServe, whose connections have
// no idle or header timeout.
package legacysse
