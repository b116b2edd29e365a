package stdio

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// Default timeouts of CommandConn.Close.
const (
	DefaultCloseTimeout = 2 * time.Second
	DefaultTermTimeout  = 2 * time.Second
)

// CommandOptions configures [NewCommandConn]. The zero value (and nil) is usable.
type CommandOptions struct {
	// MaxMessageSize is the longest line, in bytes without its line ending, that Read
	// accepts from the server. Zero or less means
	// transport.DefaultClientMaxMessageSize (32 MiB).
	MaxMessageSize int

	// Stderr receives each line the server writes to its standard error, without the
	// line ending; lines over 4 KiB arrive in pieces. It is called from one goroutine,
	// in order, and must not block for long: the server stalls when its stderr pipe
	// fills up. Nil means logging each non-blank line to Logger at debug level.
	Stderr func(line string)

	// Logger receives the server's stderr when Stderr is nil, and notes on how Close
	// stopped the server. Nil means slog.Default().
	Logger *slog.Logger

	// CloseTimeout is how long Close waits for the server to exit after closing its
	// standard input, before sending SIGTERM. Zero or less means DefaultCloseTimeout.
	CloseTimeout time.Duration

	// TermTimeout is how long Close waits after SIGTERM before sending SIGKILL, and
	// then after SIGKILL before giving up. Zero or less means DefaultTermTimeout.
	TermTimeout time.Duration
}

// CommandConn is the client end of a stdio connection: it runs an MCP server as a
// subprocess and exchanges messages over the subprocess's standard input and output.
// It implements [transport.Conn] (and [transport.EndpointConn]: the command line).
//
// On systems with process groups the server starts as the leader of a new group, and
// every signal goes to the whole group, so that processes it started (npx starting
// node, a shell script starting python) stop with it. When the server exits, whatever
// is left in its group is killed.
type CommandConn struct {
	lines *lineConn
	cmd   *exec.Cmd
	pid   int
	group bool // signals go to the process group
	log   *slog.Logger

	closeTimeout time.Duration
	termTimeout  time.Duration

	stdin  *os.File // our ends of the three pipes
	stdout *os.File
	stderr *os.File

	exited  chan struct{} // closed once the process has been waited for
	waitErr error         // from cmd.Wait; set before exited is closed

	stderrDone chan struct{} // closed when stderr has been read to its end
	tail       stderrTail

	outputEnd error // final Read result once the output ended; used by Read only

	signalled atomic.Bool // Close had to signal the process
	closeOnce sync.Once
	closeErr  error
}

var _ transport.Conn = (*CommandConn)(nil)

// NewCommandConn starts cmd and returns a connection to it. cmd must not have been
// started and must leave Stdin, Stdout and Stderr nil: the connection owns all three.
// Do not call cmd.Wait: the connection waits for the process itself.
//
// ctx is checked before the start; cancelling it later has no effect. Call Close to
// stop the server; callers must call it eventually, even after Read has reported that
// the server exited. (A cmd built with exec.CommandContext is also killed when its
// context ends, and the connection then reports the exit like any other.)
func NewCommandConn(ctx context.Context, cmd *exec.Cmd, opts *CommandOptions) (*CommandConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stdio: starting %s: %w", cmd.Path, err)
	}
	if cmd.Process != nil {
		return nil, fmt.Errorf("stdio: starting %s: command already started", cmd.Path)
	}
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, fmt.Errorf("stdio: starting %s: Stdin, Stdout and Stderr must be nil", cmd.Path)
	}
	var o CommandOptions
	if opts != nil {
		o = *opts
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	if o.TermTimeout <= 0 {
		o.TermTimeout = DefaultTermTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}

	// os.Pipe rather than cmd.StdoutPipe: cmd.Wait closes the pipes it creates, which
	// could lose the last messages of a server that exits right after writing them.
	var files []*os.File // every end, closed on failure
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	stdinR, stdinW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: starting %s: %w", cmd.Path, err)
	}
	stdoutR, stdoutW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdio: starting %s: %w", cmd.Path, err)
	}
	stderrR, stderrW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdio: starting %s: %w", cmd.Path, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	group := useProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		closeAll()
		var ee *exec.Error // it names the program already: say it once
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("stdio: cannot start the server: %w", err)
		}
		return nil, fmt.Errorf("stdio: starting %s: %w", cmd.Path, err)
	}
	// The child has its own copies now; ours would keep its input open and hide the
	// end of its output.
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()

	c := &CommandConn{
		lines:        newLineConn(stdoutR, stdinW, cmp.Or(max(o.MaxMessageSize, 0), transport.DefaultClientMaxMessageSize), true),
		cmd:          cmd,
		pid:          cmd.Process.Pid,
		group:        group,
		log:          o.Logger.With("pid", cmd.Process.Pid),
		closeTimeout: o.CloseTimeout,
		termTimeout:  o.TermTimeout,
		stdin:        stdinW,
		stdout:       stdoutR,
		stderr:       stderrR,
		exited:       make(chan struct{}),
		stderrDone:   make(chan struct{}),
	}
	emit := o.Stderr
	if emit == nil {
		emit = func(line string) {
			if strings.TrimLeft(line, " \t\r") != "" {
				c.log.Debug("stdio: server stderr", "line", line)
			}
		}
	}
	go c.wait()
	go func() {
		defer close(c.stderrDone)
		drainStderr(stderrR, emit, &c.tail)
	}()
	return c, nil
}

