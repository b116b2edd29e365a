package mcpkit_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// HTTPOptions.Middleware wraps what Serve serves: here it answers 401 to
// requests without a token and passes the rest to the MCP handler.
func TestServeMiddleware(t *testing.T) {
	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	gate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer ok" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	go func() { served <- mcpkit.Serve(ctx, ln, newGreeter(), &mcpkit.HTTPOptions{Middleware: gate}) }()
	defer func() {
		stop()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Error("Serve did not return")
		}
	}()
	url := "http://" + ln.Addr().String() + "/mcp"
	if resp, _ := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want the middleware's 401", resp.StatusCode)
	}
	// The probes carry no credentials: Serve answers them before the middleware.
	for _, p := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, "http://"+ln.Addr().String()+p); code != http.StatusOK {
			t.Errorf("GET %s without a token: %d %s, want 200", p, code, body)
		}
	}
	client := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := mcpkit.ConnectURL(t.Context(), client, url, &mcpkit.ConnectOptions{Header: http.Header{"Authorization": {"Bearer ok"}}})
	if err != nil {
		t.Fatalf("with the token the MCP handler answers: %v", err)
	}
	_ = cs.Close()
}
