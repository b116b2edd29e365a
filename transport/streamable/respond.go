package streamable

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// Writing error and JSON answers to a POST.

// Shared header values (never modified: net/http replaces, not edits, them).
var (
	hdrJSON             = []string{"application/json"}
	hdrEventStream      = []string{"text/event-stream"}
	hdrNoCache          = []string{"no-cache"}
	hdrNo               = []string{"no"}
	hdrAllowStateful    = []string{"GET, POST, DELETE"}
	hdrAllowSessionless = []string{"POST"}
)

// smallBody is the size up to which a JSON body is written without a
// Content-Length header of ours: net/http buffers that much of a response and,
// when the handler returns with the whole body in its buffer, sends the
// Content-Length itself.
const smallBody = 2048

// writeError answers with an HTTP error status and a JSON-RPC error without id.
func writeError(w http.ResponseWriter, status int, code int64, msg string) {
	writeErrorID(w, status, jsonrpc.ID{}, code, msg)
}

// writeErrorID answers with an HTTP error status and a JSON-RPC error for id.
func writeErrorID(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	body := jsonrpc.AppendError(make([]byte, 0, 64+len(msg)), id, &jsonrpc.Error{Code: code, Message: msg})
	writeJSONBody(w, status, body)
}

func writeJSONBody(w http.ResponseWriter, status int, body []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = hdrJSON
	if len(body) > smallBody {
		hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// refuse answers a request that the limits refused (err is a
// *transport.LimitError) with its status, Retry-After and a JSON-RPC error for
// id, and warns (at most once a minute) that the server is turning clients
// away.
func (h *Handler) refuse(w http.ResponseWriter, err error, id jsonrpc.ID) {
	var le *transport.LimitError
	if !errors.As(err, &le) {
		writeErrorID(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError, err.Error())
		return
	}
	if h.refusals.Allow() {
		h.log.Warn("streamable: refusing sessions or streams beyond the limits (logged once a minute)", "status", le.Status, "reason", le.Reason)
	}
	httpguard.WriteRefusal(w, le, id)
}
