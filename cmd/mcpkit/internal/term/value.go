package term

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Question is one value to ask for (`mcpkit config add`): a server's
// environment variable, header or argument.
type Question struct {
	Label       string // what to call it: "API_KEY", "Authorization"
	For         string // what it is used for: `header "Authorization"`
	Description string
	Default     string
	Choices     []string
	Required    bool
	// Secret values are read with ReadSecret, never echoed.
	Secret bool
}

// ErrNoAnswer is returned by AskValue when the input ends before a required
// value is given.
var ErrNoAnswer = errors.New("no answer")

// AskValue asks q on w and reads the answer from in, one byte at a time so
// that nothing after the line is consumed (a secret may be read next from the
// same terminal). Enter alone takes the default, or leaves an optional value
// out (ok false); an answer that is not one of the choices is asked again. A
// secret is read with readSecret (a terminal's no-echo read) when it is not nil;
// readSecret prints the prompt itself, after it has turned echo off, so that
// nothing typed after the prompt appears.
func AskValue(in io.Reader, w io.Writer, q Question, readSecret func(prompt string) (string, error)) (value string, ok bool, err error) {
	fmt.Fprintf(w, "%s — %s", q.Label, q.For)
	if q.Description != "" {
		fmt.Fprintf(w, ": %s", Escape(q.Description))
	}
	var notes []string
	if q.Required {
		notes = append(notes, "required")
	}
	if q.Secret {
		notes = append(notes, "secret, not shown")
	}
	if q.Default != "" {
		notes = append(notes, "default "+Escape(q.Default))
	}
	if len(q.Choices) > 0 {
		notes = append(notes, "one of "+Escape(strings.Join(q.Choices, ", ")))
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(notes, "; "))
	}
	fmt.Fprintln(w)
	for {
		prompt := q.Label + ": "
		var line string
		var err error
		if q.Secret && readSecret != nil {
			line, err = readSecret(prompt)
			fmt.Fprintln(w)
		} else {
			fmt.Fprint(w, prompt)
			line, err = readLine(in)
		}
		line = strings.TrimSpace(line)
		if err == io.EOF && line == "" {
			fmt.Fprintln(w)
			if q.Default != "" {
				return q.Default, true, nil
			}
			if q.Required {
				return "", false, fmt.Errorf("%s: %w", q.Label, ErrNoAnswer)
			}
			return "", false, nil
		}
		if err != nil && err != io.EOF {
			return "", false, err
		}
		switch {
		case line == "" && q.Default != "":
			return q.Default, true, nil
		case line == "" && q.Required:
			fmt.Fprintln(w, "  this value is required")
			continue
		case line == "":
			return "", false, nil
		case len(q.Choices) > 0 && !slices.Contains(q.Choices, line):
			fmt.Fprintf(w, "  want one of %s; try again\n", Escape(strings.Join(q.Choices, ", ")))
			continue
		}
		return line, true, nil
	}
}

// readLine reads up to a newline, a byte at a time.
func readLine(r io.Reader) (string, error) {
	var b []byte
	var c [1]byte
	for len(b) < 1<<16 {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return strings.TrimSuffix(string(b), "\r"), nil
			}
			b = append(b, c[0])
		}
		if err != nil {
			return string(b), err
		}
	}
	return string(b), errors.New("line too long")
}

// Escape makes a peer's text safe to print on a terminal: control characters
// (escape sequences included) are written as Go escapes.
func Escape(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := fmt.Sprintf("%q", string(r))
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
