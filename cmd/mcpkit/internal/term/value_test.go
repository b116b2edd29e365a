package term

import (
	"errors"
	"strings"
	"testing"
)

func TestAskValue(t *testing.T) {
	for _, c := range []struct {
		name, input string
		q           Question
		want        string
		ok          bool
		err         error
	}{
		{"typed", "abc\n", Question{Label: "x"}, "abc", true, nil},
		{"default on Enter", "\n", Question{Label: "x", Default: "d"}, "d", true, nil},
		{"optional skipped", "\n", Question{Label: "x"}, "", false, nil},
		{"required asked again", "\n\nv\n", Question{Label: "x", Required: true}, "v", true, nil},
		{"choice asked again", "purple\nred\n", Question{Label: "x", Choices: []string{"red", "blue"}}, "red", true, nil},
		{"end of input, required", "", Question{Label: "x", Required: true}, "", false, ErrNoAnswer},
		{"end of input, default", "", Question{Label: "x", Default: "d"}, "d", true, nil},
		{"last line without newline", "tail", Question{Label: "x"}, "tail", true, nil},
		{"CRLF", "v\r\n", Question{Label: "x"}, "v", true, nil},
	} {
		var out strings.Builder
		got, ok, err := AskValue(strings.NewReader(c.input), &out, c.q, nil)
		if got != c.want || ok != c.ok || !errors.Is(err, c.err) {
			t.Errorf("%s: got %q %v %v, want %q %v %v\n%s", c.name, got, ok, err, c.want, c.ok, c.err, out.String())
		}
	}
}

// A secret is read with the secret reader, never from the line input, and
// never written out; descriptions from the server are escaped.
func TestAskValueSecretAndEscapes(t *testing.T) {
	var out strings.Builder
	in := strings.NewReader("not this\n")
	got, ok, err := AskValue(in, &out, Question{Label: "TOKEN", For: "environment variable", Description: "the \x1b[31mtoken", Secret: true, Required: true},
		func(prompt string) (string, error) {
			out.WriteString(prompt)
			return "s3cret", nil
		})
	if err != nil || !ok || got != "s3cret" {
		t.Fatalf("got %q %v %v", got, ok, err)
	}
	if !strings.Contains(out.String(), "TOKEN: ") || strings.Contains(out.String(), "s3cret") || strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), `\x1b[31mtoken`) {
		t.Fatalf("output %q", out.String())
	}
	if in.Len() != len("not this\n") {
		t.Fatal("the line input was read for a secret")
	}
}
