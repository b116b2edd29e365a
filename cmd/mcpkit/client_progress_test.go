package main

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

func TestProgressBarModes(t *testing.T) {
	updates := []protocol.ProgressParams{{Progress: 1, Total: 4, Message: "one"}, {Progress: 7}, {Progress: 5, Total: 4}}
	var plain strings.Builder
	b := newProgressBar(&plain, false)
	for i := range updates {
		b.update(&updates[i])
	}
	b.finish()
	if want := "progress 1/4 one\nprogress 7\nprogress 5/4\n"; plain.String() != want {
		t.Errorf("plain: %q, want %q", plain.String(), want)
	}
	var tty strings.Builder
	b = newProgressBar(&tty, true)
	for i := range updates {
		b.update(&updates[i])
	}
	b.finish()
	want := "\r\x1b[K[#######                       ] 1/4 one" + "\r\x1b[K7" + "\r\x1b[K[" + strings.Repeat("#", barWidth) + "] 5/4" + "\r\x1b[K"
	if tty.String() != want {
		t.Errorf("terminal: %q, want %q", tty.String(), want)
	}
	var none strings.Builder
	newProgressBar(&none, true).finish()
	if none.Len() != 0 {
		t.Errorf("a bar never drawn wrote %q", none.String())
	}
}

// On a terminal the progress of call is one line redrawn in place, cleared at
// the end; the result still goes to stdout.
func TestProgressBarOnATerminal(t *testing.T) {
	r := startPTY(t, false, "call", "count", `{"n":3}`, "--", mcpkitBin, "serve")
	out, screen, code := r.wait()
	if code != 0 || out != "3\n" {
		t.Fatalf("stdout %q exit %d; terminal %q", out, code, screen)
	}
	if !strings.Contains(screen, "\r\x1b[K[####################          ] 2/3 Step 2 of 3") || !strings.HasSuffix(screen, "\r\x1b[K") || strings.Contains(screen, "progress ") {
		t.Errorf("terminal %q", screen)
	}
}
