package capture

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestTermSafe: controls, format characters and bytes that are not UTF-8 come
// out escaped; printable text, in any script, as it was.
func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"tools/call":                   "tools/call",
		"outils/appel é 工具 🚀":          "outils/appel é 工具 🚀",
		"\x1b]0;PWNED-TITLE\a\x1b[2Jx": `\x1b]0;PWNED-TITLE\x07\x1b[2Jx`,
		"a\rb\nc\td\x7f":               `a\x0db\x0ac\x09d\x7f`,
		"\u009b31m":                    `\u009b31m`,
		"evil\u202etxt.exe":            `evil\u202etxt.exe`,
		"bad\xffutf8":                  `bad\xffutf8`,
		"\x1b]52;c;ZXZpbA==\x07":       `\x1b]52;c;ZXZpbA==\x07`,
		"tag\U000E0041":                `tag\U000e0041`,
	} {
		if got := TermSafe(in); got != want {
			t.Errorf("TermSafe(%q) = %q, want %q", in, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = TermSafe("notifications/progress é") }); n != 0 {
		t.Errorf("%v allocations for a string with nothing to escape", n)
	}
}

// FuzzTermSafe: whatever the input, the output holds no character a terminal
// would act on.
func FuzzTermSafe(f *testing.F) {
	f.Add("\x1b[2J\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := TermSafe(s)
		if !utf8.ValidString(out) {
			t.Fatalf("TermSafe(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if !unicode.IsPrint(r) {
				t.Fatalf("TermSafe(%q) = %q holds %U", s, out, r)
			}
		}
	})
}
