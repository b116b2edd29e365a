package jsonscan

import (
	"bytes"
	"strings"
	"testing"
)

// TestContainsAround compares it with bytes.Contains on every text of up to
// four pieces that make, break or nearly make sep, at the start, the end and
// the middle of the text, for seps anchored at their start, middle and end.
func TestContainsAround(t *testing.T) {
	for _, c := range []struct {
		sep string
		at  int
	}{
		{`"io.modelcontextprotocol/protocolVersion"`, 24},
		{"tool_use", 4},
		{"tool_result", 4},
		{"_x_", 0},
		{"ab/", 2},
		{"/", 0},
	} {
		sep, at := c.sep, c.at
		pieces := []string{sep, sep[:at], sep[at:], sep[:at+1], sep[at+1:], sep[1:], sep[:len(sep)-1], sep[at : at+1], "x" + sep[at:at+1], `"`}
		var walk func(b []byte, n int)
		walk = func(b []byte, n int) {
			if got, want := ContainsAround(b, sep, at), bytes.Contains(b, []byte(sep)); got != want {
				t.Fatalf("ContainsAround(%q, %q, %d) = %v, want %v", b, sep, at, got, want)
			}
			if n == 4 {
				return
			}
			for _, p := range pieces {
				walk(append(b[:len(b):len(b)], p...), n+1)
			}
		}
		walk(nil, 0)
	}
}

func FuzzContainsAround(f *testing.F) {
	for _, s := range []struct {
		s, sep string
		at     uint8
	}{
		{"", "/", 0},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`, `"io.modelcontextprotocol/protocolVersion"`, 24},
		{"xtool_usex", "tool_use", 4},
		{"tool__result", "tool_result", 4},
		{"//a//", "a/", 1},
	} {
		f.Add([]byte(s.s), s.sep, s.at)
	}
	f.Fuzz(func(t *testing.T, s []byte, sep string, at uint8) {
		if sep == "" {
			return
		}
		i := int(at) % len(sep)
		if got, want := ContainsAround(s, sep, i), bytes.Contains(s, []byte(sep)); got != want {
			t.Fatalf("ContainsAround(%q, %q, %d) = %v, want %v", s, sep, i, got, want)
		}
	})
}

// BenchmarkContainsAround looks for the 2026-07-28 version key in a request's
// params, anchored on its '/', against bytes.Contains.
func BenchmarkContainsAround(b *testing.B) {
	const sep = `"io.modelcontextprotocol/protocolVersion"`
	params := []byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"world"}}`)
	at := strings.IndexByte(sep, '/')
	b.Run("around", func(b *testing.B) {
		for b.Loop() {
			if !ContainsAround(params, sep, at) {
				b.Fatal("missed")
			}
		}
	})
	b.Run("contains", func(b *testing.B) {
		for b.Loop() {
			if !bytes.Contains(params, []byte(sep)) {
				b.Fatal("missed")
			}
		}
	})
}
