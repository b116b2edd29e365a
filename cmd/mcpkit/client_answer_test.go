package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eras are the two ways the client commands talk to the demo server: the
// stateless era it detects, and a legacy session.
var eras = []struct {
	name string
	args []string
}{
	{"stateless", nil},
	{"legacy", []string{"--protocol", "2025-11-25"}},
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Without a terminal and without --elicit-answers, the CLI declines the demo's
// ask_name form and says why; with a file it answers from it.
func TestElicitationWithoutATerminal(t *testing.T) {
	answers := writeFile(t, "answers.json", `{"name":"Ada","unrelated":1}`)
	empty := writeFile(t, "empty.json", `{}`)
	notObject := writeFile(t, "list.json", `["Ada"]`)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"call", "ask_name"}, era.args...)...)
			if code != 0 || out != "the user chose to decline\n" || !strings.Contains(errOut, "standard input is not a terminal") || !strings.Contains(errOut, "--elicit-answers") {
				t.Errorf("no terminal: stdout %q stderr %q exit %d", out, errOut, code)
			}
			out, errOut, code = run(t, append([]string{"call", "ask_name", "--elicit-answers", answers}, era.args...)...)
			if code != 0 || out != "hello Ada\n" {
				t.Errorf("answers file: stdout %q stderr %q exit %d", out, errOut, code)
			}
			out, errOut, code = run(t, append([]string{"call", "ask_name", "--elicit-answers", empty}, era.args...)...)
			if code != 0 || out != "the user chose to decline\n" || !strings.Contains(errOut, `no answer for the required field(s) "name"`) {
				t.Errorf("answers file without the field: stdout %q stderr %q exit %d", out, errOut, code)
			}
		})
	}
	if _, errOut, code := run(t, "call", "ask_name", "--elicit-answers", notObject); code == 0 || !strings.Contains(errOut, "want a JSON object of field values") {
		t.Errorf("a file that is not an object: stderr %q exit %d", errOut, code)
	}
}

// On a terminal the CLI asks field by field: an empty answer to a required field
// is asked again; !decline declines and Ctrl-D cancels.
func TestElicitationPromptOnATerminal(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			r := startPTY(t, true, append(append([]string{"call", "ask_name"}, era.args...), "--", mcpkitBin, "serve")...)
			r.waitFor("the server asks: What is your name?")
			r.waitFor("name — Your name (text, required)")
			r.waitFor("name: ")
			r.send("\n")
			r.waitFor("this field is required")
			r.waitFor("name: ")
			r.send("Ada Lovelace\n")
			out, screen, code := r.wait()
			if code != 0 || out != "hello Ada Lovelace\n" {
				t.Errorf("stdout %q exit %d; terminal:\n%s", out, code, screen)
			}
		})
	}
	for _, c := range []struct{ name, input, want string }{
		{"decline", "!decline\n", "the user chose to decline\n"},
		{"cancel", "\x04", "the user chose to cancel\n"}, // Ctrl-D: the end of the input
	} {
		t.Run(c.name, func(t *testing.T) {
			r := startPTY(t, true, "call", "ask_name", "--", mcpkitBin, "serve")
			r.waitFor("name: ")
			r.send(c.input)
			out, screen, code := r.wait()
			if code != 0 || out != c.want {
				t.Errorf("stdout %q exit %d; terminal:\n%s", out, code, screen)
			}
		})
	}
}

// --root offers directories as file:// roots; without it the client declares no
// roots capability, and the demo's list_roots fails for want of it.
func TestRootsFromFlag(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"call", "list_roots", "--root", a, "--root", b}, era.args...)...)
			for _, dir := range []string{a, b} {
				want := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String() + " " + filepath.Base(dir)
				if code != 0 || !strings.Contains(out, want+"\n") {
					t.Errorf("want %q in stdout %q (stderr %q, exit %d)", want, out, errOut, code)
				}
			}
			out, errOut, code = run(t, append([]string{"call", "list_roots"}, era.args...)...)
			if code == 0 || !strings.Contains(errOut, "roots") || !strings.Contains(errOut, "capability") {
				t.Errorf("without --root: stdout %q stderr %q exit %d", out, errOut, code)
			}
		})
	}
	// A relative directory is made absolute; a missing one fails before the server starts.
	out, errOut, code := runIn(t, a, "call", "list_roots", "--root", ".")
	if want := "file://" + filepath.ToSlash(a) + " "; code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("--root .: want %q; stdout %q stderr %q exit %d", want, out, errOut, code)
	}
	if _, errOut, code := run(t, "call", "list_roots", "--root", filepath.Join(a, "missing")); code == 0 || !strings.Contains(errOut, "mcpkit: --root") {
		t.Errorf("missing root: stderr %q exit %d", errOut, code)
	}
}

// Sampling is refused with a message saying why, in both eras.
func TestSamplingIsRefusedClearly(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"call", "sample", `{"prompt":"hi"}`}, era.args...)...)
			if code == 0 || !strings.Contains(errOut, "no language model is configured") || !strings.Contains(errOut, "sampling refused") {
				t.Errorf("stdout %q stderr %q exit %d", out, errOut, code)
			}
		})
	}
}
