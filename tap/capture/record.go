// Package capture is the capture format of `mcpkit tap` and the engine that records
// it: a Record per observed message or transport event, written one JSON object per
// line after a Header line (the format is specified in tap/FORMAT.md), and a
// Recorder that takes records from the relays without ever blocking them, writes
// them to a file, keeps the tallies of the exit summary, and hands them to live
// subscribers (the views).
//
// The package knows nothing of stdio or HTTP: the taps in package tap produce the
// records; views, exporters and replayers consume them, live through
// Recorder.Subscribe or from a file through Reader.
package capture

import (
	"encoding/json"
	"strings"
	"time"
)

// Format is the value of the header's "format" member for this version of the
// capture format. A reader refuses a capture whose format it does not know.
const Format = "mcpkit-tap/1"

// Directions of a message.
const (
	ClientToServer = "c2s" // from the client to the server
	ServerToClient = "s2c" // from the server to the client
)

// Transports a record can name.
const (
	TransportStdio      = "stdio"
	TransportStreamable = "streamable-http"
	TransportHTTPSSE    = "http+sse" // the 2024-11-05 HTTP+SSE transport
)

// Kinds of record. A record without a kind is a message.
const (
	// KindStderr is one line the server wrote to its standard error (Text).
	KindStderr = "stderr"
	// KindStreamOpen is an SSE response that began (HTTP holds the exchange).
	KindStreamOpen = "stream-open"
	// KindStreamClose is an SSE response that ended; Text says how (EndEOF ...),
	// Count how many events it carried, LastEventID the last event id in force
	// (what a client resuming the stream would send).
	KindStreamClose = "stream-close"
	// KindReconnect is a request that resumes a stream: LastEventID holds its
	// Last-Event-ID header.
	KindReconnect = "reconnect"
	// KindEndpoint is the endpoint event of the HTTP+SSE transport: Text holds the
	// URL the server sent, Endpoint the URL the tap relayed in its place.
	KindEndpoint = "endpoint"
	// KindHTTP is an HTTP exchange that carried no JSON-RPC message: a 202, a
	// DELETE, OAuth metadata, a body that is not JSON. Size is the body's length.
	KindHTTP = "http"
	// KindHTTPError is a response with a status of 400 or more; Text holds the start
	// of its body.
	KindHTTPError = "http-error"
	// KindUpstreamError is a failure to reach or read the upstream server; the tap
	// answered the client with a 502 (Text says why).
	KindUpstreamError = "upstream-error"
	// KindForbidden is a request the tap itself refused (Host/Origin check, an
	// unsupported protocol upgrade); Text says why.
	KindForbidden = "forbidden"
	// KindExit is the end of the server process (stdio): ExitCode, and Signal when a
	// signal ended it.
	KindExit = "exit"
	// KindSignal is a signal the tap forwarded to the server process (Signal).
	KindSignal = "signal"
	// KindDropped says that Count records were dropped at this point because the
	// recorder's buffer was full.
	KindDropped = "dropped"
)

// How a stream ended (the Text of a stream-close record).
const (
	EndEOF          = "eof"           // the server ended the response
	EndClientClosed = "client-closed" // the client went away
	EndUpstreamLost = "upstream-lost" // the connection to the server broke
	EndShutdown     = "shutdown"      // the tap was stopped
)

