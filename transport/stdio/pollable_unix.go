//go:build unix

package stdio

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// pollableInput returns a reader for in that waits for input in the runtime's
// network poller rather than in a blocking read(2), when in is the process's
// standard input and that is a pipe opened in blocking mode (as it is when a
// client starts a server). A blocking read parks an OS thread: each message then
// wakes that thread and hands the work to another, which on a busy or single core
// costs tens of microseconds per message — most of a round trip's latency.
// Through the poller the reading goroutine is woken on the thread that runs the
// rest.
//
// Only standard input, and only a pipe: the pipe's read end is this process's
// own, so its mode matters to nobody else (a terminal, by contrast, is shared
// with the shell), and standard input lives as long as the process, so the
// pollable File made for it — kept here, never closed — cannot outlive its
// descriptor. Anything else is returned as it is.
func pollableInput(in io.Reader) io.Reader {
	if f, ok := in.(*os.File); !ok || f != os.Stdin {
		return in
	}
	stdinOnce.Do(func() { pollableStdin = makePollable(os.Stdin) })
	if pollableStdin == nil {
		return in
	}
	return pollableStdin
}

var (
	stdinOnce     sync.Once
	pollableStdin *os.File // nil when standard input cannot or need not be switched
)

// makePollable returns a pollable File sharing f's descriptor, or nil.
func makePollable(f *os.File) *os.File {
	if f.SetReadDeadline(time.Time{}) == nil {
		return nil // already in the poller
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var fd uintptr
	var setErr error
	if err := rc.Control(func(d uintptr) {
		fd = d
		setErr = syscall.SetNonblock(int(d), true)
	}); err != nil || setErr != nil {
		return nil
	}
	// A descriptor in non-blocking mode makes os.NewFile return a pollable File.
	p := os.NewFile(fd, f.Name())
	if p.SetReadDeadline(time.Time{}) != nil {
		// The poller refused it: put the descriptor back as it was.
		_ = syscall.SetNonblock(int(fd), false)
		return nil
	}
	return p
}
