package timeline

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// EntryID identifies an entry while the model keeps it: the seq of the record
// that began it and, for a message in a batch, its place there (Part). It is
// comparable, so a view can keep a selection in a map or a variable.
type EntryID struct {
	Seq  uint64
	Part int
}

// String is the id as a view shows it: "12", or "12.3" for a batch's fourth
// message.
func (id EntryID) String() string {
	s := strconv.FormatUint(id.Seq, 10)
	if id.Part != 0 {
		s += "." + strconv.Itoa(id.Part)
	}
	return s
}

// Kinds of entry.
const (
	// KindRequest is a request, in either direction, with what answered it.
	KindRequest = "request"
	// KindNotification is a notification that belongs to no request the model
	// knows (those that do are in their request's Notifications).
	KindNotification = "notification"
	// KindResponse is a response that answers no request the model knows.
	KindResponse = "response"
	// KindInvalid is a message that is not valid JSON, or JSON that is not a
	// JSON-RPC message.
	KindInvalid = "invalid"
	// KindEvent is any other record: a stderr line, a stream opened or closed, an
	// HTTP or upstream error, a reconnect, the server's exit, dropped records
	// (Event names the record's kind).
	KindEvent = "event"
)

// States of a request.
const (
	// StatePending: no response yet (or ever: see Report's "unanswered").
	StatePending = "pending"
	// StateAnswered: a JSON-RPC response came (result or error).
	StateAnswered = "answered"
	// StateRefused: the HTTP exchange ended with an error status (or the tap's
	// 502) and no JSON-RPC response; Refusal holds that record.
	StateRefused = "refused"
)

// Message is one JSON-RPC message of a record (a batch gives several).
type Message struct {
	// Record is the record that carried it.
	Record *capture.Record
	// Index is its place in the record's batch (0 for a single message).
	Index int
	// Raw is the message's own bytes (an element of a batch).
	Raw json.RawMessage
	// Method is the method of a request or notification.
	Method string
	// ID is the request or response id as JSON (7, "abc"); empty for a
	// notification.
	ID string
	// Params, Result and Error are the message's members.
	Params json.RawMessage
	Result json.RawMessage
	Error  *jsonrpc.Error
}

// Time is when the tap saw the message.
func (m *Message) Time() time.Time { return m.Record.Time }

