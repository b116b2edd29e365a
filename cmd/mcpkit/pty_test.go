package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyRun is the CLI running with a pseudo-terminal as its standard error and,
// when asked, its standard input (as in an interactive shell); its stdout goes to
// a buffer, apart from the terminal.
type ptyRun struct {
	t      *testing.T
	ctx    context.Context
	ptmx   *os.File
	cmd    *exec.Cmd
	stdout bytes.Buffer

	mu      sync.Mutex
	screen  bytes.Buffer  // everything the CLI wrote to the terminal
	seen    int           // how far waitFor has matched
	changed chan struct{} // a token after each read from the terminal
	closed  chan struct{} // closed when the terminal has no more output
}

// startPTY starts the CLI with args; with stdin set, standard input is the
// terminal too (else it is /dev/null). Everything is bounded by 30 s.
func startPTY(t *testing.T, stdin bool, args ...string) *ptyRun {
	t.Helper()
	return startPTYWith(t, ptyOptions{stdin: stdin}, args...)
}

// ptyOptions say what else startPTYWith puts on the terminal, and the
// environment to add.
type ptyOptions struct {
	stdin, stdout bool
	env           []string
}

// startPTYWith is startPTY with standard output on the terminal too when
// o.stdout is set (stdout is then empty), and o.env added to the environment.
func startPTYWith(t *testing.T, o ptyOptions, args ...string) *ptyRun {
	t.Helper()
	stdin := o.stdin
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	r := &ptyRun{t: t, ctx: ctx, ptmx: ptmx, changed: make(chan struct{}, 1), closed: make(chan struct{})}
	r.cmd = exec.CommandContext(ctx, mcpkitBin, args...)
	r.cmd.Stdout = &r.stdout
	if o.stdout {
		r.cmd.Stdout = tty
	}
	r.cmd.Env = append(os.Environ(), o.env...)
	r.cmd.Stderr = tty
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if stdin {
		r.cmd.Stdin = tty
		r.cmd.SysProcAttr.Setctty = true // the terminal is the session's, as in a shell
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = tty.Close() // the child has its own copy: reads end (EIO) when it exits
	go r.read()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		_ = ptmx.Close()
		<-r.closed
	})
	return r
}

// read copies the terminal's output into screen until the CLI is gone.
func (r *ptyRun) read() {
	defer close(r.closed)
	buf := make([]byte, 4096)
	for {
		n, err := r.ptmx.Read(buf)
		if n > 0 {
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			select {
			case r.changed <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// waitFor waits until the terminal shows s after what the previous waitFor
// matched.
func (r *ptyRun) waitFor(s string) {
	r.t.Helper()
	for {
		r.mu.Lock()
		i := strings.Index(r.screen.String()[r.seen:], s)
		if i >= 0 {
			r.seen += i + len(s)
		}
		screen := r.screen.String()
		r.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-r.changed:
		case <-r.closed:
			r.mu.Lock()
			found := strings.Contains(r.screen.String()[r.seen:], s)
			r.mu.Unlock()
			if !found {
				r.t.Fatalf("the terminal closed without showing %q; it shows:\n%s", s, screen)
			}
		case <-r.ctx.Done():
			r.t.Fatalf("the terminal did not show %q in time; it shows:\n%s", s, screen)
		}
	}
}

// send types text on the terminal.
func (r *ptyRun) send(text string) {
	r.t.Helper()
	if _, err := r.ptmx.WriteString(text); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for the CLI to exit and returns its stdout, everything it wrote to
// the terminal, and its exit status.
func (r *ptyRun) wait() (stdout, screen string, code int) {
	r.t.Helper()
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		r.t.Fatal(err)
	}
	if ee != nil {
		code = ee.ExitCode()
	}
	select {
	case <-r.closed:
	case <-r.ctx.Done():
		r.t.Fatal("the terminal stayed open after the CLI exited")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdout.String(), r.screen.String(), code
}
