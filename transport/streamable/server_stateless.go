package streamable

import (
	"bytes"
	"context"
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// This file serves the stateless protocol (2026-07-28) on the same endpoint as
// the session-based one: every request is a POST of its own, with no initialize
// and no session, carrying its protocol version and client capabilities in
// _meta and the standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name)
// that mirror the body. The specification is basic/transports/streamable-http
// of 2026-07-28.

// era is what a POST says about its protocol era. Only a POST without
// Mcp-Session-Id, or any POST to a sessionless handler, can be stateless: in a
// stateful handler a session id names a legacy session.
type era struct {
	stateless bool
	fields    protocol.RequestFields // the mirrored body fields, when read
	read      bool                   // fields was filled
}

// metaVersionKey is the _meta key whose presence marks a stateless request body.
var metaVersionKey = []byte(protocol.MetaKeyProtocolVersion)

// detectEra tells a 2026-07-28 POST from a session-less legacy one (an
// initialize, or any request of a sessionless handler). The POST is stateless
// when
//
//   - its body is a request whose _meta holds io.modelcontextprotocol/protocolVersion
//     (stateless per-request metadata, whatever the version it names), or
//   - it is not an initialize (which selects the legacy session engine) and its
//     MCP-Protocol-Version header names 2026-07-28 or later, or it carries an
//     Mcp-Method header and no legacy MCP-Protocol-Version.
//
// A legacy body is not parsed beyond what decoding the message already did unless
// it mentions the _meta key.
func detectEra(r *http.Request, in *incoming) era {
	var e era
	if m := in.single; m != nil && m.IsRequest() && bytes.Contains(m.Params, metaVersionKey) {
		e.fields, e.read = protocol.ReadRequestFields(m.Method, m.Params), true
		if e.fields.ProtocolVersion != "" {
			e.stateless = true
			return e
		}
	}
	if in.hasInit {
		return e
	}
	v := r.Header.Get(HeaderProtocolVersion)
	_, hasMethod := r.Header[protocol.HeaderMethod]
	e.stateless = protocol.IsStateless(v) || (hasMethod && !protocol.IsLegacy(v))
	return e
}

// postStateless answers a 2026-07-28 POST. It checks the standard headers against
// the body (400 with -32020 HeaderMismatch when they disagree), then hands the
// request to the server on a connection of its own that ends with the POST: when
// the client closes the response (which is how it cancels the request, as the
// specification's "Cancellation" says) the server's Read fails with
// errRequestEnded and the request's context is cancelled. The answer is JSON or SSE as ResponseMode says;
// a JSON error answer gets the HTTP status the specification ties to its code
// (see statelessErrorStatus). The request's progress and log notifications go on its
// SSE stream; the server cannot send it requests.
func (h *Handler) postStateless(w http.ResponseWriter, r *http.Request, in *incoming, e *era) {
	m := in.single
	switch {
	case m == nil:
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
			"invalid request: protocol version "+protocol.Version20260728+" takes one JSON-RPC message per POST, not a batch")
		return
	case m.IsResponse():
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
			"invalid request: in protocol version "+protocol.Version20260728+" a client sends no JSON-RPC responses")
		return
	case m.IsNotification():
		// The transport defines no client notifications any more (cancellation is
		// closing the response stream); accept and drop them.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !e.read {
		e.fields = protocol.ReadRequestFields(m.Method, m.Params)
	}
	if err := protocol.CheckRequestHeaders(r.Header, e.fields); err != nil {
		writeErrorID(w, http.StatusBadRequest, m.ID, protocol.CodeHeaderMismatch, headerMismatchMessage(err))
		return
	}
	listen := m.Method == protocol.MethodSubscriptionsListen
	if listen {
		// A listen stream stays open until the client or the server ends it.
		select {
		case <-h.draining:
			writeErrorID(w, http.StatusServiceUnavailable, m.ID, jsonrpc.CodeInternalError, "the MCP server is shutting down")
			return
		default:
		}
		if err := h.limits.OpenStream(); err != nil {
			h.refuse(w, err, m.ID)
			return
		}
		defer h.limits.CloseStream()
	}
	one := h.newOneShot(r.RemoteAddr, 1)
	s := &one.s
	s.stateless = true
	s.version = protocol.Version20260728
	s.conn.header = r.Header
	if !h.addOneShot(s) {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
		return
	}
	defer h.endOneShot(s) // the request ends with the POST
	if err := h.srv.Accept(context.Background(), (*statelessConn)(&s.conn)); err != nil {
		h.log.Error("streamable: the server refused a connection", "error", err)
		writeErrorID(w, http.StatusInternalServerError, m.ID, jsonrpc.CodeInternalError, "internal error: the server cannot serve this request")
		return
	}
	h.answer(w, r, s, in, answerOptions{
		stateless:   true,
		missingMeta: e.fields.MissingMeta(),
		listen:      listen,
		oneShot:     one,
	})
}

// headerMismatchMessage is the JSON-RPC error message of a header validation
// failure; it starts as the specification's example does ("Header mismatch: ").
func headerMismatchMessage(err error) string {
	msg := err.Error()
	const prefix = "header mismatch: "
	if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
		msg = msg[len(prefix):]
	}
	return "Header mismatch: " + msg
}

// statelessErrorStatus returns the HTTP status of a JSON answer to a 2026-07-28
// request that failed with code (0 for 200 OK). The specification sets:
//
//   - -32601 Method not found: 404 (basic/transports/streamable-http, "Protocol
//     Version Header": "If the server does not implement the requested RPC
//     method, it MUST respond with 404 Not Found and a JSON-RPC error with code
//     -32601");
//   - -32022 UnsupportedProtocolVersion: 400 (same section, and the schema's
//     UnsupportedProtocolVersionError);
//   - -32020 HeaderMismatch: 400 ("Server Validation", and the schema's
//     HeaderMismatchError);
//   - -32021 MissingRequiredClientCapability: 400 (basic/index, "_meta", and the
//     schema's MissingRequiredClientCapabilityError);
//   - -32602 Invalid params for a request missing a required _meta field: 400
//     (basic/index, "_meta"). Other -32602 errors (an unknown tool, bad
//     arguments) keep 200: the specification sets no status for them, and a
//     dual-era client reads a 400 without a recognized stateless error as a legacy
//     server and falls back to initialize.
//
// Every other error keeps 200. An answer already streaming (SSE) has sent its
// status: the specification's statuses apply to JSON answers, and to SSE ones only
// while the response is the first message (see ResponseAlwaysSSE in answer).
//
// One more is mcpkit's own: a -32603 whose data is transport.UnavailableErrorData
// (a backend shared by replicas cannot answer for now) gets 503 with
// Retry-After, as an unavailable session store does.
func statelessErrorStatus(e *jsonrpc.Error, missingMeta bool) int {
	switch code := e.Code; code {
	case jsonrpc.CodeInternalError:
		if bytes.Equal(e.Data, transport.UnavailableErrorData) {
			return http.StatusServiceUnavailable
		}
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case protocol.CodeUnsupportedProtocolVersion, protocol.CodeHeaderMismatch, protocol.CodeMissingClientCapability:
		return http.StatusBadRequest
	case jsonrpc.CodeInvalidParams:
		if missingMeta {
			return http.StatusBadRequest
		}
	}
	return 0
}
