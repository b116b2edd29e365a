package term

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/protocol"
)

// LineReader hands out the lines of an input (the terminal) one prompt at a time.
// Its goroutine, started at the first prompt, reads until the input ends: a read
// from a terminal cannot be interrupted, so a prompt that gives up (its context
// ended) leaves the goroutine waiting for the next line, which the next prompt
// gets; for os.Stdin the goroutine ends with the process.
type LineReader struct {
	r     *bufio.Reader
	start sync.Once
	lines chan string
	err   error // why the input ended; read only after lines is closed
}

// NewLineReader returns a LineReader of r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReader(r), lines: make(chan string)}
}

func (l *LineReader) loop() {
	defer close(l.lines)
	for {
		s, err := l.r.ReadString('\n')
		if err == nil || s != "" {
			l.lines <- strings.TrimRight(s, "\r\n")
		}
		if err != nil {
			l.err = err
			return
		}
	}
}

// ReadLine returns the next line, io.EOF once the input has ended (Ctrl-D on a
// terminal), or ctx's error.
func (l *LineReader) ReadLine(ctx context.Context) (string, error) {
	l.start.Do(func() { go l.loop() })
	select {
	case s, ok := <-l.lines:
		if !ok {
			return "", l.err
		}
		return s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// The words that end a form early, typed instead of a field's answer.
const (
	wordDecline = "!decline"
	wordCancel  = "!cancel"
)

// AskForm asks the user for each field of a form on w, reading the answers from
// in. Enter alone takes a field's default, or leaves an optional field out;
// !decline declines, and !cancel or the end of the input cancels. An answer that
// does not fit the field is asked again.
func AskForm(ctx context.Context, in *LineReader, w io.Writer, message string, fields []Field) (*protocol.ElicitResult, error) {
	fmt.Fprintf(w, "mcpkit: the server asks: %s\n", message)
	fmt.Fprintf(w, "  (Enter alone takes the default or skips an optional field; %s declines, %s or Ctrl-D cancels)\n", wordDecline, wordCancel)
	content := make(map[string]any, len(fields))
	for i := range fields {
		f := &fields[i]
		describeField(w, f)
		for {
			fmt.Fprintf(w, "%s: ", f.name)
			line, err := in.ReadLine(ctx)
			if err == io.EOF {
				fmt.Fprintln(w)
				return &protocol.ElicitResult{Action: protocol.ElicitActionCancel}, nil
			}
			if err != nil {
				return nil, err
			}
			line = strings.TrimSpace(line)
			switch line {
			case wordDecline:
				return &protocol.ElicitResult{Action: protocol.ElicitActionDecline}, nil
			case wordCancel:
				return &protocol.ElicitResult{Action: protocol.ElicitActionCancel}, nil
			case "":
				if f.def != nil {
					content[f.name] = f.def
				} else if f.required {
					fmt.Fprintln(w, "  this field is required")
					continue
				}
			default:
				v, err := f.parseInput(line)
				if err != nil {
					fmt.Fprintf(w, "  %v; try again\n", err)
					continue
				}
				content[f.name] = v
			}
			break
		}
	}
	return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: content}, nil
}

// describeField writes what a field wants: its title and description, the kind
// of value, whether it is required, its default, and its options.
func describeField(w io.Writer, f *Field) {
	var b strings.Builder
	b.WriteString(f.name)
	if f.title != "" && f.title != f.name {
		fmt.Fprintf(&b, " — %s", f.title)
	}
	if f.description != "" {
		fmt.Fprintf(&b, " — %s", f.description)
	}
	notes := []string{kindHint(f)}
	if f.required {
		notes = append(notes, "required")
	} else {
		notes = append(notes, "optional")
	}
	if f.def != nil {
		notes = append(notes, fmt.Sprintf("default %v", f.def))
	}
	fmt.Fprintf(&b, " (%s)\n", strings.Join(notes, ", "))
	for i, o := range f.options {
		if o.title != "" && o.title != o.value {
			fmt.Fprintf(&b, "    %d) %s [%s]\n", i+1, o.title, o.value)
		} else {
			fmt.Fprintf(&b, "    %d) %s\n", i+1, o.value)
		}
	}
	_, _ = io.WriteString(w, b.String())
}

// kindHint says what kind of answer a field takes.
func kindHint(f *Field) string {
	bounds := func(kind string) string {
		switch {
		case f.minimum != nil && f.maximum != nil:
			return fmt.Sprintf("%s from %g to %g", kind, *f.minimum, *f.maximum)
		case f.minimum != nil:
			return fmt.Sprintf("%s, at least %g", kind, *f.minimum)
		case f.maximum != nil:
			return fmt.Sprintf("%s, at most %g", kind, *f.maximum)
		}
		return kind
	}
	switch f.kind {
	case kindNumber:
		return bounds("a number")
	case kindInteger:
		return bounds("a whole number")
	case kindBoolean:
		return "yes or no"
	case kindChoice:
		return "one of the numbers or values below"
	case kindChoices:
		return "any of the numbers or values below, separated by commas"
	}
	if f.format != "" {
		return "text, " + formatHint(f.format)
	}
	return "text"
}
