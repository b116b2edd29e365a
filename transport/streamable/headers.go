package streamable

import "github.com/mcpkit/mcpkit/protocol"

// HTTP header names of the Streamable HTTP transport.
const (
	// HeaderSessionID carries the session id the server issued with the
	// InitializeResult; the client sends it on every later request.
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated protocol version on every
	// request after initialize (2025-06-18 and later), and the request's own
	// version on every 2026-07-28 request.
	HeaderProtocolVersion = protocol.HeaderProtocolVersion
	// HeaderLastEventID asks the server to replay a stream after this event id.
	HeaderLastEventID = "Last-Event-Id"
)

// DefaultProtocolVersion is assumed when a request carries no protocol version
// header, as the 2025-06-18 transport specification says.
const DefaultProtocolVersion = "2025-03-26"
