package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpkit/mcpkit/llm/tokens"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

// Screens of the UI.
const (
	screenList = iota
	screenDetail
	screenAnalysis
	screenTokens
)

// Model is the Bubble Tea model of the UI. Its View is plain text with styles: a
// test can drive it with Update and read what it shows.
type Model struct {
	ctx context.Context
	hub *view.Hub

	filter  timeline.Filter
	snap    *timeline.Snapshot
	entries []*timeline.Entry // those the filter selects, oldest first
	catalog view.Catalog      // duplicate tool names and MCP App views, remade when its version changes
	changed <-chan struct{}   // closed at the model's next change

	width, height int
	screen        int
	cursor        int  // index in entries
	follow        bool // the cursor stays on the newest entry
	top           int  // first entry shown
	unfolded      map[timeline.EntryID]bool
	scroll        int // detail, analysis and tokens
	page          []string
	links         []link // the lines of the page that lead to an entry
	link          int    // the selected link, -1 for none

	tokens tokenState

	input      textinput.Model
	inputField string // the filter being edited, "" when none
	notice     string // the last error (a bad filter)
}

// New returns the UI's model over hub's timeline, starting with filter f. ctx ends
// its wait for changes.
func New(ctx context.Context, hub *view.Hub, f timeline.Filter) *Model {
	m := &Model{ctx: ctx, hub: hub, filter: f, follow: true, width: 120, height: 30,
		unfolded: map[timeline.EntryID]bool{}, input: textinput.New(), link: -1,
		tokens: tokenState{format: tokens.Formats[0], encoding: tokens.Encodings[0]}}
	m.refresh()
	return m
}

// changedMsg says the timeline changed (or the feed ended); tickMsg that the
// pause between redraws is over.
type (
	changedMsg struct{}
	tickMsg    struct{}
)

// Init starts waiting for changes.
func (m *Model) Init() tea.Cmd { return m.wait() }

// wait returns a command that reports the timeline's next change.
func (m *Model) wait() tea.Cmd {
	changed, ctx := m.changed, m.ctx
	var done <-chan struct{}
	if !m.hub.Ended() {
		done = m.hub.Done()
	}
	return func() tea.Msg {
		select {
		case <-changed:
		case <-done:
		case <-ctx.Done():
			return nil
		}
		return changedMsg{}
	}
}

// refresh takes a fresh snapshot and applies the filter, keeping the selection.
func (m *Model) refresh() {
	var sel timeline.EntryID
	hadSel := m.cursor < len(m.entries)
	if hadSel {
		sel = m.entries[m.cursor].ID
	}
	m.changed = m.hub.Model().Changed() // before the snapshot: no change is missed
	m.snap = m.hub.Model().Snapshot()
	m.entries = m.snap.Apply(m.filter)
	if v := view.CatalogVersion(m.snap); v != m.catalog.Version {
		m.catalog = view.CatalogOf(m.snap)
	}
	switch {
	case m.follow || !hadSel:
		m.cursor = max(len(m.entries)-1, 0)
	default:
		m.cursor = m.indexOf(sel)
	}
	if m.screen != screenList {
		m.buildPage()
	}
}

func (m *Model) indexOf(id timeline.EntryID) int {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if !after(m.entries[i].ID, id) {
			return i
		}
	}
	return 0
}

func after(a, b timeline.EntryID) bool {
	return a.Seq > b.Seq || (a.Seq == b.Seq && a.Part > b.Part)
}

// Update handles keys, the terminal's size and the timeline's changes.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case changedMsg:
		m.refresh()
		return m, tea.Batch(m.countTokens(), tea.Tick(refreshInterval, func(time.Time) tea.Msg { return tickMsg{} }))
	case tokensMsg:
		m.tokensCounted(msg)
	case tickMsg:
		return m, m.wait()
	case tea.KeyPressMsg:
		if m.inputField != "" {
			return m, m.editKey(msg)
		}
		return m, m.key(msg.String())
	}
	return m, nil
}

