package tap

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// StdioOptions configures a stdio tap.
type StdioOptions struct {
	// Command and Args are the server to run; Env (nil: the tap's own) and Dir
	// its environment and working directory.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// Stdin, Stdout and Stderr are the client's side: what the tap reads the
	// client's messages from and writes the server's output to.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Recorder receives the records; nil records nothing.
	Recorder *capture.Recorder
	// Signals are forwarded to the server (its process group) as they arrive.
	Signals <-chan os.Signal
	// MaxMessage bounds what is kept of one message for the capture (default
	// DefaultMaxMessage); the relay carries all of it.
	MaxMessage int
	// DrainTimeout bounds how long, after the server exited, the tap waits for
	// the server's output pipes to close (a child of the server may keep them
	// open). Default 2s.
	DrainTimeout time.Duration
	// KillDelay is how long the server has to exit after ctx is done and it was
	// sent SIGTERM, before it is killed. Default 5s.
	KillDelay time.Duration
}

// RunStdio runs a server and relays its standard input, output and error to and
// from opts' streams byte for byte, recording every line (every message) in both
// directions and every line of standard error. It returns when the server has
// exited and its output has been relayed, with the server's exit status, or
// 128+N when signal N ended it, as a shell reports it. When ctx is done the server
// is asked to stop (SIGTERM), then killed.
func RunStdio(ctx context.Context, opts StdioOptions) (int, error) {
	if opts.Command == "" {
		return 0, ErrNoCommand
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 2 * time.Second
	}
	if opts.KillDelay <= 0 {
		opts.KillDelay = 5 * time.Second
	}
	cmd := exec.Command(opts.Command, opts.Args...)
	cmd.Env, cmd.Dir = opts.Env, opts.Dir
	group := ownProcessGroup(cmd)

	childIn, toChild, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		closeAll(childIn, toChild)
		return 0, err
	}
	errFromChild, childErr, err := os.Pipe()
	if err != nil {
		closeAll(childIn, toChild, fromChild, childOut)
		return 0, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, childErr
	if err := cmd.Start(); err != nil {
		closeAll(childIn, toChild, fromChild, childOut, errFromChild, childErr)
		return 0, err
	}
	closeAll(childIn, childOut, childErr) // the child's ends: the child has them

	t := &stdioTap{opts: opts}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); t.pump(opts.Stdout, fromChild, capture.ServerToClient) }()
	go func() { defer wg.Done(); t.pump(opts.Stderr, errFromChild, capture.KindStderr) }()
	in := pollableInput(opts.Stdin)
	inDone := make(chan struct{})
	go func() {
		defer close(inDone)
		t.pump(toChild, in, capture.ClientToServer)
		_ = toChild.Close() // the client's EOF (or the child gone) ends the server's input
	}()

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	stopping := ctx.Done()
	var kill <-chan time.Time
wait:
	for {
		select {
		case waitErr = <-exited:
			break wait
		case sig := <-opts.Signals:
			t.record(&capture.Record{Kind: capture.KindSignal, Transport: capture.TransportStdio, Session: stdioSession, Signal: signalName(sig)})
			_ = signalGroup(cmd.Process, group, sig)
		case <-stopping:
			stopping = nil
			_ = terminateGroup(cmd.Process, group)
			timer := time.NewTimer(opts.KillDelay)
			defer timer.Stop()
			kill = timer.C
		case <-kill:
			_ = killGroup(cmd.Process, group)
		}
	}
	// The server is gone: relay what it left in its pipes, then stop.
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(opts.DrainTimeout):
		// Something the server started holds its output open: stop relaying it.
		_ = fromChild.Close()
		_ = errFromChild.Close()
		<-drained
	}
	closeAll(fromChild, errFromChild)
	// The client's input has nowhere to go now. Interrupt the read if the input
	// allows it; otherwise the pump ends at its next read.
	if interruptRead(in) {
		<-inDone
	}

	code := exitCode(cmd.ProcessState)
	r := &capture.Record{Kind: capture.KindExit, Transport: capture.TransportStdio, Session: stdioSession, ExitCode: &code}
	if sig := exitSignal(cmd.ProcessState); sig != "" {
		r.Signal = sig
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		r.Text = waitErr.Error()
	}
	t.record(r)
	return code, nil
}

