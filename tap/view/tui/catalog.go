package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/view"
)

// duplicatesBadge is the header's warning when a tool name is listed twice
// (by two servers, or twice by one): what a host connected to them all would
// see. Empty when none is.
func duplicatesBadge(dups []view.DuplicateTool) string {
	if len(dups) == 0 {
		return ""
	}
	names := make([]string, len(dups))
	for i, d := range dups {
		names[i] = capture.TermSafe(d.Name) // a peer's name
	}
	plural := "s"
	if len(dups) == 1 {
		plural = ""
	}
	return fmt.Sprintf("⚠ %d duplicate tool name%s: %s", len(dups), plural, strings.Join(names, ", "))
}

// headerLine writes the header's first line: line in bold, then the
// duplicate-tool warning in the notice colour in what room is left.
func (m *Model) headerLine(b *strings.Builder, line string) {
	line = fit(line, m.width)
	b.WriteString(styleHeader.Render(line))
	if badge := duplicatesBadge(m.catalog.Duplicates); badge != "" {
		if room := m.width - ansi.StringWidth(line) - 2; room > 0 {
			b.WriteString("  " + styleNotice.Render(fit(badge, room)))
		}
	}
	b.WriteString("\n")
}

// catalogPage adds the analysis's servers section: the duplicate tool names
// and the MCP App views the capture holds, each a link to the entry that
// shows it. The terminal cannot run a view: the web view previews them.
func (m *Model) catalogPage(add func(string), linkTo func(entry string)) {
	c := m.catalog
	if len(c.Duplicates) == 0 && len(c.Apps) == 0 {
		return
	}
	add("")
	if len(c.Duplicates) > 0 {
		add(styleNotice.Render(fmt.Sprintf("duplicate tool names (%d)", len(c.Duplicates))))
		for _, d := range c.Duplicates {
			add("  ⚠ " + capture.TermSafe(d.Text))
			if len(d.Entries) > 0 {
				linkTo(d.Entries[0])
			}
		}
	}
	if len(c.Apps) > 0 {
		if len(c.Duplicates) > 0 {
			add("")
		}
		add(styleHeader.Render(fmt.Sprintf("MCP App views (%d)", len(c.Apps))))
		for _, a := range c.Apps {
			line := "  " + capture.TermSafe(a.URI)
			if a.Server != "" {
				line += styleMuted.Render("  from " + capture.TermSafe(a.Server))
			}
			if len(a.Tools) > 0 {
				line += "  tools: " + capture.TermSafe(strings.Join(a.Tools, ", "))
			}
			line += styleMuted.Render(fmt.Sprintf("  %d bytes", a.Bytes))
			add(line)
			linkTo(a.Entry)
			for _, d := range a.Declared {
				add(styleMuted.Render("    declares " + capture.TermSafe(d)))
			}
		}
		add(styleMuted.Render("  a terminal cannot run a view: add --web 127.0.0.1:8090 to this command to preview them, sandboxed, in a browser"))
	}
}
