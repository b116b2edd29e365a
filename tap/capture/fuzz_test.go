package capture

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader reads captures of any content (a capture holds what both peers
// sent, and a capture file may come from anyone): NewReader and Next must
// never panic, must end (every call consumes input or returns io.EOF), and
// a header that NewReader accepts names this format.
func FuzzReader(f *testing.F) {
	head := `{"format":"mcpkit-tap/1","t":"2026-11-29T00:00:00Z","tool":"mcpkit tap"}` + "\n"
	for _, s := range []string{
		head + `{"seq":1,"t":"2026-11-29T00:00:00Z","dir":"c2s","transport":"stdio","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n",
		head + `{"seq":2,"dir":"s2c","raw64":"AAEC","invalid":true,"size":3}` + "\n" + `{"seq":3,"msg":`,
		head + `{"seq":-1,"t":"bad","msg":[1,2],"size":1e400}` + "\n\n" + `"x"` + "\n",
		`{"format":"other"}` + "\n", "\n", "", head,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cr, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		if cr.Header().Format != Format {
			t.Fatalf("accepted header of format %q", cr.Header().Format)
		}
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("Next did not end on %d bytes", len(data))
			}
			if _, err := cr.Next(); errors.Is(err, io.EOF) {
				return
			}
		}
	})
}
