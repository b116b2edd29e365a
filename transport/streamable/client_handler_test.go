package streamable

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// clientRealServer serves an mcp.Server with a progress-reporting tool through this
// package's Handler.
func clientRealServer(t *testing.T, opts *HandlerOptions) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "real", Version: "1"}, nil)
	err := mcp.AddTool(srv, &protocol.Tool{Name: "count"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
		N int `json:"n"`
	}) (string, error) {
		for i := 1; i <= in.N; i++ {
			if err := req.ReportProgress(ctx, float64(i), float64(in.N), ""); err != nil {
				return "", err
			}
		}
		return "counted", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(srv, opts)
	ts := testkit.NewServer(t, h)
	t.Cleanup(func() { _ = h.Close() }) // before the server stops
	return ts
}

// The client against the package's own handler, stateful and sessionless: progress
// arrives in order before the result, and a session the server ended (DELETE by
// someone else) is replaced transparently.
func TestClientWithRealHandler(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *HandlerOptions
	}{{"stateful", nil}, {"sessionless", &HandlerOptions{Sessionless: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testkit.Context(t)
			ts := clientRealServer(t, tc.opts)
			expired := make(chan clientExpiry, 1)
			conn := clientDial(t, ts.URL, &ClientOptions{OnSessionExpired: func(o, n string, err error) {
				if err != nil {
					t.Errorf("re-initialization failed: %v", err)
				}
				expired <- clientExpiry{o, n}
			}})
			cs, err := mcp.NewClient(clientInfo, legacyClient()).Connect(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			callCount := func() {
				t.Helper()
				var got []float64
				res, err := cs.CallTool(ctx, "count", map[string]any{"n": 3},
					mcp.WithProgress(func(p *protocol.ProgressParams) { got = append(got, p.Progress) }))
				if err != nil || res.IsError || res.Content[0].Text != "counted" {
					t.Fatalf("CallTool: %+v, %v", res, err)
				}
				if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
					t.Fatalf("progress %v", got)
				}
			}
			callCount()
			if tc.opts != nil && tc.opts.Sessionless {
				if conn.SessionID() != "" {
					t.Fatalf("a sessionless server issued session %q", conn.SessionID())
				}
				return
			}

			old := conn.SessionID()
			if old == "" {
				t.Fatal("no session id")
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, ts.URL, nil)
			req.Header.Set(HeaderSessionID, old)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			callCount()
			if got := clientNextExpiry(t, expired); got.oldID != old || got.newID == "" || got.newID == old {
				t.Fatalf("OnSessionExpired(%q, %q), old session %q", got.oldID, got.newID, old)
			}
		})
	}
}
