package main

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// --log-level shows the server's log messages on stderr, at the level asked
// for and above, in both eras; without it none are asked for.
func TestLogLevelShowsServerLogs(t *testing.T) {
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		out, errOut, code := run(t, "call", "log", "{}", "--log-level", "warning", "--protocol", proto)
		if code != 0 || out != "logged\n" || !strings.Contains(errOut, "mcpkit: server log warning [demo]:") ||
			!strings.Contains(errOut, "server log error [demo]") || strings.Contains(errOut, "server log info") {
			t.Errorf("%s: %d %q %q", proto, code, out, errOut)
		}
	}
	if _, errOut, _ := run(t, "call", "log", "{}"); strings.Contains(errOut, "server log") {
		t.Errorf("without --log-level: %q", errOut)
	}
	if _, errOut, code := run(t, "tools", "--log-level", "loud"); code == 0 || !strings.Contains(errOut, `--log-level "loud": not a logging level`) {
		t.Errorf("a bad level: %d %q", code, errOut)
	}
}

// A log message's strings are escaped for the terminal.
func TestLogLineEscapes(t *testing.T) {
	got := logLine(&protocol.LoggingMessageParams{Level: "error", Logger: "x\x1b]0;t\x07", Data: "a\x1b[31mb\nc"})
	if strings.ContainsAny(got, "\x1b\x07\n") {
		t.Errorf("not escaped: %q", got)
	}
}
