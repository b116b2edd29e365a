package jsonrpc

import "testing"

func TestTooLargeErrorID(t *testing.T) {
	for _, c := range []struct {
		prefix   string
		id       ID
		response bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"aaaa`, Int64ID(7), false},
		{`{"id":"s","jsonrpc":"2.0","result":{"content":[{"te`, StringID("s"), true},
		{`{"jsonrpc":"2.0","method":"m","params":{"big":"aaa`, ID{}, false},
		{`{"jsonrpc":"2.0","params":{"a":[1,2]},"id":0,"method":"m`, Int64ID(0), false},
		{`{"jsonrpc":"2.0","i`, ID{}, false},
		{`[`, ID{}, false},
	} {
		id, resp := NewTooLargeError(1<<20, 1<<10, []byte(c.prefix)).ID()
		if id != c.id || resp != c.response {
			t.Errorf("TooLargeError{Prefix: %s}.ID() = %v, %v; want %v, %v", c.prefix, id, resp, c.id, c.response)
		}
	}
}
