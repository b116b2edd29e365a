package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// requestRecorder is a transport.RequestConn that counts the requests it is
// handed with their id, method and params (WriteRequest) and those it must
// read (Write), and checks that what it is handed is what the message holds.
type requestRecorder struct {
	transport.Conn
	t       *testing.T
	mu      sync.Mutex
	handed  map[string]int // by method
	written map[string]int
}

var _ transport.RequestConn = (*requestRecorder)(nil)

func (r *requestRecorder) WriteRequest(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage, msg []byte) error {
	m, err := jsonrpc.Decode(msg)
	switch {
	case err != nil:
		r.t.Errorf("handed a message that does not decode: %v: %s", err, msg)
	case !m.IsRequest() || m.ID != id || m.Method != method || !bytes.Equal(m.Params, params):
		r.t.Errorf("handed id %v, method %q, params %s with %s", id, method, params, msg)
	}
	r.mu.Lock()
	r.handed[method]++
	r.mu.Unlock()
	return r.Conn.Write(ctx, msg)
}

func (r *requestRecorder) Write(ctx context.Context, msg []byte) error {
	if m, err := jsonrpc.Decode(msg); err == nil && m.IsRequest() {
		r.mu.Lock()
		r.written[m.Method]++
		r.mu.Unlock()
	}
	return r.Conn.Write(ctx, msg)
}

// counts returns and resets the calls of each kind for method.
func (r *requestRecorder) counts(method string) (handed, written int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	handed, written = r.handed[method], r.written[method]
	r.handed, r.written = map[string]int{}, map[string]int{}
	return handed, written
}

// TestPlainToolCallsHandTheirRequestOver: in both eras, the tools/call
// requests the client writes by hand (CallTool with a map, raw or struct
// arguments, CallToolRaw) reach a transport.RequestConn through
// WriteRequest, with their id, method and params; a call with request
// options, and every other request, goes through Write.
func TestPlainToolCallsHandTheirRequestOver(t *testing.T) {
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			srv := newServer(t, nil)
			must(t, mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.ToolRequest, in struct {
				Message string `json:"message"`
			}) (*protocol.CallToolResult, error) {
				return protocol.NewToolResultText(in.Message), nil
			}))
			ctx := testkit.Context(t)
			c, s := memory.NewPair()
			ss, err := srv.Connect(ctx, s)
			must(t, err)
			rec := &requestRecorder{Conn: c, t: t, handed: map[string]int{}, written: map[string]int{}}
			cs, err := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, rec)
			must(t, err)
			t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
			rec.counts(protocol.MethodToolsCall)

			for name, call := range map[string]func() (string, error){
				"map": func() (string, error) { return textOf(cs.CallTool(ctx, "echo", map[string]any{"message": "m"})) },
				"raw": func() (string, error) { return textOf(cs.CallTool(ctx, "echo", json.RawMessage(`{"message":"m"}`))) },
				"struct": func() (string, error) {
					return textOf(cs.CallTool(ctx, "echo", struct {
						Message string `json:"message"`
					}{"m"}))
				},
				"CallToolRaw": func() (string, error) {
					raw, err := cs.CallToolRaw(ctx, &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"m"}`)})
					if !bytes.Contains(raw, []byte(`"text":"m"`)) {
						return string(raw), err
					}
					return "m", err
				},
			} {
				if got, err := call(); err != nil || got != "m" {
					t.Fatalf("%s: %q, %v", name, got, err)
				}
				if handed, written := rec.counts(protocol.MethodToolsCall); handed != 1 || written != 0 {
					t.Errorf("%s: %d handed over, %d written: want 1 and 0", name, handed, written)
				}
			}
			if got, err := textOf(cs.CallTool(ctx, "echo", map[string]any{"message": "m"}, mcp.GeneralPath())); err != nil || got != "m" {
				t.Fatalf("general path: %q, %v", got, err)
			}
			if handed, written := rec.counts(protocol.MethodToolsCall); handed != 0 || written != 1 {
				t.Errorf("with a request option: %d handed over, %d written: want 0 and 1", handed, written)
			}
			_, err = cs.ListTools(ctx, nil)
			must(t, err)
			if handed, written := rec.counts(protocol.MethodToolsList); handed != 0 || written != 1 {
				t.Errorf("tools/list: %d handed over, %d written: want 0 and 1", handed, written)
			}
		})
	}
}

// textOf returns the text of a result's one text block.
func textOf(res *protocol.CallToolResult, err error) (string, error) {
	if err != nil || res == nil || len(res.Content) != 1 {
		return "", err
	}
	return res.Content[0].Text, nil
}
