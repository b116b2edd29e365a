//go:build unix

package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestServerConnOnAPipeUsesThePoller(t *testing.T) {
	// A pipe in blocking mode, as a client's pipe is when it becomes a server's
	// standard input (os.Pipe would already give pollable files).
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer w.Close()
	if r.SetReadDeadline(time.Time{}) == nil {
		t.Fatal("the test pipe is already pollable")
	}
	in := pollableInput(r)
	f, ok := in.(*os.File)
	if !ok || f == r {
		t.Fatalf("a blocking pipe was not switched to the poller (got %T)", in)
	}
	// A pollable file honours read deadlines; a blocking one reports
	// os.ErrNoDeadline.
	if err := f.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("the switched pipe does not take deadlines: %v", err)
	}
	// Already pollable, or not a pipe: left alone.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if got := pollableInput(pr); got != io.Reader(pr) {
		t.Errorf("an already pollable pipe was replaced")
	}
	tmp, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	if got := pollableInput(tmp); got != io.Reader(tmp) {
		t.Errorf("a regular file was replaced")
	}
	// Messages still flow, and Close still ends a pending Read.
	c := NewServerConn(r, io.Discard, nil)
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","method":"x"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if msg, err := c.Read(ctx); err != nil || string(msg) != `{"jsonrpc":"2.0","method":"x"}` {
		t.Fatalf("Read = %q, %v", msg, err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.Read(ctx); done <- err }()
	_ = c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close = %v, want io.EOF", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not end a pending Read")
	}
}
