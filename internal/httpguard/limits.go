package httpguard

import (
	"errors"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// WriteRefusal answers a request that limits refused: e's status (503 or 429),
// its Retry-After header, and a JSON-RPC error for id (absent: null) whose
// message is e's reason.
func WriteRefusal(w http.ResponseWriter, e *transport.LimitError, id jsonrpc.ID) {
	w.Header().Set("Connection", "close") // a refused client's connection goes too

	hdr := w.Header()
	hdr.Set("Retry-After", e.RetryAfter)
	WriteJSONError(w, e.Status, id, jsonrpc.CodeInternalError, e.Reason)
}

// WriteJSONError answers with an HTTP status and a JSON-RPC error for id.
func WriteJSONError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	body := jsonrpc.AppendError(make([]byte, 0, 64+len(msg)), id, &jsonrpc.Error{Code: code, Message: msg})
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readDeadliner is implemented by net/http's response writers (HTTP/1 and
// HTTP/2): the deadline applies to reading the request body.
type readDeadliner interface {
	SetReadDeadline(deadline time.Time) error
}

// unwrapper is implemented by a middleware's response writer that wraps
// another; http.ResponseController follows it.
type unwrapper interface {
	Unwrap() http.ResponseWriter
}

// BoundBody bounds the reading of r's body by w's connection to d from now,
// so that a client that trickles a body cannot hold its connection (and a
// goroutine) for ever. Handlers call it first thing, before any check can
// refuse the request: a handler that answers without reading the body (a 403,
// 404, 406 or 415) leaves the body to net/http, which reads what remains of it
// after the answer to reuse the connection, and without a deadline a client
// that sends its headers and one byte would hold the connection there. With
// it, that read ends at the deadline and the connection is closed. A handler
// that reads the body lifts the deadline afterwards (ClearBodyDeadline), so
// that it bounds the body only, never a long answer; net/http's HTTP/1 server
// lifts it too when the body reaches its end (a deadline left behind would make
// its background read fail, which cancels the request's context). A request
// without a body, d <= 0, or a writer that supports no deadline, gets none.
func BoundBody(w http.ResponseWriter, r *http.Request, d time.Duration) {
	if r.ContentLength != 0 && d > 0 {
		setReadDeadline(w, time.Now().Add(d))
	}
}

// ClearBodyDeadline removes the deadline BoundBody set.
func ClearBodyDeadline(w http.ResponseWriter) { setReadDeadline(w, time.Time{}) }

// setReadDeadline sets the read deadline of w's connection. The plain writers
// of net/http take it directly (no allocation); a wrapping writer is unwrapped
// by an http.ResponseController.
func setReadDeadline(w http.ResponseWriter, t time.Time) bool {
	switch rw := w.(type) {
	case readDeadliner:
		return rw.SetReadDeadline(t) == nil
	case unwrapper:
		return http.NewResponseController(w).SetReadDeadline(t) == nil
	}
	return false
}

// IsTimeout reports whether err is a read that its deadline ended.
func IsTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// WriteBodyTimeout answers a request whose body did not arrive in time, with
// 408 and a JSON-RPC error; the connection is closed after the answer, since
// the rest of the body may still be on its way.
func WriteBodyTimeout(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Connection", "close")
	WriteJSONError(w, http.StatusRequestTimeout, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
		"request timeout: the body did not arrive within "+d.String())
}

// Throttle lets a warning through at most once a minute: a flood of refused
// requests must not become a flood of log lines. The zero value is ready.
type Throttle struct{ last atomic.Int64 }

// Allow reports whether a warning may be logged now.
func (t *Throttle) Allow() bool {
	now := time.Now().UnixNano()
	last := t.last.Load()
	if last != 0 && now-last < int64(time.Minute) {
		return false
	}
	return t.last.CompareAndSwap(last, now)
}