// IsErrorResult reports whether m is a result with isError set (a tool's
// failure).
func (m *Message) IsErrorResult() bool {
	if len(m.Result) == 0 || !bytes.Contains(m.Result, []byte(`"isError"`)) {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(m.Result, &r) == nil && r.IsError
}

// Failed reports whether m is a JSON-RPC error or an isError result.
func (m *Message) Failed() bool { return m.Error != nil || m.IsErrorResult() }

// ProgressToken returns the progress token of a request (params._meta) or of a
// progress notification (params), as JSON; "" when it has none.
func (m *Message) ProgressToken() string {
	if len(m.Params) == 0 || !bytes.Contains(m.Params, []byte(`"progressToken"`)) {
		return ""
	}
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	if len(p.Meta.Token) > 0 {
		return string(p.Meta.Token)
	}
	return string(p.Token)
}

// Entry is one line of the timeline: a request with its response and
// notifications, a lone notification or response, an invalid message, or an
// event. An entry is never modified once a Snapshot or Entry call returned it:
// the model replaces it with an updated copy.
type Entry struct {
	// ID is stable while the model keeps the entry.
	ID EntryID
	// Kind is one of the Kind constants.
	Kind string
	// Time is when the entry's first record was seen.
	Time time.Time
	// Dir, Transport and Exchange are those of the first record. Session is its
	// session too, except for a connection's first request (initialize, recorded
	// under "conn-N"): once answered, it is the session the reply named.
	Dir       string
	Transport string
	Session   string
	Exchange  uint64
	// Method is the method of a request or notification, else "".
	Method string
	// Event is the record kind of a KindEvent entry (capture.KindStderr ...).
	Event string
	// Record is the entry's first record.
	Record *capture.Record
	// Message is the request, notification or lone response; nil for events and
	// invalid messages.
	Message *Message

	// State is a request's state (one of the State constants); "" for others.
	State string
	// ServerRequest marks a request the server sent to the client (sampling,
	// elicitation, roots).
	ServerRequest bool
	// Response is what answered a request; nil while pending or when refused.
	Response *Message
	// Refusal is the http-error or upstream-error record that refused a request.
	Refusal *capture.Record
	// Latency is the time from the request to its response or refusal; -1 while
	// pending (and for entries that are not requests).
	Latency time.Duration
	// Notifications are those that belong to the request, in order.
	Notifications []*Message
	// FirstProgress is the time from the request to its first progress
	// notification; -1 when none came.
	FirstProgress time.Duration
	// Error marks a JSON-RPC error response (ErrorCode, ErrorMessage), IsError a
	// result with isError set.
	Error        bool
	ErrorCode    int64
	ErrorMessage string
	IsError      bool
	// Violations are the schema violations of the entry's messages against the
	// official schema of the session's negotiated version (Options.Schema).
	Violations []string
	// Target is what a request names in its params: the tool of tools/call, the
	// prompt of prompts/get, the URI of resources/read; "" for others.
	Target string
	// Events are the transport records of the request's own HTTP exchange (its
	// SSE response opened and closed, the HTTP error that ended it), folded into
	// the call's row.
	Events []*capture.Record
	// Probe is set on a request a client sends to learn what the server speaks
	// (ProbeEra, ProbeSessionless): its refusal is an answer, not a failure.
	Probe string

	tokenKey string // its key in Model.byToken, "" when none
}

// Failed reports whether the entry is something a person debugging wants to see
// first: an error or isError result, a refused request, an invalid message, a
// schema violation, or an error event.
func (e *Entry) Failed() bool {
	if e.ProbeRefused() {
		return false
	}
	if e.Error || e.IsError || e.State == StateRefused || e.Kind == KindInvalid || len(e.Violations) > 0 {
		return true
	}
	if e.Kind == KindResponse && e.Message != nil && e.Message.Failed() {
		return true
	}
	switch e.Event {
	case capture.KindHTTPError, capture.KindUpstreamError, capture.KindForbidden, capture.KindDropped, EventUnreadable:
		return true
	case capture.KindStreamClose:
		return isCut(e.Record.Text)
	case capture.KindExit:
		return e.Record.ExitCode != nil && *e.Record.ExitCode != 0
	}
	return false
}

// EventUnreadable is the kind of a record a reader of a capture file puts in the
// place of a line it could not read (a torn last line, a line edited by hand):
// Text says which line and why. The views show it; the analysis counts it as
// invalid-json.
const EventUnreadable = "unreadable-line"

// Probes a client sends (Entry.Probe).
const (
	// ProbeEra is server/discover, the probe of a client that learns which era of
	// the protocol a server speaks: a legacy server refuses it.
	ProbeEra = "era probe"
	// ProbeSessionless is a ping sent without a session (a client learning whether
	// the server asks for authorization): a stateful server refuses it with 400.
	ProbeSessionless = "sessionless probe"
)

// ProbeRefused reports whether the entry is a probe the server refused: an HTTP
// error, a JSON-RPC error, or no answer to an era probe is how a server says "not
// this", so none of them is a failure.
func (e *Entry) ProbeRefused() bool {
	return e.Probe != "" && (e.State == StateRefused || e.Error)
}

// Label is what a view names the entry by: the method and, for a call, what it
// called ("tools/call echo", "resources/read demo://a").
func (e *Entry) Label() string {
	if e.Target == "" {
		return e.Method
	}
	return e.Method + " " + e.Target
}

// targetOf reads what a request of method names: params.name or params.uri.
func targetOf(method string, params json.RawMessage) string {
	var key string
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		key = "uri"
	default:
		return ""
	}
	var p map[string]json.RawMessage
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	if json.Unmarshal(p[key], &v) != nil {
		return ""
	}
	return v
}

// isCut reports whether a stream-close text says the stream was cut (not ended by
// the server, the client or the tap's shutdown).
func isCut(text string) bool {
	return len(text) >= len(capture.EndUpstreamLost) && text[:len(capture.EndUpstreamLost)] == capture.EndUpstreamLost
}
