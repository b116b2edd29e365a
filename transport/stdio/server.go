package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"reflect"

	"github.com/mcpkit/mcpkit/transport"
)

// Options configures a server connection. The zero value (and nil) is usable.
type Options struct {
	// MaxMessageSize is the longest line, in bytes without its line ending, that Read
	// accepts; longer ones are dropped with an error wrapping
	// jsonrpc.ErrMessageTooLarge. Zero or less means DefaultMaxMessageSize (16 MiB).
	MaxMessageSize int
}

// NewServerConn returns the server end of a stdio connection: it reads messages from in
// and writes them to out, one per line.
//
// Close closes in and out if they implement io.Closer, except for the process's own
// os.Stdin, os.Stdout and os.Stderr, which stay open (closing them would let a later
// open reuse their file descriptors). A Read pending on an input that cannot be closed
// still returns at once. An input that takes read deadlines (a pipe, which standard
// input is switched to the runtime's poller for) is read on the goroutine that calls
// Read, and Close interrupts it; any other is read by a goroutine of the connection,
// which ends when the input does.
func NewServerConn(in io.Reader, out io.Writer, opts *Options) transport.Conn {
	var o Options
	if opts != nil {
		o = *opts
	}
	return &serverConn{
		lineConn: newLineConn(pollableInput(in), out, o.MaxMessageSize, false),
		in:       in,
		out:      out,
	}
}

// NewProcessServerConn returns a server connection on the process's standard input and
// output, the way an MCP client runs a stdio server: [NewServerConn] on [os.Stdin]
// and [os.Stdout]. Nothing else may write to standard output while it is in use: log
// to standard error instead.
func NewProcessServerConn(opts *Options) transport.Conn {
	return NewServerConn(os.Stdin, os.Stdout, opts)
}

// serverConn is a lineConn that closes its streams on Close.
type serverConn struct {
	*lineConn
	in  io.Reader
	out io.Writer
}

// Read returns the next message, a slice the caller owns. It returns io.EOF when the
// input ends or the connection is closed, and an error wrapping
// jsonrpc.ErrMessageTooLarge, after which reading goes on, when it dropped a line over
// the size bound.
func (s *serverConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := s.read(ctx)
	if errors.Is(err, errClosedLocally) {
		return nil, io.EOF
	}
	return msg, err
}

// Write sends msg followed by a newline in one write, which Writes made at the
// same moment share (their lines in order). It rejects a message that contains a
// newline. Concurrent Writes are serialized; a Write waiting for another gives up
// when its context ends, but one already in progress (or sharing one in
// progress) runs to completion or until Close closes the output.
func (s *serverConn) Write(ctx context.Context, msg []byte) error {
	return s.write(ctx, msg)
}

// Close ends the connection and closes the streams it may close. Pending Reads and
// waiting Writes return. It returns the first error from closing the streams.
func (s *serverConn) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.markClosed()
		err = closeStream(s.in)
		if !sameValue(s.in, s.out) {
			err = errors.Join(err, closeStream(s.out))
		}
	})
	return err
}

// sameValue reports whether a and b are the same value, without panicking on types
// that cannot be compared.
func sameValue(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.IsValid() && vb.IsValid() && va.Type() == vb.Type() && va.Comparable() && va.Equal(vb)
}

func closeStream(v any) error {
	switch v {
	case os.Stdin, os.Stdout, os.Stderr:
		return nil
	}
	if c, ok := v.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
