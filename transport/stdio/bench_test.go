package stdio

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/mcpkit/mcpkit/transport"
)

// typicalMessage is a 200-byte JSON-RPC request, about the size of a tools/call.
var typicalMessage = func() []byte {
	m := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Lisbon","units":"metric","detail":"`)
	tail := []byte(`"}}}`)
	m = append(m, bytes.Repeat([]byte("x"), 200-len(m)-len(tail))...)
	return append(m, tail...)
}()

// BenchmarkWriteRead200B sends a typical message from one connection to another
// through an io.Pipe and reads it: the whole per-message cost of the transport.
func BenchmarkWriteRead200B(b *testing.B) {
	ctx := context.Background()
	pr, pw := io.Pipe()
	writer := NewServerConn(eofReader{}, pw, nil)
	reader := NewServerConn(pr, io.Discard, nil)
	defer reader.Close()
	defer writer.Close()
	// The reading goroutine starts with the first Read, and an io.Pipe holds no data:
	// exchange one message before the loop.
	go writer.Write(ctx, typicalMessage)
	if _, err := reader.Read(ctx); err != nil {
		b.Fatal(err)
	}

	b.ReportAllocs()
	b.SetBytes(int64(len(typicalMessage)))
	for b.Loop() {
		if err := writer.Write(ctx, typicalMessage); err != nil {
			b.Fatal(err)
		}
		msg, err := reader.Read(ctx)
		if err != nil || len(msg) != len(typicalMessage) {
			b.Fatalf("read %d bytes, %v", len(msg), err)
		}
	}
}

// BenchmarkWrite200B measures Write alone, into a writer that keeps nothing.
func BenchmarkWrite200B(b *testing.B) {
	ctx := context.Background()
	c := NewServerConn(eofReader{}, io.Discard, nil)
	defer c.Close()
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalMessage)))
	for b.Loop() {
		if err := c.Write(ctx, typicalMessage); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLineReader200B measures framing alone: splitting a stream of typical
// messages into owned slices.
func BenchmarkLineReader200B(b *testing.B) {
	line := append(append([]byte(nil), typicalMessage...), '\n')
	src := &repeatReader{line: line}
	r := newLineReader(src, DefaultMaxMessageSize, readBufferSize)
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalMessage)))
	for b.Loop() {
		if _, err := r.next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLineReader1MiB measures a message much longer than the read buffer.
func BenchmarkLineReader1MiB(b *testing.B) {
	line := append(bigMessage(1<<20), '\n')
	src := &repeatReader{line: line}
	r := newLineReader(src, DefaultMaxMessageSize, readBufferSize)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := r.next(); err != nil {
			b.Fatal(err)
		}
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// repeatReader returns line over and over, forever.
type repeatReader struct {
	line []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

// BenchmarkRoundTripPipe200B is one request and its reply between two
// connections over a pair of os.Pipe, as between a client and the server it
// started: the client writes, an echo loop on the other end reads and writes it
// back, the client reads. Both reads honour a long-lived cancellable context, as
// rpcconn's read loop passes. "file" reads the pipes themselves (which the poller
// can interrupt); "reader" hides them behind a plain io.Reader, which cannot be.
func BenchmarkRoundTripPipe200B(b *testing.B) {
	b.Run("file", func(b *testing.B) { benchRoundTrip(b, func(f *os.File) io.Reader { return f }) })
	b.Run("reader", func(b *testing.B) { benchRoundTrip(b, func(f *os.File) io.Reader { return plainReader{f} }) })
}

func benchRoundTrip(b *testing.B, wrap func(*os.File) io.Reader) {
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	client, stop := echoPair(b, ctx, wrap)
	defer stop()
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalMessage)))
	for b.Loop() {
		if err := client.Write(ctx, typicalMessage); err != nil {
			b.Fatal(err)
		}
		msg, err := client.Read(ctx)
		if err != nil || len(msg) != len(typicalMessage) {
			b.Fatalf("read %d bytes, %v", len(msg), err)
		}
	}
}

// echoPair connects a client to a server over a pair of os.Pipe, their read ends
// wrapped by wrap; the server writes back every message it reads until stop.
func echoPair(b *testing.B, ctx context.Context, wrap func(*os.File) io.Reader) (client transport.Conn, stop func()) {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	server := NewServerConn(wrap(toServerR), toClientW, nil)
	client = NewServerConn(wrap(toClientR), toServerW, nil)
	echoed := make(chan error, 1)
	go func() {
		for {
			msg, err := server.Read(ctx)
			if err != nil {
				echoed <- err
				return
			}
			if err := server.Write(ctx, msg); err != nil {
				echoed <- err
				return
			}
		}
	}()
	return client, func() {
		client.Close()
		server.Close()
		toServerR.Close()
		toClientR.Close()
		<-echoed
	}
}

// plainReader hides everything of its reader but Read.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// BenchmarkPipelinedPipe200B is BenchmarkRoundTripPipe200B with 16 messages in
// flight, as a client with many calls outstanding keeps (mcpbench's stdio rows):
// a writer keeps the echo loop fed while the benchmark reads the replies.
func BenchmarkPipelinedPipe200B(b *testing.B) {
	b.Run("file", func(b *testing.B) { benchPipelined(b, func(f *os.File) io.Reader { return f }) })
	b.Run("reader", func(b *testing.B) { benchPipelined(b, func(f *os.File) io.Reader { return plainReader{f} }) })
}

func benchPipelined(b *testing.B, wrap func(*os.File) io.Reader) {
	const inFlight = 16
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	client, stop := echoPair(b, ctx, wrap)
	defer stop()
	tokens := make(chan struct{}, inFlight)
	wrote := make(chan error, 1)
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalMessage)))
	b.ResetTimer()
	go func() {
		for range b.N {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				wrote <- ctx.Err()
				return
			}
			if err := client.Write(ctx, typicalMessage); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	for range b.N {
		msg, err := client.Read(ctx)
		if err != nil || len(msg) != len(typicalMessage) {
			b.Fatalf("read %d bytes, %v", len(msg), err)
		}
		<-tokens
	}
	if err := <-wrote; err != nil {
		b.Fatal(err)
	}
}
