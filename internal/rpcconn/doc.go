// Package rpcconn is mcpkit's JSON-RPC connection engine: Conn runs one
// bidirectional JSON-RPC session over a Stream (a transport connection), matching
// responses to the calls it sent and running a Handler for each incoming request and
// notification. It handles cancellation, batches, oversized messages and the push
// mode, in which an HTTP transport hands each message to the connection on its own
// goroutine instead of the connection reading them.
//
// It is internal: package mcp builds its sessions on it, and users see only the
// messages (package jsonrpc) and the transports (package transport).
package rpcconn
