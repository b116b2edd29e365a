package main

import (
	"strings"
	"testing"
)

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
