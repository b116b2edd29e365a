package stdio

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"
)

const (
	// stderrLineMax is the longest stderr line passed on in one piece; longer lines
	// arrive in pieces of this size.
	stderrLineMax = 4 << 10
	// stderrTailLines and stderrTailLineMax bound the stderr kept for ExitError.
	stderrTailLines   = 10
	stderrTailLineMax = 512
)

// drainStderr reads r line by line until it ends, passing every line (without its
// line ending) to emit and remembering the last non-blank ones in tail. Reading never
// stops early: a child whose stderr pipe fills up blocks.
func drainStderr(r io.Reader, emit func(line string), tail *stderrTail) {
	br := bufio.NewReaderSize(r, stderrLineMax)
	split := false // the previous piece filled the buffer without ending the line
	for {
		chunk, err := br.ReadSlice('\n')
		content := trimEOL(chunk)
		// After a line split exactly at the buffer size, the rest may be only its
		// line ending: that is not a line of its own.
		if len(chunk) > 0 && !(split && len(content) == 0) {
			line := string(content)
			emit(line)
			tail.add(line)
		}
		split = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !split {
			return
		}
	}
}

// stderrTail is a ring of the last few non-blank stderr lines.
type stderrTail struct {
	mu    sync.Mutex
	lines [stderrTailLines]string
	next  int // index the next line goes to
	count int
}

func (t *stderrTail) add(line string) {
	if strings.TrimLeft(line, " \t\r") == "" {
		return
	}
	if len(line) > stderrTailLineMax {
		line = line[:stderrTailLineMax] + "…"
	}
	t.mu.Lock()
	t.lines[t.next] = line
	t.next = (t.next + 1) % len(t.lines)
	t.count = min(t.count+1, len(t.lines))
	t.mu.Unlock()
}

// snapshot returns the remembered lines, oldest first.
func (t *stderrTail) snapshot() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, t.count)
	start := (t.next - t.count + len(t.lines)) % len(t.lines)
	for i := range t.count {
		out = append(out, t.lines[(start+i)%len(t.lines)])
	}
	return out
}
