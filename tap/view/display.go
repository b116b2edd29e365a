package view

// The display forms of the timeline: what both views render. They are plain data
// with JSON names, so that the web page receives exactly what the terminal UI
// draws.

// Row is one line of the timeline: a request with its response, a notification
// outside any request, or a transport event.
type Row struct {
	// ID is the entry's stable id ("12", or "12.3" for a batch's fourth message):
	// a view keeps its selection by it while the timeline grows.
	ID string `json:"id"`
	// Seq is the record that began the entry, Part its place in a batch: the
	// timeline's order.
	Seq  uint64 `json:"seq"`
	Part int    `json:"part,omitempty"`
	// Time is when it began, as hh:mm:ss.mmm (UTC).
	Time string `json:"time"`
	// Dir is "c2s" or "s2c" ("" for events); DirLabel the arrow a person reads.
	Dir      string `json:"dir"`
	DirLabel string `json:"dirLabel"`
	// Method is what the row names: the JSON-RPC method and, for a call, what it
	// called ("tools/call echo", "resources/read demo://a"), or what the event
	// was (its first line).
	Method string `json:"method"`
	// Probe names the probe a request is ("era probe", "sessionless probe"): its
	// refusal is no failure.
	Probe string `json:"probe,omitempty"`
	// Session is the session the entry belongs to.
	Session string `json:"session"`
	// Latency is the time to the response, formatted ("" while pending).
	Latency string `json:"latency"`
	// Status is "ok", "isError", "-32602 Invalid params…", "HTTP 404",
	// "unanswered", …: short enough for a column; StatusText is all of it.
	Status     string `json:"status"`
	StatusText string `json:"statusText,omitempty"`
	// StartMs is when the entry began and LatencyMs how long its request took
	// (-1 while unanswered, and for entries that are not requests), in
	// milliseconds: a view draws the timing waterfall from them.
	StartMs   float64 `json:"startMs"`
	LatencyMs float64 `json:"latencyMs"`
	// Kind is the entry's kind: "request", "notification", "response" (one that
	// matched no request), "invalid" or "event".
	Kind string `json:"kind"`
	// Error marks a JSON-RPC error, an isError result, a refusal, invalid JSON or a
	// failure event: the views highlight it.
	Error bool `json:"error"`
	// S2CRequest marks a request the server sent to the client.
	S2CRequest bool `json:"s2cRequest"`
	// Violations counts the schema violations of the entry's messages.
	Violations int `json:"violations"`
	// Children are the notifications folded under a request (progress, logging on
	// its stream).
	Children []Child `json:"children,omitempty"`
	// Match reports whether the row matches the view's filter (a row that stopped
	// matching is sent once with Match false, so a view removes it).
	Match bool `json:"match"`
}

// Child is a notification folded under its request.
type Child struct {
	Seq      uint64 `json:"seq"`
	Time     string `json:"time"`
	DirLabel string `json:"dirLabel"`
	Method   string `json:"method"`
	Status   string `json:"status,omitempty"`
	Error    bool   `json:"error,omitempty"`
}

// Detail is what the detail pane shows for one entry.
type Detail struct {
	// Title names the entry ("tools/call id 3").
	Title string `json:"title"`
	// Facts are short lines: direction, session, latency, HTTP exchange, status.
	Facts []string `json:"facts,omitempty"`
	// Sections are its messages and events, in order.
	Sections []Section `json:"sections"`
}

// Section is one message or event of a detail.
type Section struct {
	// Label says what it is: "request (c2s, seq 5, 12:00:00.001)".
	Label string `json:"label"`
	// JSON is the message, pretty-printed.
	JSON string `json:"json,omitempty"`
	// Text is an event's text, or a message that is not JSON.
	Text string `json:"text,omitempty"`
	// Violations are the schema violations of this message.
	Violations []string `json:"violations,omitempty"`
}