// Header is the first line of a capture.
type Header struct {
	// Format is always Format for this version.
	Format string `json:"format"`
	// Time is when the capture began.
	Time time.Time `json:"t"`
	// Tool names the program that wrote the capture ("mcpkit tap").
	Tool string `json:"tool,omitempty"`
	// Mode is "stdio" or "http".
	Mode string `json:"mode,omitempty"`
	// Command is the server command of a stdio tap, secrets redacted.
	Command []string `json:"command,omitempty"`
	// Listen and Upstream are the addresses of an HTTP tap (Upstream redacted).
	Listen   string `json:"listen,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	// Redacted reports whether secrets were redacted (the default).
	Redacted bool `json:"redacted"`
}

// Record is one line of a capture after the header: a message or an event.
//
// A Record handed to Recorder.Record belongs to the recorder from then on, and the
// records a subscriber or a Reader returns must not be modified: they are shared.
type Record struct {
	// Seq numbers the records of a capture from 1, without gaps.
	Seq uint64 `json:"seq"`
	// Time is when the tap saw the message or event.
	Time time.Time `json:"t"`
	// Kind is empty for a message, else one of the Kind constants.
	Kind string `json:"kind,omitempty"`
	// Dir is ClientToServer or ServerToClient (messages, and events that belong to
	// one direction).
	Dir string `json:"dir,omitempty"`
	// Transport is one of the Transport constants.
	Transport string `json:"transport,omitempty"`
	// Session is the Mcp-Session-Id, the HTTP+SSE session id, or an id the tap gives
	// a connection without one ("conn-3"); "stdio" for the stdio tap.
	Session string `json:"session,omitempty"`
	// Msg is the JSON-RPC message (an object, or a batch array) exactly as sent:
	// the bytes on the wire without the whitespace around them. It is absent when
	// the message is not valid JSON (Invalid, with the bytes in Raw or Raw64).
	// A message sent with line breaks between its tokens (pretty-printed JSON) is
	// stored compacted here, since a capture line holds no line break, and exactly
	// as sent in Raw.
	Msg json.RawMessage `json:"msg,omitempty"`
	// Raw is the message exactly as sent, as text, when Msg cannot hold it (not
	// valid JSON, or compacted); Raw64 instead when those bytes are not UTF-8.
	Raw   string `json:"raw,omitempty"`
	Raw64 []byte `json:"raw64,omitempty"`
	// Invalid marks a message that is not valid JSON.
	Invalid bool `json:"invalid,omitempty"`
	// Size is the message's length in bytes as sent. For an HTTP exchange without
	// a message (KindHTTP) it is the body's length.
	Size int64 `json:"size,omitempty"`
	// Truncated marks a message larger than the recorder keeps: only its first
	// bytes are in Raw or Raw64 (the relay carried all of it).
	Truncated bool `json:"truncated,omitempty"`
	// HTTP describes the HTTP exchange of a message or event (HTTP taps only).
	HTTP *HTTPInfo `json:"http,omitempty"`
	// Text is a stderr line, an error, an endpoint URL, or how a stream ended.
	Text string `json:"text,omitempty"`
	// Endpoint is the endpoint URL the tap relayed in place of Text (KindEndpoint).
	Endpoint string `json:"endpoint,omitempty"`
	// LastEventID is the Last-Event-ID of a reconnect, or the last event id of a
	// stream that closed.
	LastEventID string `json:"lastEventId,omitempty"`
	// Count is the number of dropped records (KindDropped) or of events a stream
	// carried (KindStreamClose).
	Count int64 `json:"count,omitempty"`
	// ExitCode and Signal describe the end of a server process (KindExit), or the
	// signal forwarded to it (KindSignal).
	ExitCode *int   `json:"exitCode,omitempty"`
	Signal   string `json:"signal,omitempty"`
}

// HTTPInfo describes the HTTP exchange a record belongs to.
type HTTPInfo struct {
	// Exchange numbers the tap's HTTP exchanges (request and response) from 1:
	// every record of one exchange has the same number.
	Exchange uint64 `json:"exchange"`
	// Method and Path are the request's; Path includes the query, redacted.
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is the response's status code (absent on a request's records).
	Status int `json:"status,omitempty"`
	// ContentType is the Content-Type of the body the record came from.
	ContentType string `json:"contentType,omitempty"`
	// Headers are the request's headers on a client-to-server record, the
	// response's on the first server-to-client record of a response, with secrets
	// redacted unless the tap was told otherwise. A producer may give them with
	// SetHeaderLines instead: Headers is then built by the recorder, before a
	// subscriber gets the record. Like the rest of a record, the map is shared
	// (by every record that holds this HTTPInfo) and must not be modified.
	Headers map[string][]string `json:"headers,omitempty"`
	// EventID and Event are the id and the event type (when not "message") of the
	// SSE event a message came in.
	EventID string `json:"eventId,omitempty"`
	Event   string `json:"event,omitempty"`

	// lines holds the headers SetHeaderLines gave, while Headers is nil.
	lines string
}

// SetHeaderLines gives h its headers in a compact form that costs a producer on
// a hot path (the HTTP tap's relays) one string rather than a map: one line per
// header field, in the order the fields were sent, each the field's canonical
// name (net/textproto.CanonicalMIMEHeaderKey), a colon and the value, ended by
// "\n"; no name holds a colon, no value a line feed. It replaces Headers, which
// stays nil until h reaches a Recorder: the recorder writes the fields to the
// capture exactly as it writes Headers (AppendRecord does the same), and sets
// Headers from them before a subscriber gets a record holding h, so that the
// record's consumers (subscribers, and a Reader of the capture) find Headers as
// usual. Once h is handed to a Recorder, only the recorder sets Headers.
func (h *HTTPInfo) SetHeaderLines(lines string) {
	h.Headers, h.lines = nil, lines
}

// buildHeaders sets Headers from the lines SetHeaderLines gave, if it has not been.
func (h *HTTPInfo) buildHeaders() {
	if h.Headers != nil || h.lines == "" {
		return
	}
	n := strings.Count(h.lines, "\n")
	values := make([]string, n) // one array: each name's values are a piece of it
	m := make(map[string][]string, n)
	i := 0
	for name, value := range headerLines(h.lines) {
		if prev, ok := m[name]; ok {
			m[name] = append(prev[:len(prev):len(prev)], value)
			continue
		}
		values[i] = value
		m[name] = values[i : i+1 : i+1]
		i++
	}
	h.Headers = m
}

// headerLines iterates over the fields of SetHeaderLines's form: name and value.
func headerLines(lines string) func(func(string, string) bool) {
	return func(yield func(string, string) bool) {
		for lines != "" {
			line, rest, _ := strings.Cut(lines, "\n")
			lines = rest
			name, value, _ := strings.Cut(line, ":")
			if !yield(name, value) {
				return
			}
		}
	}
}

// IsMessage reports whether r records a JSON-RPC message (valid or not).
func (r *Record) IsMessage() bool { return r.Kind == "" }
