// Package wirecheck validates MCP traffic in tests against the official JSON schema of
// the protocol version negotiated on each connection.
//
// The schemas are the copies embedded in package internal/specs (or, when set, those
// in $MCPKIT_SPEC_DIR/<version>/schema.json), so checking needs no file outside the
// repository and works from any working directory. For every version the package derives a table from the schema
// itself: each request method with its request and result definitions, each
// notification with its definition, who may send it, the envelope definitions, and
// the definitions that pin an error code. A Checker follows one connection — it learns
// the version from initialize or from a request's _meta, and pairs responses with
// their requests — and validates every message against its row of the table as well
// as the generic JSON-RPC envelope.
//
// Tests plug it in with Wrap, which checks every message written on a transport.Conn
// and reports violations with t.Errorf:
//
//	conn := wirecheck.Wrap(t, memoryConn, wirecheck.Server)
//
// Each (version, definition) is compiled once per process and shared by all checkers.
package wirecheck
