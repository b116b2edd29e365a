package interop

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// proxyReadTimeout is nginx's proxy_read_timeout in the proxy test: an upstream
// response that sends nothing for this long is cut.
const proxyReadTimeout = time.Second

// TestLongCallSurvivesReverseProxy runs a tool call that takes several times nginx's
// read timeout and reports progress only at its start, behind a real nginx. The SSE
// keep-alive comments the handler writes are what keep the proxy from cutting the
// stream; with keep-alives off, the same call is cut (the control that shows the
// test can fail).
func TestLongCallSurvivesReverseProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nginx; skipped in -short mode")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		t.Fatal("interop: nginx is not installed: install it (Debian: apt-get install nginx); scripts/test.sh does it")
	}
	for _, tc := range []struct {
		name      string
		keepAlive time.Duration
		survives  bool
	}{{"with keep-alives", 200 * time.Millisecond, true}, {"without keep-alives", -1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			backend := slowServer(t, tc.keepAlive)
			proxyURL := startNginx(t, nginx, backend)

			conn, err := streamable.NewClientConn(ctx, proxyURL+"/mcp", &streamable.ClientOptions{
				Logger: slog.New(slog.DiscardHandler), MaxReconnects: -1, DisableStandaloneStream: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(protocol.Implementation{Name: "proxy-test", Version: "1"}, nil).Connect(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			progress := 0
			res, err := cs.CallTool(ctx, "slow", nil, mcp.WithProgress(func(*protocol.ProgressParams) { progress++ }))
			if !tc.survives {
				if err == nil && !res.IsError {
					t.Fatal("the call survived a proxy read timeout without keep-alives: the test cannot tell keep-alives apart")
				}
				return
			}
			if err != nil {
				t.Fatalf("the call through nginx failed: %v", err)
			}
			if text := textOf(res.Content); text != "done" || progress != 1 {
				t.Fatalf("result %q after %d progress notifications", text, progress)
			}
		})
	}
}

// slowServer serves an MCP server whose one tool, "slow", reports progress once and
// then stays silent for 3× the proxy's read timeout before answering.
func slowServer(t *testing.T, keepAlive time.Duration) string {
	srv := mcp.NewServer(protocol.Implementation{Name: "slow", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	err := mcp.AddTool(srv, &protocol.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		if err := req.ReportProgress(ctx, 0, 1, "started"); err != nil {
			return "", err
		}
		select {
		case <-time.After(3 * proxyReadTimeout):
			return "done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
		KeepAlive: keepAlive, ResponseMode: streamable.ResponseAlwaysSSE, Logger: slog.New(slog.DiscardHandler),
		AllowedHosts: []string{"127.0.0.1"},
	})
	ts := testkit.NewServer(t, h)
	t.Cleanup(func() { _ = h.Close() }) // before the server stops
	return ts.URL
}

// startNginx runs nginx in the foreground as a reverse proxy to backend, with a
// short read timeout and no buffering (as one configures a proxy for SSE), and
// returns its URL. nginx is stopped by PID when the test ends.
func startNginx(t *testing.T, nginx, backend string) string {
	dir := t.TempDir()
	port := testkit.FreePort(t)
	conf := testkit.NginxConf(dir, fmt.Sprintf(`	access_log off;
	server {
		listen 127.0.0.1:%[1]d;
		location / {
			proxy_pass %[2]s;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host 127.0.0.1;
			proxy_read_timeout %[3]ds;
		}
	}`, port, backend, int(proxyReadTimeout/time.Second)))
	return testkit.RunNginx(t, nginx, dir, conf, port)
}
