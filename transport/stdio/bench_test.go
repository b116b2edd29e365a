package stdio

import (
	"bytes"
	"context"
	"io"
	"testing"
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
