package sse

import (
	"io"
	"strings"
	"testing"
)

const benchPayload = `{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"hello world, this is a typical tool result of a few hundred bytes"}],"structuredContent":{"value":42,"unit":"items"},"isError":false}}`

func BenchmarkEncode(b *testing.B) {
	e := NewEncoder(io.Discard)
	ev := Event{ID: "stream-1:17", Type: "message", Data: []byte(benchPayload)}
	b.SetBytes(int64(len(benchPayload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Encode(ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeMultiLine(b *testing.B) {
	e := NewEncoder(io.Discard)
	data := []byte(strings.Repeat("a line of pretty-printed JSON\n", 20))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Encode(Event{Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkDecode(b *testing.B, stream string, dataLen int) {
	d := NewDecoder(&endlessReader{line: []byte(stream)})
	b.SetBytes(int64(dataLen))
	b.ReportAllocs()
	for b.Loop() {
		ev, err := d.Next()
		if err != nil || len(ev.Data) != dataLen {
			b.Fatalf("Next() = %d bytes, %v", len(ev.Data), err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	benchmarkDecode(b, "id: stream-1:17\nevent: message\ndata: "+benchPayload+"\n\n", len(benchPayload))
}

func BenchmarkDecodeCRLFNoSpace(b *testing.B) {
	benchmarkDecode(b, "id:stream-1:17\r\nevent:message\r\ndata:"+benchPayload+"\r\n\r\n: ping\r\n\r\n", len(benchPayload))
}

func BenchmarkDecodeMultiLine(b *testing.B) {
	line := "a line of pretty-printed JSON"
	stream := strings.Repeat("data: "+line+"\n", 20) + "\n"
	benchmarkDecode(b, stream, 20*len(line)+19)
}

func BenchmarkDecodeLarge(b *testing.B) {
	// One 256 KiB data line, much longer than the read buffer.
	data := strings.Repeat("x", 256<<10)
	benchmarkDecode(b, "data: "+data+"\n\n", len(data))
}
