// Package stdio implements the MCP stdio transport: newline-delimited JSON-RPC
// messages over a byte stream, one message per line.
//
// A server uses [NewProcessServerConn] (or [NewServerConn] on any reader and writer)
// to talk to the client that started it; both return a [transport.Conn] to serve,
// with mcp.Server's Run for instance. A client uses [NewCommandConn] to start a
// server as a subprocess and talk to it over the subprocess's standard input and
// output (a [CommandConn]).
//
// Lines may be as long as the configured bound (16 MiB by default, see [Options]
// and [CommandOptions]); a longer line is skipped with an error wrapping
// [jsonrpc.ErrMessageTooLarge] and reading goes on.
// Blank lines are ignored and a '\r' before the '\n' is tolerated. Every message Read
// returns is a slice the caller owns.
//
// Standard output carries protocol messages only: a server must write its logs to
// standard error, which the client side always reads, line by line.
package stdio