// wait reaps the process, then kills what it left in its group.
func (c *CommandConn) wait() {
	err := c.cmd.Wait()
	if c.group {
		killGroupLeftovers(c.pid)
	}
	c.waitErr = err
	close(c.exited)
}

// Pid returns the process id of the server.
func (c *CommandConn) Pid() int { return c.pid }

// Exited returns a channel that is closed once the server process has exited.
func (c *CommandConn) Exited() <-chan struct{} { return c.exited }

// ProcessState returns how the server exited, or nil while it is running.
func (c *CommandConn) ProcessState() *os.ProcessState {
	select {
	case <-c.exited:
		return c.cmd.ProcessState
	default:
		return nil
	}
}

// Read returns the next message from the server, a slice the caller owns. An error
// wrapping jsonrpc.ErrMessageTooLarge means one oversized line was dropped and
// reading goes on. When the server's output ends, Read returns an *ExitError with
// the exit status and the last lines of its stderr once the server has exited; for
// status 0 it wraps io.EOF, the stream having ended cleanly. It returns io.EOF itself
// if the server is still running, having closed its output. After Close, Read
// returns io.EOF.
func (c *CommandConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := c.lines.read(ctx)
	switch {
	case err == nil, errors.Is(err, jsonrpc.ErrMessageTooLarge):
		return msg, err
	case errors.Is(err, errClosedLocally):
		return nil, io.EOF
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, err
	}
	return nil, c.endOfOutput(ctx, err)
}

// endOfOutput decides what Read reports once the server's output has ended with
// outputErr: it waits, at most CloseTimeout, for the process to exit and for its last
// stderr lines.
func (c *CommandConn) endOfOutput(ctx context.Context, outputErr error) error {
	if c.outputEnd != nil {
		return c.outputEnd
	}
	timer := time.NewTimer(c.closeTimeout)
	defer timer.Stop()
	switch err := c.awaitExit(ctx, timer); {
	case errors.Is(err, errStillRunning):
		c.outputEnd = outputErr // it closed its output but keeps running
		return outputErr
	case err != nil:
		return err
	}
	if c.waitErr == nil && outputErr != io.EOF {
		c.outputEnd = outputErr // a read error says more than the clean exit after it
		return outputErr
	}
	c.outputEnd = c.exitError(ctx, timer)
	return c.outputEnd
}

// errStillRunning is awaitExit's answer when the process outlives the wait.
var errStillRunning = errors.New("stdio: the server is still running")

// awaitExit waits until the process has exited (nil), timer fires
// (errStillRunning), Close is called (io.EOF) or ctx ends (its error).
func (c *CommandConn) awaitExit(ctx context.Context, timer *time.Timer) error {
	select {
	case <-c.exited:
		return nil
	case <-timer.C:
		return errStillRunning
	case <-c.lines.closed:
		return io.EOF
	case <-ctx.Done():
		return ctx.Err()
	}
}

// exitError describes the exit of a process that has exited, with its last stderr
// lines, waiting for them until timer fires or ctx ends.
func (c *CommandConn) exitError(ctx context.Context, timer *time.Timer) *ExitError {
	select {
	case <-c.stderrDone:
	case <-timer.C:
	case <-ctx.Done():
	}
	return &ExitError{Err: c.waitErr, Stderr: c.tail.snapshot()}
}

// Write sends msg to the server followed by a newline, in one write, which Writes
// made at the same moment share (their lines in order). It rejects a message that
// contains a newline. Concurrent Writes are serialized; a Write waiting for another
// gives up when its context ends or on Close.
//
// When a write fails because the server has exited, Write returns an *ExitError
// with the exit status (0 included) and the last lines of its stderr, rather than
// the broken pipe it hit; it waits up to CloseTimeout for the exit to be known.
func (c *CommandConn) Write(ctx context.Context, msg []byte) error {
	err := c.lines.write(ctx, msg)
	if !errors.Is(err, errWriting) {
		return err // written, or refused before writing
	}
	timer := time.NewTimer(c.closeTimeout)
	defer timer.Stop()
	if c.awaitExit(ctx, timer) != nil {
		return err
	}
	return c.exitError(ctx, timer)
}

