package term

import (
	"strings"
	"testing"
)

// TestApprovals: y approves once, n and the end of the input refuse, a
// approves the key for the rest of the session without asking again.
func TestApprovals(t *testing.T) {
	in := NewLineReader(strings.NewReader("y\nN\n always \n"))
	var screen strings.Builder
	var a Approvals
	for i, want := range []bool{true, false, true, true, false} {
		key := "add"
		if i == 4 {
			key = "other" // the input has ended: refused
		}
		got, err := a.Ask(t.Context(), in, &screen, key, "Run? ")
		if err != nil || got != want {
			t.Fatalf("answer %d: %v, %v; want %v", i, got, err, want)
		}
	}
	if n := strings.Count(screen.String(), "Run? "); n != 4 {
		t.Errorf("asked %d times, want 4 (not again after always):\n%s", n, screen.String())
	}
	if !a.Always("add") || a.Always("other") {
		t.Error("Always does not remember the right key")
	}
}
