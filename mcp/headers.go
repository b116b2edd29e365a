package mcp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file checks the Mcp-Param-{Name} headers of a 2026-07-28 tools/call
// that arrived over Streamable HTTP (the conn implements
// transport.HeaderConn) against the call's arguments. The declarations come
// from the x-mcp-header keyword of the tool's inputSchema; see
// protocol.ParamHeaders for the rules.

// paramHeaderSpecs returns the x-mcp-header declarations of tool's
// inputSchema, to be computed once (when the tool is registered) and handed
// to checkParamHeaderSpecs on every call. An error describes an invalid
// declaration: clients drop such a tool from their tool lists, so a server
// should refuse to register it.
func paramHeaderSpecs(tool *protocol.Tool) ([]protocol.ParamHeader, error) {
	return protocol.ParamHeaders(tool.InputSchema)
}

// checkParamHeaderSpecs checks the headers h of a call against its arguments
// args and the precomputed declarations specs. It returns nil when they agree
// and otherwise a *jsonrpc.Error with code -32020 (HeaderMismatch), which the
// Streamable HTTP transport answers with 400 Bad Request, as the
// specification's "Server Behavior for Custom Headers" requires: a declared
// header missing while its argument is present, present while its argument is
// absent or null, sent twice, holding characters that needed Base64 or
// malformed Base64, or whose decoded value differs from the argument. It
// allocates nothing when the headers match.
func checkParamHeaderSpecs(h http.Header, specs []protocol.ParamHeader, args json.RawMessage) error {
	if len(specs) == 0 {
		return nil
	}
	if err := protocol.CheckParamHeaders(h, specs, args); err != nil {
		return headerMismatch(err)
	}
	return nil
}

// headerMismatch turns a header validation failure into the JSON-RPC error
// the specification defines for it, whose message leads with "Header
// mismatch:" as the specification's example does.
func headerMismatch(err error) *jsonrpc.Error {
	msg, _ := strings.CutPrefix(err.Error(), "header mismatch: ")
	return &jsonrpc.Error{Code: protocol.CodeHeaderMismatch, Message: "Header mismatch: " + msg}
}