// Close stops the server, in the order the MCP specification describes: it closes the
// server's standard input and waits up to CloseTimeout for it to exit, then sends
// SIGTERM and waits up to TermTimeout, then sends SIGKILL and waits up to TermTimeout
// again. Pending Reads and waiting Writes return at once. Close never waits longer
// than CloseTimeout + 2×TermTimeout, plus up to CloseTimeout for the last stderr
// lines.
//
// Close returns nil when the server exits with status 0 or because of a signal Close
// sent; an *ExitError when it exits with another status (on its own, before or after
// its input closed); and an error when it survives SIGKILL (for example, stuck in an
// uninterruptible system call). Later calls return the same result.
func (c *CommandConn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *CommandConn) shutdown() error {
	c.lines.close()
	c.stdin.Close() // the polite request: the server sees the end of its input

	exited := waitFor(c.exited, c.closeTimeout)
	if !exited {
		c.log.Debug("stdio: server still running after its input closed; sending SIGTERM",
			"waited", c.closeTimeout)
		c.signalled.Store(true)
		if err := terminate(c.cmd.Process, c.group); err != nil {
			c.log.Warn("stdio: cannot send SIGTERM to the server", "error", err)
		}
		exited = waitFor(c.exited, c.termTimeout)
	}
	if !exited {
		c.log.Warn("stdio: server still running after SIGTERM; sending SIGKILL", "waited", c.termTimeout)
		if err := kill(c.cmd.Process, c.group); err != nil {
			c.log.Warn("stdio: cannot send SIGKILL to the server", "error", err)
		}
		exited = waitFor(c.exited, c.termTimeout)
	}
	if exited {
		// Let the last stderr lines through; the process group is gone, so the pipe
		// ends soon unless something outside the group holds it.
		waitFor(c.stderrDone, c.closeTimeout)
	}
	// Stop our reading goroutines, whatever holds the other ends.
	c.stdout.Close()
	c.stderr.Close()

	switch {
	case !exited:
		return fmt.Errorf("stdio: server process %d still running %v after SIGKILL", c.pid, c.termTimeout)
	case c.waitErr == nil, c.signalled.Load():
		return nil
	default:
		return &ExitError{Err: c.waitErr, Stderr: c.tail.snapshot()}
	}
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// ExitError reports that a server process exited: Read and Write return it once
// the server has exited, Close when the exit status is not 0. Its message holds
// the exit status and the last lines the server wrote to standard error, which
// usually say what went wrong: "stdio: the server exited (status N); its last
// stderr: <lines>".
type ExitError struct {
	// Err is the error from waiting for the process, usually an *exec.ExitError;
	// nil when the process exited with status 0.
	Err error
	// Stderr holds the last non-blank lines of the server's standard error, oldest
	// first (at most 10, each cut to 512 bytes).
	Stderr []string
}

// Error describes the exit status and the stderr tail.
func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString("stdio: the server exited (")
	b.WriteString(e.status())
	b.WriteString(")")
	for i, line := range e.Stderr {
		if i == 0 {
			// The tail of stderr is context, not the cause: say so.
			b.WriteString("; its last stderr: ")
		} else {
			b.WriteString("\n\t")
		}
		b.WriteString(line)
	}
	return b.String()
}

// status describes how the process ended: "status N", "signal: killed", or the
// error from waiting for it.
func (e *ExitError) status() string {
	if e.Err == nil {
		return "status 0"
	}
	var ee *exec.ExitError
	if !errors.As(e.Err, &ee) {
		return e.Err.Error()
	}
	if code := ee.ExitCode(); code >= 0 {
		return "status " + strconv.Itoa(code)
	}
	return ee.ProcessState.String()
}

// Unwrap returns Err, or io.EOF for a clean exit (status 0): the end of a stream.
func (e *ExitError) Unwrap() error {
	if e.Err == nil {
		return io.EOF
	}
	return e.Err
}

// ExitCode returns the exit status of the process, or -1 if it was ended by a signal
// or its status is unknown.
func (e *ExitError) ExitCode() int {
	if e.Err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Endpoint names the server by its command line (transport.EndpointConn): the
// same program with the same arguments is taken for the same server.
func (c *CommandConn) Endpoint() string {
	return "stdio:" + strings.Join(append([]string{c.cmd.Path}, c.cmd.Args[1:]...), "\x00")
}
