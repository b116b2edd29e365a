// Package streamable implements MCP's Streamable HTTP transport (2025-03-26 and
// later): an http.Handler that serves an MCP server to any number of clients, with
// or without sessions, answering in JSON or on SSE streams, resumable; and a client
// transport.Conn that talks to such a server.
package streamable

// HTTP header names of the Streamable HTTP transport.
const (
	// HeaderSessionID carries the session id the server issued with the
	// InitializeResult; the client sends it on every later request.
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated protocol version on every
	// request after initialize (2025-06-18 and later).
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	// HeaderLastEventID asks the server to replay a stream after this event id.
	HeaderLastEventID = "Last-Event-Id"
)

// DefaultProtocolVersion is assumed when a request carries no protocol version
// header, as the 2025-06-18 transport specification says.
const DefaultProtocolVersion = "2025-03-26"
