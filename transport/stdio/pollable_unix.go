//go:build unix

package stdio

import (
	"io"
	"os"
	"syscall"
	"time"
)

// pollableInput returns a reader for in that waits for input in the runtime's
// network poller rather than in a blocking read(2), when in is an *os.File on a
// pipe opened in blocking mode (as a server's standard input is when a client
// starts it). A blocking read parks an OS thread: each message then wakes that
// thread and hands the work to another, which on a busy or single core costs tens
// of microseconds per message — most of a round trip's latency. Through the
// poller the reading goroutine is woken on the thread that runs the rest.
//
// Only pipes are switched: their read end belongs to this process alone, so
// making it non-blocking changes nothing for anyone else (a terminal, by
// contrast, is shared with the shell). Anything else is returned as it is.
func pollableInput(in io.Reader) io.Reader {
	f, ok := in.(*os.File)
	if !ok {
		return in
	}
	if f.SetReadDeadline(time.Time{}) == nil {
		return in // already in the poller (os.Pipe makes such files)
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return in
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return in
	}
	var fd uintptr
	var setErr error
	if err := rc.Control(func(d uintptr) {
		fd = d
		setErr = syscall.SetNonblock(int(d), true)
	}); err != nil || setErr != nil {
		return in
	}
	// A descriptor in non-blocking mode makes os.NewFile return a pollable File.
	// It shares the descriptor with f: closing either closes both, as closing f
	// alone would have.
	return os.NewFile(fd, f.Name())
}
