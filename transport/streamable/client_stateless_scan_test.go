package streamable

import (
	"bytes"
	"testing"
)

// TestMentionsVersionKey compares it with bytes.Contains on every text of up
// to four pieces that make, break or nearly make the key, at the start, the
// end and the middle of the text.
func TestMentionsVersionKey(t *testing.T) {
	const key = clientMetaVersionKey
	slash := versionKeySlash
	pieces := []string{key, key[:slash], key[slash:], key[:slash+1], key[slash+1:], key[1:], key[:len(key)-1], "/", `"`, "x/"}
	var walk func(b []byte, n int)
	walk = func(b []byte, n int) {
		if got, want := mentionsVersionKey(b), bytes.Contains(b, []byte(key)); got != want {
			t.Fatalf("mentionsVersionKey(%q) = %v, want %v", b, got, want)
		}
		if n == 4 {
			return
		}
		for _, p := range pieces {
			walk(append(b[:len(b):len(b)], p...), n+1)
		}
	}
	walk(nil, 0)
	params := `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"a/b","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"path":"/tmp/x"}}`
	if !mentionsVersionKey([]byte(params)) {
		t.Errorf("missed the key in %s", params)
	}
	if legacy := `{"_meta":{"progressToken":1},"name":"echo","arguments":{"path":"/tmp/x"}}`; mentionsVersionKey([]byte(legacy)) {
		t.Errorf("found the key in %s", legacy)
	}
}

func FuzzMentionsVersionKey(f *testing.F) {
	for _, s := range []string{"", clientMetaVersionKey, "/", clientMetaVersionKey[1:], "//" + clientMetaVersionKey + "//", `{"_meta":{"io.modelcontextprotocol/protocolversion":"x"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if got, want := mentionsVersionKey(params), bytes.Contains(params, []byte(clientMetaVersionKey)); got != want {
			t.Fatalf("mentionsVersionKey(%q) = %v, want %v", params, got, want)
		}
	})
}

func BenchmarkMentionsVersionKey(b *testing.B) {
	params := []byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"world"}}`)
	legacy := []byte(`{"_meta":{"progressToken":1},"name":"echo","arguments":{"message":"world"}}`)
	b.Run("2026", func(b *testing.B) {
		for b.Loop() {
			if !mentionsVersionKey(params) {
				b.Fatal("missed")
			}
		}
	})
	b.Run("legacy", func(b *testing.B) {
		for b.Loop() {
			if mentionsVersionKey(legacy) {
				b.Fatal("found")
			}
		}
	})
	b.Run("contains-2026", func(b *testing.B) {
		for b.Loop() {
			if !bytes.Contains(params, []byte(clientMetaVersionKey)) {
				b.Fatal("missed")
			}
		}
	})
}
