package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

var (
	styleHeader   = lipgloss.NewStyle().Bold(true)
	styleMuted    = lipgloss.NewStyle().Faint(true)
	styleError    = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	styleServer   = lipgloss.NewStyle().Foreground(lipgloss.Color("5"))
	styleSelected = lipgloss.NewStyle().Reverse(true)
	styleNotice   = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
)

// View draws the screen.
func (m *Model) View() tea.View {
	var b strings.Builder
	m.header(&b)
	switch m.screen {
	case screenList:
		m.list(&b)
	default:
		m.pageView(&b)
	}
	m.footer(&b)
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.WindowTitle = "mcpkit tap"
	return v
}

// bodyHeight is the number of lines between the header (3) and the footer (1).
func (m *Model) bodyHeight() int { return max(m.height-4, 1) }

func (m *Model) header(b *strings.Builder) {
	st := m.hub.State(m.snap)
	state := "capture file"
	switch {
	case st.Live:
		state = "live"
	case st.Loading:
		state = "loading…"
	case !st.File:
		state = "tap ended"
	}
	line := fmt.Sprintf("mcpkit tap  %s  [%s]  %d of %d entries", st.Source, state, len(m.entries), st.Entries)
	if st.Dropped > 0 {
		line += fmt.Sprintf("  %d records dropped", st.Dropped)
	}
	if st.Evicted > 0 {
		line += fmt.Sprintf("  %d old entries evicted", st.Evicted)
	}
	m.headerLine(b, line)
	b.WriteString(fit("filter: "+describeFilter(m.filter), m.width) + "\n")
	switch m.screen {
	case screenDetail:
		b.WriteString(styleMuted.Render("detail") + "\n")
	case screenAnalysis:
		b.WriteString(styleMuted.Render("analysis") + "\n")
	case screenTokens:
		b.WriteString(styleMuted.Render("tokens") + "\n")
	}
}

func describeFilter(f timeline.Filter) string {
	if f.IsZero() {
		return "none"
	}
	var parts []string
	if f.Method != "" {
		parts = append(parts, "method="+f.Method)
	}
	if f.Dir != "" {
		parts = append(parts, "dir="+view.DirLabel(f.Dir))
	}
	if f.Session != "" {
		parts = append(parts, "session="+f.Session)
	}
	if f.ErrorsOnly {
		parts = append(parts, "errors only")
	}
	if f.MinLatency > 0 {
		parts = append(parts, "latency>"+view.Millis(f.MinLatency))
	}
	if f.Text != "" {
		parts = append(parts, "text="+f.Text)
	}
	return strings.Join(parts, "  ")
}

// layout is the width of each column of the list at the terminal's width: the
// call takes what is left once the status, latency and session have room.
type layout struct{ call, status, session, waterfall int }

