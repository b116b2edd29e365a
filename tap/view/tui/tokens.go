package tui

import (
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpkit/mcpkit/llm/tokens"
	"github.com/mcpkit/mcpkit/tap/view"
)

// tokenState is the token screen's: its choices, and the last panel counted.
// Counting runs in a command (off the event loop): the first one loads the
// tokenizer, a fraction of a second.
type tokenState struct {
	format   tokens.Format
	encoding tokens.Encoding
	panel    *view.TokenPanel // nil until counted
	err      error
	key      string // format, encoding and tools version of panel
	pending  string // the key being counted, "" when none
}

// tokensMsg carries a counted panel back to the event loop.
type tokensMsg struct {
	key   string
	panel view.TokenPanel
	err   error
}

func (t *tokenState) keyFor(version string) string {
	return string(t.format) + "/" + string(t.encoding) + "/" + version
}

// openTokens shows the token screen and counts what it lacks.
func (m *Model) openTokens() tea.Cmd {
	if m.screen != screenTokens {
		m.open(screenTokens)
	}
	cmd := m.countTokens()
	m.buildPage()
	return cmd
}

// countTokens returns the command that counts the tool lists of the current
// snapshot, when the token screen shows and its panel is stale.
func (m *Model) countTokens() tea.Cmd {
	if m.screen != screenTokens {
		return nil
	}
	snap, format, enc := m.snap, m.tokens.format, m.tokens.encoding
	key := m.tokens.keyFor(view.ToolsVersion(snap))
	if key == m.tokens.key || key == m.tokens.pending {
		return nil
	}
	m.tokens.pending = key
	return func() tea.Msg {
		p, err := view.TokensOf(snap, format, enc)
		return tokensMsg{key: key, panel: p, err: err}
	}
}

// tokensCounted takes a counted panel, unless the choices changed meanwhile.
func (m *Model) tokensCounted(msg tokensMsg) {
	if msg.key == m.tokens.pending {
		m.tokens.pending = ""
	}
	if msg.key != m.tokens.keyFor(msg.panel.ToolsVersion) {
		return // counted for other choices
	}
	m.tokens.panel, m.tokens.err, m.tokens.key = &msg.panel, msg.err, msg.key
	if m.screen == screenTokens {
		m.buildPage()
	}
}

// tokenPage adds the lines of the token screen.
func (m *Model) tokenPage(add func(string)) {
	t := &m.tokens
	add(styleHeader.Render(fmt.Sprintf("token cost of the tool lists: %s format, %s", t.format, t.encoding)) +
		styleMuted.Render("   (f format, o encoding)"))
	switch {
	case t.panel == nil || t.panel.Format != t.format || t.panel.Encoding != t.encoding:
		add("counting… (the first count loads the tokenizer)")
		return
	case t.err != nil:
		add(styleError.Render(t.err.Error()))
		return
	case len(t.panel.Lists) == 0:
		add("no tools/list answer in the capture yet")
		return
	}
	if t.pending != "" {
		add(styleMuted.Render("recounting…"))
	}
	for _, l := range t.panel.Lists {
		add("")
		add(styleHeader.Render(l.Title))
		tab := view.Table{Columns: []string{"tool", "tokens", "name+description", "schema", "framing", "bytes"}}
		for _, c := range l.Counts {
			name := c.Name
			if c.ModelName != "" {
				name += " (as " + c.ModelName + ")"
			}
			tab.Rows = append(tab.Rows, []string{name, strconv.Itoa(c.Tokens), strconv.Itoa(c.Text),
				strconv.Itoa(c.Schema), strconv.Itoa(c.Framing), strconv.Itoa(c.Bytes)})
		}
		tab.Rows = append(tab.Rows, []string{"total", strconv.Itoa(l.Total)})
		add(table(tab))
	}
	add("")
	add(styleMuted.Render(ansi.Wordwrap(t.panel.Note, max(m.width-2, 20), "")))
}
