//go:build unix

package stdio

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestMakePollableSwitchesABlockingPipe(t *testing.T) {
	// A pipe in blocking mode, as a client's pipe is when it becomes a server's
	// standard input (os.Pipe would already give pollable files).
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer w.Close()
	// r and the File makePollable returns share one descriptor, as os.Stdin and
	// the server's pollable copy do. Only the copy closes it; r is kept
	// reachable so that its finalizer never closes the number again after it
	// has been reused (by t.TempDir's cleanup, for one).
	keptFiles = append(keptFiles, r)
	if r.SetReadDeadline(time.Time{}) == nil {
		t.Fatal("the test pipe is already pollable")
	}
	p := makePollable(r)
	if p == nil {
		t.Fatal("a blocking pipe was not switched to the poller")
	}
	defer p.Close()
	// A pollable file honours read deadlines (a blocking one reports
	// os.ErrNoDeadline) and still reads.
	if err := p.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("the switched pipe does not take deadlines: %v", err)
	}
	if _, err := w.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if n, err := io.ReadFull(p, buf); err != nil || string(buf[:n]) != "x\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}

	// Already pollable, or not a pipe: left alone.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if makePollable(pr) != nil {
		t.Error("an already pollable pipe was replaced")
	}
	tmp, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	if makePollable(tmp) != nil {
		t.Error("a regular file was replaced")
	}
	// Only the process's standard input is ever switched.
	if got := pollableInput(r); got != io.Reader(r) {
		t.Error("pollableInput switched a file that is not standard input")
	}
}

// keptFiles holds Files whose descriptor another File owns (see
// TestMakePollableSwitchesABlockingPipe).
var keptFiles []*os.File