// stdioSession is the session of every stdio record: one connection, one session.
const stdioSession = "stdio"

type stdioTap struct {
	opts StdioOptions
}

func (t *stdioTap) record(r *capture.Record) {
	if t.opts.Recorder != nil {
		t.opts.Recorder.Record(r)
	}
}

// pump copies src to dst as bytes arrive (a partial line goes out at once),
// recording each complete line before it is relayed: as a message in direction what, or as a stderr
// line. A failing dst does not stop the reading (what the server writes is still
// recorded, and it is not blocked on a full pipe); src's end does.
func (t *stdioTap) pump(dst io.Writer, src io.Reader, what string) {
	buf := make([]byte, 64<<10)
	lines := lineSplitter{max: t.opts.MaxMessage, emit: func(line []byte, size int64, truncated bool) { t.line(what, line, size, truncated) }}
	writeOK := true
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// Record before relaying: once the bytes are out, the other side may
			// answer, and its answer must not get an earlier seq than what caused it.
			// Recording only queues; it never waits for the disk.
			if t.opts.Recorder != nil {
				lines.feed(buf[:n])
			}
			if writeOK {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					writeOK = false
				}
			}
		}
		if err != nil {
			if t.opts.Recorder != nil {
				lines.flush()
			}
			return
		}
	}
}

// line records one line of the server's or the client's stream.
func (t *stdioTap) line(what string, line []byte, size int64, truncated bool) {
	if what == capture.KindStderr {
		t.record(&capture.Record{Kind: capture.KindStderr, Transport: capture.TransportStdio, Session: stdioSession,
			Text: string(bytes.TrimRight(line, "\r")), Size: size, Truncated: truncated})
		return
	}
	if len(bytes.TrimSpace(line)) == 0 && !truncated {
		return // a blank line carries no message
	}
	t.record(&capture.Record{Dir: what, Transport: capture.TransportStdio, Session: stdioSession, Msg: line, Size: size, Truncated: truncated})
}

// lineSplitter cuts a stream into lines (LF-terminated) of any length, keeping at
// most max bytes of each.
type lineSplitter struct {
	max       int
	emit      func(line []byte, size int64, truncated bool) // line is owned by the callee
	partial   []byte
	size      int64 // bytes of the partial line so far
	truncated bool
}

func (s *lineSplitter) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			return
		}
		if s.size == 0 && i <= s.max {
			s.emit(bytes.Clone(p[:i]), int64(i), false) // the whole line is here
		} else {
			s.add(p[:i])
			s.emit(s.partial, s.size, s.truncated)
			s.partial, s.size, s.truncated = nil, 0, false
		}
		p = p[i+1:]
	}
}

func (s *lineSplitter) add(p []byte) {
	s.size += int64(len(p))
	if room := s.max - len(s.partial); room > 0 {
		s.partial = append(s.partial, p[:min(room, len(p))]...)
	}
	if s.size > int64(s.max) {
		s.truncated = true
	}
}

// flush emits a last line that had no line end.
func (s *lineSplitter) flush() {
	if s.size > 0 {
		s.emit(s.partial, s.size, s.truncated)
		s.partial, s.size, s.truncated = nil, 0, false
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// exitCode is a process's exit status as a shell reports it: 128+N for signal N.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if sig := signalNumber(ps); sig > 0 {
		return 128 + sig
	}
	return ps.ExitCode()
}

// ErrNoCommand is returned by RunStdio without a command.
var ErrNoCommand = errors.New("tap: no server command")