// key handles a key outside filter editing.
func (m *Model) key(k string) tea.Cmd {
	if k == "ctrl+c" {
		return tea.Quit
	}
	if m.screen != screenList {
		switch k {
		case "enter":
			if m.screen == screenAnalysis && m.link >= 0 {
				m.jump(m.links[m.link].entry)
				return nil
			}
			m.screen = screenList
		case "esc", "backspace", "left", "h", "q":
			m.screen = screenList
		case "n":
			m.selectLink(1)
		case "N", "p":
			m.selectLink(-1)
		case "f":
			if m.screen == screenTokens {
				m.tokens.format = next(tokens.Formats, m.tokens.format)
				return m.openTokens()
			}
		case "o":
			if m.screen == screenTokens {
				m.tokens.encoding = next(tokens.Encodings, m.tokens.encoding)
				return m.openTokens()
			}
		case "T":
			return m.openTokens()
		case "up", "k":
			m.scroll = max(m.scroll-1, 0)
		case "down", "j":
			m.scroll++
		case "pgup":
			m.scroll = max(m.scroll-m.bodyHeight(), 0)
		case "pgdown", "space":
			m.scroll += m.bodyHeight()
		case "a", "tab":
			m.open(screenAnalysis)
		}
		return nil
	}
	m.notice = ""
	switch k {
	case "q":
		return tea.Quit
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "pgup":
		m.move(-m.bodyHeight())
	case "pgdown":
		m.move(m.bodyHeight())
	case "home", "g":
		m.cursor, m.follow = 0, false
	case "end", "G", "f":
		m.cursor, m.follow = max(len(m.entries)-1, 0), true
	case "enter", "right", "l":
		if m.cursor < len(m.entries) {
			m.open(screenDetail)
		}
	case "space":
		if m.cursor < len(m.entries) {
			id := m.entries[m.cursor].ID
			m.unfolded[id] = !m.unfolded[id]
		}
	case "a", "tab":
		m.open(screenAnalysis)
	case "T":
		return m.openTokens()
	case "/", "m":
		return m.edit("method", m.filter.Method)
	case "s":
		return m.edit("session", m.filter.Session)
	case "t":
		return m.edit("text", m.filter.Text)
	case ">":
		v := ""
		if m.filter.MinLatency > 0 {
			v = strconv.FormatFloat(float64(m.filter.MinLatency)/float64(time.Millisecond), 'f', -1, 64)
		}
		return m.edit("latency", v)
	case "d":
		switch m.filter.Dir {
		case "":
			m.filter.Dir = capture.ClientToServer
		case capture.ClientToServer:
			m.filter.Dir = capture.ServerToClient
		default:
			m.filter.Dir = ""
		}
		m.refilter()
	case "e":
		m.filter.ErrorsOnly = !m.filter.ErrorsOnly
		m.refilter()
	case "c":
		m.filter = timeline.Filter{}
		m.refilter()
	}
	return nil
}

func (m *Model) move(n int) {
	m.cursor = min(max(m.cursor+n, 0), max(len(m.entries)-1, 0))
	m.follow = m.cursor == len(m.entries)-1
}

func (m *Model) open(screen int) {
	m.screen, m.scroll, m.link = screen, 0, -1
	m.buildPage()
}

// link is a line of the analysis that leads to an entry.
type link struct {
	line  int
	entry string
}

// selectLink moves the selection to the next (1) or previous (-1) link and
// scrolls to it.
func (m *Model) selectLink(dir int) {
	if len(m.links) == 0 {
		return
	}
	switch {
	case m.link < 0 && dir > 0:
		m.link = 0
	case m.link < 0:
		m.link = len(m.links) - 1
	default:
		m.link = (m.link + dir + len(m.links)) % len(m.links)
	}
	l := m.links[m.link].line
	if l < m.scroll || l >= m.scroll+m.bodyHeight() {
		m.scroll = max(l-2, 0)
	}
}

// jump shows the detail of entry id, clearing the filter when it hides it.
func (m *Model) jump(id string) {
	eid, err := view.ParseEntryID(id)
	if err != nil {
		m.notice = err.Error()
		return
	}
	i := m.find(eid)
	if i < 0 && !m.filter.IsZero() {
		m.filter = timeline.Filter{}
		m.follow = false
		m.refresh()
		m.notice = "filter cleared to show entry " + id
		i = m.find(eid)
	}
	if i < 0 {
		m.notice = "entry " + id + " is no longer kept"
		m.screen = screenList
		return
	}
	m.cursor, m.follow = i, false
	m.open(screenDetail)
}

func (m *Model) find(id timeline.EntryID) int {
	for i, e := range m.entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func next[T comparable](choices []T, cur T) T {
	for i, c := range choices {
		if c == cur {
			return choices[(i+1)%len(choices)]
		}
	}
	return choices[0]
}

func (m *Model) refilter() {
	m.follow = true
	m.refresh()
}

// edit starts editing one filter field.
func (m *Model) edit(field, value string) tea.Cmd {
	m.inputField = field
	m.input.Prompt = field + ": "
	m.input.SetValue(value)
	m.input.CursorEnd()
	return m.input.Focus()
}

// editKey handles a key while a filter field is edited: enter applies, esc cancels.
func (m *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.inputField = ""
		m.input.Blur()
		return nil
	case "enter":
		f := m.filter
		v := strings.TrimSpace(m.input.Value())
		switch m.inputField {
		case "method":
			f.Method = v
		case "session":
			f.Session = v
		case "text":
			f.Text = v
		case "latency":
			f.MinLatency = 0
			if v != "" {
				ms, err := strconv.ParseFloat(v, 64)
				if err != nil || ms < 0 {
					m.notice = fmt.Sprintf("latency %q: give milliseconds", v)
					return nil
				}
				f.MinLatency = time.Duration(ms * float64(time.Millisecond))
			}
		}
		if err := f.Validate(); err != nil {
			m.notice = err.Error()
			return nil
		}
		m.filter, m.inputField = f, ""
		m.input.Blur()
		m.refilter()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}
