package streamable

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// FuzzClientDeliver feeds arbitrary reply bodies, as JSON or as an event stream,
// through the client's delivery path with one request (id 1) pending. Whatever the
// input: nothing panics, split batch elements are valid messages, and at most one
// response gets through, the one for the pending request.
func FuzzClientDeliver(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), false)
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]`), false)
	f.Add([]byte(`[{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}},{"bad":true}]`), false)
	f.Add([]byte(`{"jsonrpc":"2.0",`), false)
	f.Add([]byte("id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: [{\"jsonrpc\":\"2.0\",\"method\":\"m\"}]\n\n"), true)
	f.Add([]byte("event: other\ndata: {}\n\nretry: 10\nid: x\ndata:\n\n: ping\r\ndata:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\r\n\r\n"), true)
	f.Fuzz(func(t *testing.T, body []byte, asSSE bool) {
		if len(body) > 1<<14 {
			return
		}
		c, err := NewClientConn(context.Background(), "http://127.0.0.1:9/mcp", &ClientOptions{MaxMessageSize: 1 << 12, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.incoming = make(chan []byte, len(body)+1) // room for every message the body can hold
		c.pending[jsonrpc.Int64ID(1)] = &clientCall{ids: []jsonrpc.ID{jsonrpc.Int64ID(1)}}
		if asSSE {
			var st clientStreamState
			_, _ = c.consumeSSE(bytes.NewReader(body), &st)
		} else {
			c.deliver(body)
		}
		responses := 0
		for {
			select {
			case msg := <-c.incoming:
				m, err := jsonrpc.Decode(msg)
				if err != nil {
					if !asSSE && !bytes.Equal(msg, body) {
						t.Fatalf("delivered an invalid message that is not the input: %q", msg)
					}
					continue
				}
				if m.IsResponse() {
					responses++
					if m.ID != jsonrpc.Int64ID(1) || responses > 1 {
						t.Fatalf("delivered response %d with id %v", responses, m.ID)
					}
				}
				continue
			default:
			}
			return
		}
	})
}
