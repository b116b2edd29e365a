// Package tap sits between an MCP client and an MCP server, relays everything
// between them unchanged, and records every message: the engine of `mcpkit tap`.
//
// RunStdio runs a server as a subprocess and relays its standard input, output and
// error byte for byte (any line length, partial writes), forwarding signals and
// passing on its exit status. HTTPTap is a reverse proxy for Streamable HTTP, the
// 2024-11-05 HTTP+SSE transport and 2026-07-28 stateless requests, relaying event
// streams event by event as they arrive.
//
// Both hand what they see to a capture.Recorder as capture.Records: the format
// (tap/FORMAT.md) is written to a file, counted for the exit summary, and offered to
// live subscribers (views). The recorder never slows a relay: what it cannot keep
// up with it drops, counts and reports.
package tap
