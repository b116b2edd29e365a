package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// Markdown writes the capture (its header h and records recs) to w as a readable
// transcript: a summary, then one section per session in the order sessions
// began, holding the session's requests (each with its response, latency and the
// notifications that belong to it: progress, and what the server sent in the
// request's reply stream), the other messages, and the events worth a reader's
// attention (stderr lines, HTTP and upstream errors, refusals, resumptions, the
// server's exit). Errors and isError results are marked **ERROR**.
func Markdown(w io.Writer, h capture.Header, recs []*capture.Record) error {
	bw := bufio.NewWriter(w)
	writeMarkdown(bw, h, recs)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: writing Markdown: %w", err)
	}
	return nil
}

type sessionItem struct {
	session string
	it      item
}

// item is one entry of a session's transcript, placed at its first record.
type item struct {
	seq  uint64
	pair *timeline.Entry
	msg  *timeline.Entry
	ev   *capture.Record
}

func writeMarkdown(w *bufio.Writer, h capture.Header, recs []*capture.Record) {
	fmt.Fprintf(w, "# MCP capture")
	if !h.Time.IsZero() {
		fmt.Fprintf(w, " of %s", h.Time.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(w, "\n\n")
	switch h.Mode {
	case "stdio":
		fmt.Fprintf(w, "- stdio: `%s`\n", strings.Join(h.Command, " "))
	case "http":
		fmt.Fprintf(w, "- HTTP: `%s` relayed to `%s`\n", h.Listen, h.Upstream)
	}
	if h.Tool != "" {
		fmt.Fprintf(w, "- recorded by %s (%s)\n", h.Tool, h.Format)
	}
	fmt.Fprintf(w, "- secrets redacted: %v\n", h.Redacted)
	sum := capture.Summarize(recs)
	first, _, _ := strings.Cut(sum.String(), "\n")
	fmt.Fprintf(w, "- %s\n", first)

	pairs, loose := pairRequests(recs)
	// A connection's first request (initialize) is recorded under the connection
	// until the server names the session in its reply: show it in that session.
	alias := map[string]string{}
	for _, x := range pairs {
		if x.Response != nil && x.Response.Record.Session != x.Record.Session && strings.HasPrefix(x.Record.Session, "conn-") {
			alias[x.Record.Session] = x.Response.Record.Session
		}
	}
	sessions := map[string][]item{}
	var order []string
	add := func(session string, it item) {
		if a, ok := alias[session]; ok {
			session = a
		}
		if _, ok := sessions[session]; !ok {
			order = append(order, session)
		}
		sessions[session] = append(sessions[session], it)
	}
	transports := map[string]string{}
	// Records arrive in seq order; merge pairs, loose messages and events by seq.
	var items []sessionItem
	for _, x := range pairs {
		items = append(items, sessionItem{x.Record.Session, item{seq: x.Record.Seq, pair: x}})
	}
	for _, m := range loose {
		items = append(items, sessionItem{m.Record.Session, item{seq: m.Record.Seq, msg: m}})
	}
	for _, r := range recs {
		if transports[r.Session] == "" {
			transports[r.Session] = r.Transport
		}
		if worthShowing(r) {
			items = append(items, sessionItem{r.Session, item{seq: r.Seq, ev: r}})
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].it.seq < items[j].it.seq })
	for _, it := range items {
		add(it.session, it.it)
	}
	for _, s := range order {
		name := s
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(w, "\n## Session `%s`", name)
		if tr := transports[s]; tr != "" {
			fmt.Fprintf(w, " (%s)", tr)
		}
		fmt.Fprintf(w, "\n")
		n := 0
		for _, it := range sessions[s] {
			switch {
			case it.pair != nil:
				n++
				writePair(w, n, it.pair)
			case it.msg != nil:
				writeLoose(w, it.msg)
			default:
				writeEvent(w, it.ev)
			}
		}
	}
}

// worthShowing reports whether an event record goes in the transcript (the
// routine ones, stream opened and closed normally, plain 202s, do not).
func worthShowing(r *capture.Record) bool {
	switch r.Kind {
	case "":
		return r.Invalid || (len(r.Msg) == 0 && (r.Raw != "" || len(r.Raw64) > 0))
	case capture.KindStreamOpen, capture.KindHTTP:
		return false
	case capture.KindStreamClose:
		return r.Text != capture.EndEOF && r.Text != capture.EndClientClosed && r.Text != capture.EndShutdown
	}
	return true
}

func arrow(dir string) string {
	if dir == capture.ServerToClient {
		return "←"
	}
	return "→"
}

func writePair(w *bufio.Writer, n int, x *timeline.Entry) {
	who := "client → server"
	if x.Dir == capture.ServerToClient {
		who = "server → client"
	}
	fmt.Fprintf(w, "\n### %d. `%s` (id %s, %s)\n\n", n, x.Method, x.Message.ID, who)
	writeJSON(w, x.Message.Raw)
	for _, m := range x.Notifications {
		fmt.Fprintf(w, "\n- %s `%s` at +%s\n\n", arrow(m.Record.Dir), m.Method, fmtDur(m.Time().Sub(x.Time)))
		writeJSON(w, m.Raw)
	}
	if x.Refusal != nil {
		fmt.Fprintf(w, "\n**REFUSED** after %s: %s\n", fmtDur(x.Latency), strings.TrimSpace(x.Refusal.Kind+" "+x.Refusal.Text))
		return
	}
	if x.Response == nil {
		fmt.Fprintf(w, "\n**NO RESPONSE** was captured.\n")
		return
	}
	mark := ""
	if x.Response.Failed() {
		mark = " **ERROR**"
		if x.Error {
			mark += fmt.Sprintf(" %d: %s", x.ErrorCode, x.ErrorMessage)
		} else {
			mark += " (isError)"
		}
	}
	fmt.Fprintf(w, "\nResponse after %s%s:\n\n", fmtDur(x.Latency), mark)
	writeJSON(w, x.Response.Raw)
}

func writeLoose(w *bufio.Writer, m *timeline.Entry) {
	what := "notification"
	if m.Kind == timeline.KindResponse {
		what = "response to no captured request"
	}
	fmt.Fprintf(w, "\n- %s `%s` %s (record %d)\n\n", arrow(m.Dir), m.Method, what, m.Record.Seq)
	writeJSON(w, m.Message.Raw)
}

func writeEvent(w *bufio.Writer, r *capture.Record) {
	switch r.Kind {
	case "":
		fmt.Fprintf(w, "\n- %s **NOT VALID JSON** (record %d, %d bytes): `%s`\n", arrow(r.Dir), r.Seq, r.Size, strings.ReplaceAll(body(r), "`", "'"))
	case capture.KindStderr:
		fmt.Fprintf(w, "\n- stderr: `%s`\n", strings.ReplaceAll(r.Text, "`", "'"))
	case capture.KindHTTPError, capture.KindUpstreamError, capture.KindForbidden, capture.KindDropped:
		fmt.Fprintf(w, "\n- **%s** (record %d): %s", strings.ToUpper(r.Kind), r.Seq, r.Text)
		if r.Count > 0 {
			fmt.Fprintf(w, "%d records", r.Count)
		}
		fmt.Fprintf(w, "\n")
	case capture.KindExit:
		code := 0
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		fmt.Fprintf(w, "\n- the server exited with status %d %s\n", code, r.Signal)
	default:
		fmt.Fprintf(w, "\n- %s (record %d)\n", event(r), r.Seq)
	}
}

// writeJSON writes a message as an indented JSON code block.
func writeJSON(w *bufio.Writer, raw json.RawMessage) {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		b.Reset()
		b.Write(raw)
	}
	fmt.Fprintf(w, "```json\n%s\n```\n", b.Bytes())
}

// fmtDur shows a duration in milliseconds with a tenth.
func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
