package mcp

import (
	"errors"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// JSON-RPC error codes used by MCP, re-exported for handlers that return *jsonrpc.Error.
const (
	CodeInvalidParams    = jsonrpc.CodeInvalidParams
	CodeMethodNotFound   = jsonrpc.CodeMethodNotFound
	CodeInvalidRequest   = jsonrpc.CodeInvalidRequest
	CodeInternalError    = jsonrpc.CodeInternalError
	CodeResourceNotFound = protocol.CodeResourceNotFound
)

// ErrCapabilityNotSupported is returned when a handler asks the peer for something
// (sampling, elicitation, roots) that the peer did not declare it supports.
var ErrCapabilityNotSupported = errors.New("mcp: the peer did not declare this capability")

// ResourceNotFound returns the error a resource handler gives for a URI it does not
// have: code -32002 with the URI in data, as the specification asks.
func ResourceNotFound(uri string) error {
	return (&jsonrpc.Error{Code: CodeResourceNotFound, Message: "Resource not found"}).WithData(map[string]string{"uri": uri})
}
