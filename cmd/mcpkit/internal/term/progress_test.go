package term

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// TestProgressBarModes: plain lines off a terminal, one line redrawn on one.
func TestProgressBarModes(t *testing.T) {
	updates := []protocol.ProgressParams{{Progress: 1, Total: 4, Message: "one"}, {Progress: 7}, {Progress: 5, Total: 4}}
	var plain strings.Builder
	b := NewProgressBar(&plain, false)
	for i := range updates {
		b.Update(&updates[i])
	}
	b.Finish()
	if want := "progress 1/4 one\nprogress 7\nprogress 5/4\n"; plain.String() != want {
		t.Errorf("plain: %q, want %q", plain.String(), want)
	}
	var tty strings.Builder
	b = NewProgressBar(&tty, true)
	for i := range updates {
		b.Update(&updates[i])
	}
	b.Finish()
	want := "\r\x1b[K[#######                       ] 1/4 one" + "\r\x1b[K7" + "\r\x1b[K[" + strings.Repeat("#", barWidth) + "] 5/4" + "\r\x1b[K"
	if tty.String() != want {
		t.Errorf("terminal: %q, want %q", tty.String(), want)
	}
	var none strings.Builder
	NewProgressBar(&none, true).Finish()
	if none.Len() != 0 {
		t.Errorf("a bar never drawn wrote %q", none.String())
	}
}