func (m *Model) layout() layout {
	rest := m.width - 8 - 13 - 4 - 11 // #, time, dir, latency
	l := layout{session: clamp(rest*18/100, 10, 26), status: clamp(rest*24/100, 12, 34)}
	if m.width >= 100 {
		l.waterfall = clamp(rest*12/100, 8, 24)
	}
	l.call = max(rest-l.session-l.status-l.waterfall-3, 16)
	return l
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// columns lays out one timeline line.
func (m *Model) columns(l layout, seq, clock, dir, call, status, latency, session, waterfall string) string {
	// Every cell but the waterfall may hold what a peer chose (a method, an id,
	// an error text): escaped before it reaches the terminal.
	seq, call, status, session = capture.TermSafe(seq), capture.TermSafe(call), capture.TermSafe(status), capture.TermSafe(session)
	line := fmt.Sprintf("%-8s%-13s%-4s%-*s %-*s %10s %-*s", fit(seq, 7), clock, dir, l.call, fit(call, l.call),
		l.status, fit(status, l.status), latency, l.session, fit(session, l.session))
	if l.waterfall > 0 {
		line += " " + waterfall
	}
	return line
}

// span is the time the rows shown cover: the waterfall's scale.
type span struct{ from, to float64 }

func (s span) bar(r view.Row, width int) string {
	if width <= 0 || s.to <= s.from {
		return ""
	}
	scale := float64(width) / (s.to - s.from)
	at := min(int((r.StartMs-s.from)*scale), width-1)
	switch {
	case r.Kind != "request":
		return strings.Repeat(" ", at) + "·"
	case r.LatencyMs < 0: // unanswered: open to the end
		return strings.Repeat(" ", at) + strings.Repeat("▸", width-at)
	}
	n := max(int(r.LatencyMs*scale+0.5), 1)
	n = min(n, width-at)
	return strings.Repeat(" ", at) + strings.Repeat("█", n)
}

// list draws the timeline from entry m.top on, keeping the cursor's entry on
// screen and the screen full: the rows end at the bottom of the body unless
// there are too few to fill it.
func (m *Model) list(b *strings.Builder) {
	h := m.bodyHeight()
	m.top = min(m.top, m.cursor)
	if m.cursor-m.top >= h { // more entries than lines between them
		m.top = m.cursor - h + 1
	}
	for m.top < m.cursor && m.linesBetween(m.top, m.cursor) > h {
		m.top++
	}
	for m.top > 0 && m.linesFrom(m.top-1, h) <= h { // fill the screen
		m.top--
	}
	l := m.layout()
	rows := make([]view.Row, 0, h)
	var sp span
	for i := m.top; i < len(m.entries) && len(rows) < h; i++ {
		r := view.RowOf(m.entries[i], true)
		end := r.StartMs + max(r.LatencyMs, 0)
		if len(rows) == 0 {
			sp = span{r.StartMs, end}
		}
		sp.from, sp.to = min(sp.from, r.StartMs), max(sp.to, end)
		rows = append(rows, r)
	}
	b.WriteString(styleMuted.Render(fit(m.columns(l, "#", "time", "dir", "call", "status", "latency", "session", "waterfall"), m.width)) + "\n")
	n := 0
	for j, row := range rows {
		i := m.top + j
		e := m.entries[i]
		call := row.Method
		if len(row.Children) > 0 {
			mark := "▸ "
			if m.unfolded[e.ID] {
				mark = "▾ "
			}
			call = mark + call + fmt.Sprintf(" (+%d)", len(e.Notifications))
		}
		if row.S2CRequest {
			call = "⇐ " + call
		}
		if row.Probe != "" {
			call += " [" + row.Probe + "]"
		}
		line := fit(m.columns(l, row.ID, row.Time, row.DirLabel, call, row.Status, row.Latency, row.Session, sp.bar(row, l.waterfall)), m.width)
		switch {
		case i == m.cursor:
			line = styleSelected.Render(line)
		case row.Error:
			line = styleError.Render(line)
		case row.Probe != "" || row.Kind == "event":
			line = styleMuted.Render(line)
		case row.S2CRequest:
			line = styleServer.Render(line)
		}
		b.WriteString(line + "\n")
		n++
		if m.unfolded[e.ID] {
			for _, c := range row.Children {
				if n >= h {
					break
				}
				b.WriteString(styleMuted.Render(fit(m.columns(l, fmt.Sprint(c.Seq), c.Time, c.DirLabel, "    "+c.Method, c.Status, "", "", ""), m.width)) + "\n")
				n++
			}
		}
		if n >= h {
			break
		}
	}
	if len(m.entries) == 0 {
		b.WriteString(styleMuted.Render("no messages yet") + "\n")
		n++
	}
	for ; n < h; n++ {
		b.WriteString("\n")
	}
}

// linesBetween counts the lines entries from..to (inclusive) take.
func (m *Model) linesBetween(from, to int) int {
	n := 0
	for i := from; i <= to && i < len(m.entries); i++ {
		n += m.linesOf(i)
	}
	return n
}

// linesFrom counts the lines the entries from i to the last take, stopping once
// past limit.
func (m *Model) linesFrom(i, limit int) int {
	n := 0
	for ; i < len(m.entries) && n <= limit; i++ {
		n += m.linesOf(i)
	}
	return n
}

func (m *Model) linesOf(i int) int {
	if e := m.entries[i]; m.unfolded[e.ID] {
		return 1 + min(len(e.Notifications), 51)
	}
	return 1
}

// buildPage makes the lines of the detail or analysis screen.
func (m *Model) buildPage() {
	m.page = m.page[:0]
	add := func(s string) { m.page = append(m.page, strings.Split(s, "\n")...) }
	switch m.screen {
	case screenDetail:
		if m.cursor >= len(m.entries) {
			add("no entry selected")
			return
		}
		e, ok := m.hub.Model().Entry(m.entries[m.cursor].ID)
		if !ok {
			e = m.entries[m.cursor]
		}
		d := view.DetailOf(e)
		add(styleHeader.Render(safeLines(d.Title)))
		for _, f := range d.Facts {
			add("  " + safeLines(f))
		}
		for _, s := range d.Sections {
			add("")
			add(styleHeader.Render(safeLines(s.Label)))
			for _, v := range s.Violations {
				add(styleError.Render("  schema: " + safeLines(v)))
			}
			if s.Text != "" {
				add(safeLines(s.Text))
			}
			if s.JSON != "" {
				add(safeLines(s.JSON))
			}
		}
	case screenAnalysis:
		m.analysisPage(add)
	case screenTokens:
		m.tokenPage(add)
	}
}

// analysisPage adds the lines of the analysis: the summary, the failures by
// name, the tables. Failures and rows that lead to an entry are links (n/N
// select one, enter shows its entry).
func (m *Model) analysisPage(add func(string)) {
	m.links = m.links[:0]
	linkTo := func(entry string) {
		if entry != "" {
			m.links = append(m.links, link{line: len(m.page) - 1, entry: entry})
		}
	}
	p := view.PanelOf(m.snap)
	add(safeLines(p.Summary))
	add("")
	if p.FailureCount == 0 {
		add(styleHeader.Render("no failures found"))
	} else {
		add(styleHeader.Render(fmt.Sprintf("failures (%d)", p.FailureCount)))
	}
	for _, g := range p.Groups {
		add(styleError.Render(fmt.Sprintf("%s (%d)", capture.TermSafe(g.Name), g.Count)))
		for _, f := range g.Failures {
			line := "  "
			if f.Count > 1 {
				line += fmt.Sprintf("%d× ", f.Count)
			}
			line += safeLines(f.Text)
			if len(f.Entries) > 0 {
				line += styleMuted.Render("  → #" + strings.Join(f.Entries, ", #"))
			}
			add(line)
			if len(f.Entries) > 0 {
				linkTo(f.Entries[0])
			}
		}
	}
	if p.Probes > 0 {
		add(styleMuted.Render(fmt.Sprintf("%d client probes refused by the server: answers, not failures", p.Probes)))
	}
	if p.FailuresOmitted > 0 {
		add(styleMuted.Render(fmt.Sprintf("… and %d more", p.FailuresOmitted)))
	}
	m.catalogPage(add, linkTo)
	for _, t := range p.Tables {
		add("")
		add(styleHeader.Render(t.Title))
		if t.Note != "" {
			add(styleMuted.Render(t.Note))
		}
		if len(t.Rows) == 0 {
			continue
		}
		lines := strings.Split(table(t), "\n")
		add(styleMuted.Render(lines[0]))
		for i, l := range lines[1:] {
			add(l)
			if i < len(t.Entries) {
				linkTo(t.Entries[i])
			}
		}
	}
	if m.link >= len(m.links) {
		m.link = len(m.links) - 1
	}
}

// table renders a table with columns as wide as their widest cell.
func table(t view.Table) string {
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = make([]string, len(r))
		for j, c := range r {
			rows[i][j] = capture.TermSafe(c) // methods and sessions are a peer's
		}
	}
	t.Rows = rows
	widths := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		widths[i] = ansi.StringWidth(c)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], ansi.StringWidth(c))
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i < len(widths) {
				b.WriteString(c + strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
			}
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	for _, r := range t.Rows {
		line(r)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) pageView(b *strings.Builder) {
	h := m.bodyHeight()
	m.scroll = min(m.scroll, max(len(m.page)-h, 0))
	n := 0
	sel := -1
	if m.screen == screenAnalysis && m.link >= 0 && m.link < len(m.links) {
		sel = m.links[m.link].line
	}
	for i := m.scroll; i < len(m.page) && n < h; i++ {
		line := fit(m.page[i], m.width)
		if i == sel {
			line = styleSelected.Render(ansi.Strip(line))
		}
		b.WriteString(line + "\n")
		n++
	}
	for ; n < h; n++ {
		b.WriteString("\n")
	}
}

func (m *Model) footer(b *strings.Builder) {
	switch {
	case m.inputField != "":
		b.WriteString(m.input.View())
		if m.notice != "" {
			b.WriteString("  " + styleNotice.Render(m.notice))
		}
	case m.notice != "":
		b.WriteString(styleNotice.Render(fit(m.notice, m.width)))
	case m.screen == screenList:
		b.WriteString(styleMuted.Render(fit("↑↓ move  enter detail  space fold  / method  s session  d dir  e errors  > latency  t text  c clear  a analysis  T tokens  q quit", m.width)))
	case m.screen == screenAnalysis:
		b.WriteString(styleMuted.Render(fit("↑↓ scroll  n/N select a failure, duplicate, view or row  enter show its entry  T tokens  esc back  ctrl+c quit", m.width)))
	case m.screen == screenTokens:
		b.WriteString(styleMuted.Render(fit("↑↓ scroll  f format  o encoding  a analysis  esc back  ctrl+c quit", m.width)))
	default:
		b.WriteString(styleMuted.Render(fit("↑↓ scroll  esc back  a analysis  T tokens  ctrl+c quit", m.width)))
	}
}

// fit cuts s to width cells.
func fit(s string, width int) string { return ansi.Truncate(s, width, "…") }

// safeLines escapes each line of s for the terminal (capture.TermSafe), keeping
// its line breaks: a detail's text and JSON are shown over several lines.
func safeLines(s string) string {
	if capture.TermSafe(s) == s {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = capture.TermSafe(l)
	}
	return strings.Join(lines, "\n")
}
