package term

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Ask prints question on w and reads the answer from in, trimmed and
// lower-cased; the end of the input answers "".
func Ask(ctx context.Context, in *LineReader, w io.Writer, question string) (string, error) {
	fmt.Fprint(w, question)
	line, err := in.ReadLine(ctx)
	if err == io.EOF {
		fmt.Fprintln(w)
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.ToLower(strings.TrimSpace(line)), nil
}

// Approvals asks y/n/a questions ("[y]es, [n]o, [a]lways"), remembering the
// keys answered "always" for the rest of the session. The zero value is
// ready; it is not safe for concurrent use (a terminal holds one prompt at a
// time: callers hold their own lock).
type Approvals struct {
	always map[string]bool
}

// Ask approves key at once when it was answered "always" before; else it asks
// question on w, reading the answer from in: y or yes approve, a or always
// approve key from now on, anything else (and the end of the input) refuses.
func (a *Approvals) Ask(ctx context.Context, in *LineReader, w io.Writer, key, question string) (bool, error) {
	if a.always[key] {
		return true, nil
	}
	answer, err := Ask(ctx, in, w, question)
	switch answer {
	case "a", "always":
		if a.always == nil {
			a.always = map[string]bool{}
		}
		a.always[key] = true
		return true, err
	case "y", "yes":
		return true, err
	}
	return false, err
}

// Always reports whether key was answered "always".
func (a *Approvals) Always(key string) bool { return a.always[key] }
