package mcpkit_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Custom methods travel over Streamable HTTP in both eras; a legacy client's
// custom notification reaches the server's handler (2026-07-28 defines no
// client notifications: Notify says so).
func TestCustomMethodsOverHTTP(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "ext", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	got := make(chan string, 2)
	mcp.AddNotificationHandler(srv, "acme/poke", func(ctx context.Context, r *mcp.Request, p *struct {
		N int `json:"n"`
	}) {
		got <- r.ProtocolVersion()
	}, nil)
	mcp.AddRequestHandler(srv, "acme/echo", func(ctx context.Context, r *mcp.Request, p *struct {
		Text string `json:"text"`
	}) (map[string]string, error) {
		return map[string]string{"echo": p.Text}, nil
	}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(ctx, ln, srv, nil) }()
	defer func() { cancel(); <-done }()
	for _, v := range []string{protocol.Version20260728, protocol.LatestLegacy} {
		client := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: v})
		cs, err := mcpkit.ConnectURL(ctx, client, "http://"+ln.Addr().String()+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		var res struct{ Echo string }
		if err := cs.Call(ctx, "acme/echo", map[string]string{"text": "hi"}, &res); err != nil || res.Echo != "hi" {
			t.Fatalf("%s: acme/echo %+v %v", v, res, err)
		}
		err = cs.Notify(ctx, "acme/poke", map[string]int{"n": 1})
		if v == protocol.Version20260728 {
			if !errors.Is(err, mcp.ErrLegacyOnly) {
				t.Fatalf("a stateless client's notification: %v, want ErrLegacyOnly", err)
			}
			_ = cs.Close()
			continue
		}
		if err != nil {
			t.Fatalf("%s: notify: %v", v, err)
		}
		select {
		case seen := <-got:
			if seen != v {
				t.Fatalf("the notification was served at %s, want %s", seen, v)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the server never received the custom notification", v)
		}
		_ = cs.Close()
	}
}
