package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// Filter selects entries: the filter of the terminal UI, the web page and the
// CLI. The zero Filter selects everything; each set member narrows it.
type Filter struct {
	// Method selects entries whose method contains it, or matches it when it is a
	// glob (path.Match syntax: "tools/*", "notifications/?essage"); a call is
	// matched by its label too ("echo", "tools/call e*"). Events have no method:
	// a Method filter hides them.
	Method string `json:"method,omitempty"`
	// Dir selects one direction: capture.ClientToServer or capture.ServerToClient.
	Dir string `json:"dir,omitempty"`
	// Session selects the entries of sessions whose id contains it.
	Session string `json:"session,omitempty"`
	// ErrorsOnly selects the entries that Failed.
	ErrorsOnly bool `json:"errorsOnly,omitempty"`
	// MinLatency selects requests slower than it: answered or refused after more
	// than MinLatency, or still pending. Zero selects everything.
	MinLatency time.Duration `json:"minLatency,omitempty"`
	// Text selects entries that contain it, ignoring ASCII case, in their method,
	// session, messages (request, response, notifications) or event text.
	Text string `json:"text,omitempty"`
}

// IsZero reports whether f selects everything.
func (f *Filter) IsZero() bool { return *f == Filter{} }

// Match reports whether f selects e.
func (f *Filter) Match(e *Entry) bool {
	if f.Dir != "" && e.Dir != f.Dir {
		return false
	}
	if f.Session != "" && !strings.Contains(e.Session, f.Session) {
		return false
	}
	if f.Method != "" && !matchMethod(f.Method, e.Method) && (e.Target == "" || !matchMethod(f.Method, e.Label())) {
		return false
	}
	if f.ErrorsOnly && !e.Failed() {
		return false
	}
	if f.MinLatency > 0 && (e.Kind != KindRequest || (e.State != StatePending && e.Latency <= f.MinLatency)) {
		return false
	}
	if f.Text != "" && !e.contains(f.Text) {
		return false
	}
	return true
}

// Validate reports a filter that cannot work: a malformed glob, an unknown
// direction, a negative latency.
func (f *Filter) Validate() error {
	if f.Dir != "" && f.Dir != capture.ClientToServer && f.Dir != capture.ServerToClient {
		return fmt.Errorf("timeline: direction %q: want %q or %q", f.Dir, capture.ClientToServer, capture.ServerToClient)
	}
	if isGlob(f.Method) {
		if _, err := path.Match(f.Method, ""); err != nil {
			return fmt.Errorf("timeline: method pattern %q: %w", f.Method, err)
		}
	}
	if f.MinLatency < 0 {
		return fmt.Errorf("timeline: negative latency %s", f.MinLatency)
	}
	return nil
}

// Apply returns the entries of s that f selects, oldest first.
func (s *Snapshot) Apply(f Filter) []*Entry {
	if f.IsZero() {
		return s.Entries
	}
	var out []*Entry
	for _, e := range s.Entries {
		if f.Match(e) {
			out = append(out, e)
		}
	}
	return out
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

func matchMethod(pattern, method string) bool {
	if method == "" {
		return false
	}
	if isGlob(pattern) {
		ok, _ := path.Match(pattern, method)
		return ok
	}
	return strings.Contains(method, pattern)
}

// contains reports whether e holds text, ignoring ASCII case.
func (e *Entry) contains(text string) bool {
	t := []byte(text)
	if containsFold([]byte(e.Method), t) || containsFold([]byte(e.Session), t) {
		return true
	}
	for _, m := range e.messages() {
		if containsFold(m.Raw, t) {
			return true
		}
	}
	r := e.Record
	if r == nil {
		return false
	}
	if e.Message == nil && (containsFold(r.Msg, t) || containsFold([]byte(r.Raw), t)) {
		return true
	}
	return containsFold([]byte(r.Text), t) || (e.Refusal != nil && containsFold([]byte(e.Refusal.Text), t))
}

// messages returns the entry's messages in order: its own, its notifications,
// its response.
func (e *Entry) messages() []*Message {
	var out []*Message
	if e.Message != nil {
		out = append(out, e.Message)
	}
	out = append(out, e.Notifications...)
	if e.Response != nil {
		out = append(out, e.Response)
	}
	return out
}

// containsFold is bytes.Contains ignoring ASCII case, without allocating.
func containsFold(s, sub []byte) bool {
	if len(sub) == 0 {
		return true
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// Pretty returns JSON indented for a detail pane; bytes that are not JSON come
// back as they are.
func Pretty(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// Detail is the text of a detail pane: the entry's messages as pretty JSON, each
// under a line saying what it is and when it came, then the events that belong
// to it.
func (e *Entry) Detail() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%s %s", e.ID, e.Kind)
	if e.Method != "" {
		fmt.Fprintf(&b, " %s", e.Method)
	}
	if e.Event != "" {
		fmt.Fprintf(&b, " %s", e.Event)
	}
	fmt.Fprintf(&b, "  %s  session %s  %s\n", e.Dir, e.Session, e.Time.UTC().Format(time.RFC3339Nano))
	for _, m := range e.messages() {
		what := "request"
		switch {
		case m == e.Response:
			what = fmt.Sprintf("response after %s", e.Latency)
		case m != e.Message:
			what = fmt.Sprintf("%s at +%s", m.Method, m.Time().Sub(e.Time))
		case e.Kind != KindRequest:
			what = e.Kind
		}
		fmt.Fprintf(&b, "\n— %s (%s, record %d)\n%s\n", what, m.Record.Dir, m.Record.Seq, Pretty(m.Raw))
	}
	r := e.Record
	switch {
	case e.Kind == KindInvalid:
		body := r.Raw
		if body == "" {
			body = string(r.Msg)
		}
		fmt.Fprintf(&b, "\n— not a valid JSON-RPC message (%d bytes)\n%s\n", r.Size, body)
	case e.Kind == KindEvent:
		fmt.Fprintf(&b, "\n%s\n", eventLine(r))
	}
	if e.Refusal != nil {
		fmt.Fprintf(&b, "\n— refused after %s: %s\n", e.Latency, eventLine(e.Refusal))
	}
	if e.Kind == KindRequest && e.State == StatePending {
		b.WriteString("\n— no response yet\n")
	}
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "\nschema: %s", v)
	}
	return b.String()
}

// eventLine describes an event record in one line.
func eventLine(r *capture.Record) string {
	s := r.Kind
	if r.HTTP != nil {
		s += fmt.Sprintf(" %s %s", r.HTTP.Method, r.HTTP.Path)
		if r.HTTP.Status != 0 {
			s += fmt.Sprintf(" → %d", r.HTTP.Status)
		}
	}
	if r.Text != "" {
		s += ": " + r.Text
	}
	if r.LastEventID != "" {
		s += " (last event id " + r.LastEventID + ")"
	}
	if r.Count != 0 {
		s += fmt.Sprintf(" (%d)", r.Count)
	}
	return s
}
