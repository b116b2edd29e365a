package timeline

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// WriteText writes the report for a person: counts, latency by method, time to
// first progress, session lanes, then the failures by name. Every string a peer
// chose is escaped for a terminal (capture.TermSafe).
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	s := rep.Summary
	fmt.Fprintf(&b, "%d records, %d messages (%d client→server, %d server→client); %d requests, %d refused, %d unanswered",
		rep.Stats.Records, s.Messages, s.C2S, s.S2C, s.Requests, s.Refused, len(s.Unanswered))
	if rep.Probes > 0 {
		fmt.Fprintf(&b, " (%d of them client probes: not failures)", rep.Probes)
	}
	if rep.Stats.Evicted > 0 || rep.Stats.Dropped > 0 {
		fmt.Fprintf(&b, "; %d entries evicted, %d records dropped", rep.Stats.Evicted, rep.Stats.Dropped)
	}
	b.WriteString("\n")
	if len(rep.Methods) > 0 {
		b.WriteString("\nLatency by method (ms)\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "dir\tmethod\tcount\terrors\trefused\tunanswered\tp50\tp90\tp99\tmax\t")
		for _, m := range rep.Methods {
			p := m.Latency
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", m.Dir, capture.TermSafe(m.Method), m.Count, m.Errors, m.Refused, m.Unanswered,
				msText(p.P50, p.Count), msText(p.P90, p.Count), msText(p.P99, p.Count), msText(p.Max, p.Count))
		}
		_ = tw.Flush()
	}
	if p := rep.Progress; p.Count > 0 {
		fmt.Fprintf(&b, "\nTime to first progress (ms): %d requests, p50 %s, p90 %s, p99 %s, max %s\n",
			p.Count, msText(p.P50, 1), msText(p.P90, 1), msText(p.P99, 1), msText(p.Max, 1))
		for i, d := range rep.FirstProgress {
			if i == 10 {
				fmt.Fprintf(&b, "  … and %d more\n", len(rep.FirstProgress)-10)
				break
			}
			fmt.Fprintf(&b, "  #%s %s (session %s): %s\n", d.Entry, capture.TermSafe(d.Method), capture.TermSafe(d.Session), msText(d.Delay, 1))
		}
	}
	for _, l := range rep.Lanes {
		name := capture.TermSafe(l.Session)
		if name == "" {
			name = "(no session: stateless or sessionless)"
		}
		fmt.Fprintf(&b, "\nSession %s (%s): %d exchanges, %d streams, %d resumptions\n", name, l.Transport, len(l.Exchanges), l.Streams, l.Resumptions)
		for _, x := range l.Exchanges {
			fmt.Fprintf(&b, "  %s\n", x.line())
		}
	}
	if len(rep.Failures) == 0 {
		b.WriteString("\nNo failures found.\n")
	} else {
		fmt.Fprintf(&b, "\nFailures (%d)\n", len(rep.Failures))
		for _, g := range rep.Groups() {
			fmt.Fprintf(&b, "  %s (%d)\n", capture.TermSafe(g.Name), g.Count)
			for _, f := range g.Failures {
				b.WriteString("    ")
				if f.Count > 1 {
					fmt.Fprintf(&b, "%d× ", f.Count)
				}
				b.WriteString(capture.TermSafe(f.Detail))
				if f.Session != "" {
					fmt.Fprintf(&b, " [session %s]", capture.TermSafe(f.Session))
				}
				if len(f.Records) > 0 {
					fmt.Fprintf(&b, " (records %s)", strings.Trim(fmt.Sprint(f.Records), "[]"))
				}
				b.WriteString("\n")
			}
		}
	}
	if rep.Probes > 0 {
		fmt.Fprintf(&b, "\n%d client probes refused by the server (server/discover, a ping without a session): answers, not failures\n", rep.Probes)
	}
	if rep.Omitted > 0 {
		fmt.Fprintf(&b, "\n%d more failures, progress delays, lanes or exchanges found and not listed (a capture read as a stream lists 10,000 of each)\n", rep.Omitted)
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("timeline: write report: %w", err)
	}
	return nil
}

// line describes an exchange in one line.
func (x *LaneExchange) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", x.Exchange, capture.TermSafe(x.Method), capture.TermSafe(x.Path))
	if x.Status != 0 {
		fmt.Fprintf(&b, " → %d", x.Status)
	}
	switch {
	case x.Standalone:
		b.WriteString(" GET stream")
	case x.Stream:
		b.WriteString(" SSE")
	}
	if x.Resumed != "" {
		fmt.Fprintf(&b, " resumed from %s", capture.TermSafe(x.Resumed))
	}
	if x.Requests > 0 {
		fmt.Fprintf(&b, ", %d requests", x.Requests)
	}
	if x.Messages > 0 {
		fmt.Fprintf(&b, ", %d messages", x.Messages)
	}
	if x.Stream {
		end := x.End
		if end == "" {
			end = "still open"
		}
		fmt.Fprintf(&b, ", %s after %s, %d events", end, x.Duration.Round(time.Millisecond), x.Events)
		if x.LastEventID != "" {
			fmt.Fprintf(&b, " (last id %s)", capture.TermSafe(x.LastEventID))
		}
	}
	if x.Error != "" {
		fmt.Fprintf(&b, ", error: %s", capture.TermSafe(firstLine(x.Error)))
	}
	fmt.Fprintf(&b, " [records %d–%d]", x.First, x.Last)
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func msText(d time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000)
}
