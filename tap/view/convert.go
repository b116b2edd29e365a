package view

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// maxChildren bounds the notifications a row lists (the detail has them all).
const maxChildren = 50

// ParseFilter reads a timeline.Filter from query parameters: method, dir (c2s or
// s2c), session, errors=1, minLatency (milliseconds) and text.
func ParseFilter(q url.Values) (timeline.Filter, error) {
	f := timeline.Filter{Method: q.Get("method"), Dir: q.Get("dir"), Session: q.Get("session"),
		Text: q.Get("text"), ErrorsOnly: q.Get("errors") == "1" || q.Get("errors") == "true"}
	if s := q.Get("minLatency"); s != "" {
		ms, err := strconv.ParseFloat(s, 64)
		if err != nil || ms < 0 {
			return f, fmt.Errorf("minLatency %q: not a number of milliseconds", s)
		}
		f.MinLatency = time.Duration(ms * float64(time.Millisecond))
	}
	if err := f.Validate(); err != nil {
		return f, fmt.Errorf("filter: %w", err)
	}
	return f, nil
}

// ClockTime formats t as the views show times: hh:mm:ss.mmm in UTC.
func ClockTime(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// Millis formats a duration as milliseconds with a precision that suits it.
func Millis(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
}

// DirLabel is the arrow a person reads for a direction.
func DirLabel(dir string) string {
	switch dir {
	case capture.ClientToServer:
		return "C→S"
	case capture.ServerToClient:
		return "S→C"
	}
	return ""
}

// maxStatus is the width of a row's status; StatusText has all of it.
const maxStatus = 40

// RowOf returns the timeline row of e; match is whether the view's filter selects it.
func RowOf(e *timeline.Entry, match bool) Row {
	r := Row{ID: e.ID.String(), Seq: e.ID.Seq, Part: e.ID.Part, Time: ClockTime(e.Time), Dir: e.Dir,
		DirLabel: DirLabel(e.Dir), Method: e.Label(), Probe: e.Probe, Session: e.Session, Kind: e.Kind, Error: e.Failed(),
		S2CRequest: e.ServerRequest, Violations: len(e.Violations), Match: match,
		StartMs: float64(e.Time.UnixMicro()) / 1000, LatencyMs: -1}
	if e.Latency >= 0 {
		r.Latency = Millis(e.Latency)
		r.LatencyMs = float64(e.Latency.Microseconds()) / 1000
	}
	r.StatusText = Status(e)
	r.Status = cut(r.StatusText, maxStatus)
	if r.StatusText == r.Status {
		r.StatusText = ""
	}
	if r.Method == "" {
		r.Method = describeEntry(e)
	}
	for i, n := range e.Notifications {
		if i == maxChildren {
			r.Children = append(r.Children, Child{Method: fmt.Sprintf("… %d more", len(e.Notifications)-maxChildren)})
			break
		}
		r.Children = append(r.Children, Child{Seq: n.Record.Seq, Time: ClockTime(n.Time()),
			DirLabel: DirLabel(n.Record.Dir), Method: n.Method + progressText(n), Error: n.Failed()})
	}
	return r
}

// Status is the state of an entry that the views show: "ok", "isError", the
// JSON-RPC error's code and message, the HTTP status that refused a request,
// "unanswered"; a refused probe says so.
func Status(e *timeline.Entry) string {
	var s string
	switch e.Kind {
	case timeline.KindRequest:
		switch e.State {
		case timeline.StatePending:
			s = "unanswered"
		case timeline.StateRefused:
			s = refusalText(e.Refusal)
			if e.Error {
				s += " · " + errorText(e.ErrorCode, e.ErrorMessage)
			}
		default:
			switch {
			case e.Error:
				s = errorText(e.ErrorCode, e.ErrorMessage)
			case e.IsError:
				s = "isError"
			default:
				s = "ok"
			}
		}
		if e.ProbeRefused() {
			s = "probe: " + s
		}
	case timeline.KindResponse:
		s = "unmatched"
		if e.Error {
			s = errorText(e.ErrorCode, e.ErrorMessage)
		}
	case timeline.KindInvalid:
		s = "invalid"
	case timeline.KindEvent:
		if e.Failed() {
			s = "error"
		}
	}
	if len(e.Violations) > 0 {
		if s != "" {
			s += ", "
		}
		s += "schema"
	}
	return s
}

// refusalText names what refused a request: its HTTP status, or the tap's 502.
func refusalText(r *capture.Record) string {
	switch {
	case r != nil && r.HTTP != nil && r.HTTP.Status != 0:
		return "HTTP " + strconv.Itoa(r.HTTP.Status)
	case r != nil && r.Kind == capture.KindUpstreamError:
		return "HTTP 502 (tap: upstream unreachable)"
	}
	return "refused"
}

func errorText(code int64, message string) string {
	return strconv.FormatInt(code, 10) + " " + oneLine(message, 200)
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// describeEntry names an entry without a method: an event, an invalid message or
// a lone response.
func describeEntry(e *timeline.Entry) string {
	switch e.Kind {
	case timeline.KindEvent:
		s := "[" + e.Event + "]"
		if r := e.Record; r != nil {
			if r.HTTP != nil && r.HTTP.Method != "" {
				s += " " + r.HTTP.Method
				if r.HTTP.Status != 0 {
					s += " → " + strconv.Itoa(r.HTTP.Status)
				}
			}
			switch {
			case r.Text != "":
				first, _, more := strings.Cut(StderrLines(r.Text), "\n")
				s += " " + oneLine(first, 80)
				if more {
					s += " …"
				}
			case r.Kind == capture.KindExit && r.ExitCode != nil:
				s += " status " + strconv.Itoa(*r.ExitCode)
			case r.Count != 0:
				s += " " + strconv.FormatInt(r.Count, 10)
			}
		}
		return s
	case timeline.KindInvalid:
		return "[invalid JSON]"
	case timeline.KindResponse:
		if e.Message != nil {
			return "[response id " + e.Message.ID + "]"
		}
	}
	return "[" + e.Kind + "]"
}

// StderrLines turns a line a server logged with its line breaks escaped (a
// stack written as one log line, with literal \n and \t) back into lines.
func StderrLines(s string) string {
	if !strings.Contains(s, `\n`) {
		return s
	}
	return strings.NewReplacer(`\r\n`, "\n", `\n`, "\n", `\t`, "\t").Replace(s)
}

// progressText is " 50/100 message" for a progress notification.
func progressText(m *timeline.Message) string {
	if m.Method != "notifications/progress" {
		return ""
	}
	p := string(m.Params)
	var b strings.Builder
	for _, k := range []string{`"progress":`, `"total":`} {
		if i := strings.Index(p, k); i >= 0 {
			v := p[i+len(k):]
			if j := strings.IndexAny(v, ",}"); j >= 0 {
				v = v[:j]
			}
			if b.Len() == 0 {
				b.WriteString(" " + strings.TrimSpace(v))
			} else {
				b.WriteString("/" + strings.TrimSpace(v))
			}
		}
	}
	return b.String()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// DetailOf returns the detail of e: facts, then each message as pretty JSON and
// each event that belongs to it.
func DetailOf(e *timeline.Entry) Detail {
	d := Detail{Title: RowOf(e, true).Method}
	if e.Message != nil && e.Message.ID != "" {
		d.Title += " (id " + e.Message.ID + ")"
	}
	fact := func(format string, a ...any) { d.Facts = append(d.Facts, fmt.Sprintf(format, a...)) }
	if e.Dir != "" {
		who := "client → server"
		if e.Dir == capture.ServerToClient {
			who = "server → client"
		}
		if e.ServerRequest {
			who += " (a request of the server)"
		}
		fact("direction: %s", who)
	}
	if e.Session != "" {
		fact("session: %s (%s)", e.Session, e.Transport)
	}
	if e.Exchange != 0 {
		fact("HTTP exchange %d", e.Exchange)
	}
	if e.Probe != "" {
		fact("%s: a client learning what the server speaks; a refusal is its answer, not a failure", e.Probe)
	}
	if st := Status(e); st != "" {
		fact("status: %s", st)
	}
	if e.Latency >= 0 {
		fact("latency: %s", Millis(e.Latency))
	}
	if e.FirstProgress >= 0 {
		fact("first progress after %s", Millis(e.FirstProgress))
	}
	if e.Error {
		fact("error %d: %s", e.ErrorCode, e.ErrorMessage)
	}
	add := func(what string, m *timeline.Message) {
		d.Sections = append(d.Sections, Section{
			Label: fmt.Sprintf("%s (%s, record %d, %s)", what, DirLabel(m.Record.Dir), m.Record.Seq, ClockTime(m.Time())),
			JSON:  timeline.Pretty(m.Raw)})
	}
	if e.Message != nil {
		add(e.Kind, e.Message)
	}
	for _, n := range e.Notifications {
		add("notification", n)
	}
	if e.Response != nil {
		add("response", e.Response)
	}
	recs := append([]*capture.Record{e.Refusal, eventRecord(e)}, e.Events...)
	for i, r := range recs {
		if r == nil || slices.Contains(recs[:i], r) {
			continue
		}
		sec := Section{Label: fmt.Sprintf("%s (record %d, %s)", r.Kind, r.Seq, ClockTime(r.Time)), Text: StderrLines(r.Text)}
		if r.Kind == "" { // an invalid message
			sec.Label = fmt.Sprintf("invalid message (%s, record %d, %s)", DirLabel(r.Dir), r.Seq, ClockTime(r.Time))
			sec.Text = r.Raw
			if sec.Text == "" && r.Raw64 != nil {
				sec.Text = fmt.Sprintf("%d bytes that are not UTF-8", len(r.Raw64))
			}
		}
		if r.HTTP != nil {
			sec.JSON = timeline.Pretty(mustJSON(r.HTTP))
		}
		d.Sections = append(d.Sections, sec)
	}
	if len(e.Violations) > 0 {
		d.Sections = append(d.Sections, Section{Label: "schema violations", Violations: e.Violations})
	}
	return d
}

// eventRecord is the record of an event or invalid entry.
func eventRecord(e *timeline.Entry) *capture.Record {
	if e.Kind == timeline.KindEvent || e.Kind == timeline.KindInvalid {
		return e.Record
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(strconv.Quote(err.Error()))
	}
	return b
}

// ParseEntryID reads an entry id as EntryID.String writes it: "12" or "12.3".
func ParseEntryID(s string) (timeline.EntryID, error) {
	seq, part, hasPart := strings.Cut(s, ".")
	var id timeline.EntryID
	var err error
	if id.Seq, err = strconv.ParseUint(seq, 10, 64); err != nil {
		return id, fmt.Errorf("entry id %q: %w", s, err)
	}
	if hasPart {
		if id.Part, err = strconv.Atoi(part); err != nil || id.Part < 0 {
			return id, fmt.Errorf("entry id %q: bad part", s)
		}
	}
	return id, nil
}
