// Package streamable implements MCP's Streamable HTTP transport (2025-03-26 and
// later): an http.Handler that serves an MCP server to any number of clients, with
// or without sessions, answering in JSON or on SSE streams, resumable, and the
// stateless 2026-07-28 shape of the transport on the same endpoint; and a client
// transport.Conn that talks to such a server.
//
// # Server
//
// [NewHandler] returns a [Handler] that hands every session to a
// [transport.Server] (an *mcp.Server); [HandlerOptions] choose sessions or none
// (Sessionless), JSON or SSE answers ([ResponseMode]), limits, keep-alives, the
// accepted origins and hosts, and the [EventStore] that lets clients resume broken
// streams ([MemoryEventStore] by default). [Handler.Shutdown] and [Handler.Close]
// end it.
//
// Serve the handler with the timeouts and connection cap of
// [github.com/mcpkit/mcpkit.NewHTTPServer] and [github.com/mcpkit/mcpkit.LimitListener]
// (or simply [github.com/mcpkit/mcpkit.ListenAndServe], which mounts both HTTP
// transports): a bare http.ListenAndServe has no idle or header timeout, so idle
// and slow connections pile up until the process runs out of descriptors.
//
// # Client
//
// [NewClientConn] returns a [ClientConn], the [transport.Conn] of an MCP client,
// configured by [ClientOptions]: headers, reconnection, re-initialization of an
// expired session, and the fallback to the older HTTP+SSE transport.
package streamable
