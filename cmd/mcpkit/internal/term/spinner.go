package term

import (
	"io"
	"sync"
	"time"
)

// spinnerFrames are the spinner's pictures, one per tick.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Spinner draws a turning mark and a label on the current line of a terminal
// while something runs (a tool call), and clears the line when it stops or
// pauses (for a prompt). A nil *Spinner does nothing, so that a caller
// without a terminal keeps the same code.
type Spinner struct {
	w io.Writer

	mu     sync.Mutex
	label  string
	frame  int
	paused int           // Pause calls not yet resumed
	shown  bool          // the line holds a frame
	stop   chan struct{} // closed by Stop; nil when not spinning
	done   chan struct{} // closed when the ticking goroutine ends
}

// NewSpinner returns a spinner that draws on w (a terminal: standard error).
func NewSpinner(w io.Writer) *Spinner { return &Spinner{w: w} }

// Start shows label with the spinner, or changes the label of a spinner
// already turning.
func (s *Spinner) Start(label string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.label = label
	if s.stop != nil {
		s.drawLocked()
		return
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	s.drawLocked()
	go s.tick(s.stop, s.done)
}

func (s *Spinner) tick(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.frame = (s.frame + 1) % len(spinnerFrames)
			s.drawLocked()
			s.mu.Unlock()
		}
	}
}

// drawLocked writes the current frame over the line, unless paused.
func (s *Spinner) drawLocked() {
	if s.paused > 0 {
		return
	}
	_, _ = io.WriteString(s.w, "\r\x1b[K"+spinnerFrames[s.frame]+" "+s.label)
	s.shown = true
}

// clearLocked erases the spinner's line.
func (s *Spinner) clearLocked() {
	if s.shown {
		_, _ = io.WriteString(s.w, "\r\x1b[K")
		s.shown = false
	}
}

// Stop ends the spinner and clears its line; it returns once nothing more
// will be drawn.
func (s *Spinner) Stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.stop, s.done = nil, nil
	s.clearLocked()
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
		s.mu.Lock()
		s.clearLocked() // a tick that drew after the clear above
		s.mu.Unlock()
	}
}

// Pause clears the line and draws nothing until the matching Resume, for
// other output (a prompt, a line of the transcript).
func (s *Spinner) Pause() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused++
	s.clearLocked()
}

// Resume ends a Pause; a spinner still turning shows again.
func (s *Spinner) Resume() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paused > 0 {
		s.paused--
	}
	if s.stop != nil {
		s.drawLocked()
	}
}
