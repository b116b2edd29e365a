package view

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// Bounds of a Sequence: a long session is drawn from its start, what is left
// out is counted.
const (
	maxSequenceSteps    = 1000
	maxSequenceSessions = 200
)

// Sequence is one session drawn as people draw the protocol by hand: the client
// and the server as two lanes, and each message, HTTP request, SSE stream and
// resumption as a step between them, time going down.
type Sequence struct {
	// Sessions are the sessions the capture holds, in order of appearance (the
	// newest maxSequenceSessions); Session the one drawn.
	Sessions []string `json:"sessions"`
	Session  string   `json:"session"`
	// Transport is the session's transport.
	Transport string `json:"transport,omitempty"`
	// Steps are its records in order (at most maxSequenceSteps; Omitted counts
	// the rest).
	Steps   []Step `json:"steps"`
	Omitted int    `json:"omitted,omitempty"`
}

// Step is one record of a sequence.
type Step struct {
	Seq  uint64 `json:"seq"`
	Time string `json:"time"`
	// OffsetMs is the time since the session's first step, in milliseconds.
	OffsetMs float64 `json:"offsetMs"`
	// Dir is "c2s" (an arrow to the server), "s2c" (to the client), or "" for a
	// transport step drawn between the lanes.
	Dir string `json:"dir"`
	// Label says what went: a method and what it called, "result", "error -32600
	// …", "POST → SSE stream", "stream closed (eof, 3 events)", "resumed from
	// event 7".
	Label string `json:"label"`
	// HTTP names the exchange that carried it ("POST #3 → 200"); "" on stdio.
	HTTP string `json:"http,omitempty"`
	// Exchange is the HTTP exchange (0 on stdio): a view colours a stream's steps
	// alike.
	Exchange uint64 `json:"exchange,omitempty"`
	// Transport marks a step of the transport rather than a JSON-RPC message.
	Transport bool `json:"transport,omitempty"`
	Error     bool `json:"error,omitempty"`
	// Entry is the timeline entry that holds the record.
	Entry string `json:"entry"`
}

// SequenceOf draws session of snap ("" draws the first session).
func SequenceOf(snap *timeline.Snapshot, session string) Sequence {
	seq := Sequence{Steps: []Step{}}
	seen := map[string]bool{}
	for _, e := range snap.Entries {
		if e.Session != "" && !seen[e.Session] {
			seen[e.Session] = true
			seq.Sessions = append(seq.Sessions, e.Session)
		}
	}
	seq.Sessions = lastN(seq.Sessions, maxSequenceSessions)
	if session == "" && len(seq.Sessions) > 0 {
		session = seq.Sessions[0]
	}
	seq.Session = session
	type held struct {
		r *capture.Record
		e *timeline.Entry
		m *timeline.Message
	}
	var recs []held
	for _, e := range snap.Entries {
		if e.Session != session {
			continue
		}
		if seq.Transport == "" {
			seq.Transport = e.Transport
		}
		recs = append(recs, held{e.Record, e, e.Message})
		for _, n := range e.Notifications {
			recs = append(recs, held{n.Record, e, n})
		}
		if e.Response != nil {
			recs = append(recs, held{e.Response.Record, e, e.Response})
		}
		for _, r := range e.Events {
			recs = append(recs, held{r, e, nil})
		}
		if e.Refusal != nil && !containsRecord(e.Events, e.Refusal) {
			recs = append(recs, held{e.Refusal, e, nil})
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].r.Seq < recs[j].r.Seq })
	if len(recs) > maxSequenceSteps {
		seq.Omitted = len(recs) - maxSequenceSteps
		recs = recs[:maxSequenceSteps]
	}
	for _, h := range recs {
		st := stepOf(h.r, h.e, h.m)
		st.OffsetMs = float64(h.r.Time.Sub(recs[0].r.Time).Microseconds()) / 1000
		seq.Steps = append(seq.Steps, st)
	}
	return seq
}

func containsRecord(list []*capture.Record, r *capture.Record) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

// stepOf is the step of record r of entry e; m is the message of r, nil for a
// transport record.
func stepOf(r *capture.Record, e *timeline.Entry, m *timeline.Message) Step {
	st := Step{Seq: r.Seq, Time: ClockTime(r.Time), Dir: r.Dir, Entry: e.ID.String()}
	if r.HTTP != nil {
		st.Exchange = r.HTTP.Exchange
		st.HTTP = r.HTTP.Method + " #" + strconv.FormatUint(r.HTTP.Exchange, 10)
		if r.HTTP.Status != 0 {
			st.HTTP += " → " + strconv.Itoa(r.HTTP.Status)
		}
	}
	switch {
	case m != nil && m == e.Message && e.Kind == timeline.KindRequest:
		st.Label = e.Label()
		if m.ID != "" {
			st.Label += " (id " + m.ID + ")"
		}
		if e.Probe != "" {
			st.Label += " [" + e.Probe + "]"
		}
	case m != nil && m.Method != "":
		st.Label = m.Method + progressText(m)
		st.Error = m.Failed()
	case m != nil:
		switch {
		case m.Error != nil:
			st.Label = "error " + errorText(m.Error.Code, m.Error.Message)
			st.Error = !e.ProbeRefused()
		case m.IsErrorResult():
			st.Label, st.Error = "result isError", true
		default:
			st.Label = "result"
		}
		st.Label += " (id " + m.ID + ")"
	default:
		st.Transport = true
		st.Label = transportLabel(r)
		st.Error = (r.Kind == capture.KindHTTPError || r.Kind == capture.KindUpstreamError) && !e.ProbeRefused()
		if r.Kind == capture.KindStreamClose && len(r.Text) >= len(capture.EndUpstreamLost) && r.Text[:len(capture.EndUpstreamLost)] == capture.EndUpstreamLost {
			st.Error = true
		}
		if r.Kind == "" { // an invalid message
			st.Transport, st.Label, st.Error = false, "invalid JSON: "+oneLine(r.Raw, 80), true
		}
	}
	return st
}

// transportLabel says what a transport record shows.
func transportLabel(r *capture.Record) string {
	switch r.Kind {
	case capture.KindStreamOpen:
		if r.HTTP != nil && r.HTTP.Method == "GET" {
			return "GET: the server's SSE stream opens"
		}
		return "the answer comes as an SSE stream"
	case capture.KindStreamClose:
		s := fmt.Sprintf("SSE stream closed (%s, %d events)", r.Text, r.Count)
		if r.LastEventID != "" {
			s += ", last event " + r.LastEventID
		}
		return s
	case capture.KindReconnect:
		return "resumed with Last-Event-ID " + r.LastEventID
	case capture.KindHTTPError:
		return "HTTP error: " + oneLine(r.Text, 80)
	case capture.KindUpstreamError:
		return "upstream unreachable: " + oneLine(r.Text, 80)
	case capture.KindStderr:
		first, _, _ := strings.Cut(StderrLines(r.Text), "\n")
		return "stderr: " + oneLine(first, 80)
	case capture.KindHTTP:
		return "HTTP exchange without JSON-RPC"
	}
	return r.Kind + " " + oneLine(r.Text, 80)
}
