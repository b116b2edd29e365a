package wirecheck

import (
	"bytes"
	"testing"
)

// FuzzCheck feeds arbitrary bytes to checkers of both sides in several states: Check
// must never panic, and whatever it returns must be made of complete Violations.
func FuzzCheck(f *testing.F) {
	w, m := wire{"2025-03-26"}, wire{statelessVersion}
	for _, seed := range []string{
		w.handshake()[0].msg, w.handshake()[1].msg, w.req(1, "tools/call", obj{"name": "x"}),
		w.res(1, obj{"content": []any{obj{"type": "text", "text": "x"}}}), errResp(1, -32602, "x"),
		"[" + w.req(2, "ping", nil) + "]", "[]", `{"jsonrpc":"2.0","id":null,"error":{}}`,
		m.req(3, "tools/call", obj{"name": "x"}), m.res(3, obj{"resultType": "input_required"}),
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`,
		``, `nul`, `{"id":1e400}`, `[[[]]]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range [][]Option{nil, {InitialVersion("2025-03-26")}, {InitialVersion(statelessVersion)}} {
			for _, side := range []Side{Client, Server} {
				c := newTestChecker(t, side, opts...)
				for _, dir := range []Direction{Incoming, Outgoing, Incoming} {
					err := c.Check(dir, data)
					vs := violations(err)
					if err != nil && len(vs) == 0 {
						t.Fatalf("Check returned %T %v, not Violations", err, err)
					}
					for _, v := range vs {
						if v.Version == "" || v.Err == nil || !bytes.Equal(v.Message, data) || v.Error() == "" {
							t.Fatalf("incomplete violation %+v", v)
						}
					}
				}
			}
		}
	})
}
