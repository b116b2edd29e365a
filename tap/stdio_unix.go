//go:build unix

package tap

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ownProcessGroup starts the server as the leader of its own process group, so
// that a signal the tap forwards reaches the processes it started too (a server
// run through npx or a shell script), and a terminal's Ctrl-C, which reaches the
// tap's group, is delivered to the server once, by the tap.
func ownProcessGroup(cmd *exec.Cmd) bool {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return true
}

// signalGroup sends sig to the server's process group (or to the server alone).
func signalGroup(p *os.Process, group bool, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return p.Signal(sig)
	}
	if group {
		if err := syscall.Kill(-p.Pid, s); err == nil || !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	err := p.Signal(s)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

func terminateGroup(p *os.Process, group bool) error { return signalGroup(p, group, syscall.SIGTERM) }

func killGroup(p *os.Process, group bool) error { return signalGroup(p, group, syscall.SIGKILL) }

// signalNumber returns the signal that ended a process, or 0.
func signalNumber(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

// exitSignal names the signal that ended a process, or returns "".
func exitSignal(ps *os.ProcessState) string {
	if n := signalNumber(ps); n > 0 {
		return signalName(syscall.Signal(n))
	}
	return ""
}

// signalName returns a signal's conventional name (SIGTERM).
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	}
	return sig.String()
}

// pollableInput returns, for the process's standard input when it is a pipe in
// blocking mode (as a host starts a server), a File on the same descriptor that
// waits in the runtime's poller: each message then costs no thread hand-off, and
// the read can be interrupted (interruptRead) when the server has exited. Other
// readers are returned unchanged.
func pollableInput(in io.Reader) io.Reader {
	f, ok := in.(*os.File)
	if !ok || f != os.Stdin {
		return in
	}
	stdinPoll.once.Do(func() { stdinPoll.f = switchToPoller(f) })
	if stdinPoll.f == nil {
		return in
	}
	return stdinPoll.f
}

// stdinPoll is the pollable standard input, made once and never closed: it shares
// the descriptor of os.Stdin, which lives as long as the process.
var stdinPoll struct {
	once sync.Once
	f    *os.File
}

func switchToPoller(f *os.File) *os.File {
	if f.SetReadDeadline(time.Time{}) == nil {
		return nil // already pollable
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil // a terminal or a file: leave it alone
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var fd uintptr
	var nbErr error
	if err := raw.Control(func(d uintptr) { fd, nbErr = d, syscall.SetNonblock(int(d), true) }); err != nil || nbErr != nil {
		return nil
	}
	p := os.NewFile(fd, f.Name()) // non-blocking: the poller takes it
	if p.SetReadDeadline(time.Time{}) != nil {
		_ = syscall.SetNonblock(int(fd), false)
		return nil
	}
	return p
}

// interruptRead makes a pending and every later Read of in return at once, if in
// supports deadlines; it reports whether it could.
func interruptRead(in io.Reader) bool {
	f, ok := in.(interface{ SetReadDeadline(time.Time) error })
	return ok && f.SetReadDeadline(time.Now()) == nil
}

// NotifySignals arranges for the signals a stdio tap forwards to its server
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT) to be delivered on the returned channel
// instead of ending the tap, and for a write to a closed standard output to fail
// with an error rather than kill the tap (SIGPIPE), so that the tap outlives its
// client long enough to stop the server and finish the capture. stop undoes it.
func NotifySignals() (signals <-chan os.Signal, stop func()) {
	c := make(chan os.Signal, 8)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return c, func() { signal.Stop(c); signal.Stop(pipe) }
}
