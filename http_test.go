package mcpkit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// post sends one JSON-RPC message to a Streamable HTTP endpoint and returns
// the response, read whole.
func post(t *testing.T, url, sid, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

func TestHTTPHandlerRoutes(t *testing.T) {
	h := mcpkit.NewHTTPHandler(newGreeter(), &mcpkit.HTTPOptions{MCPPath: "rpc"})
	ts := testkit.NewServer(t, h)
	defer h.Shutdown(t.Context())
	for path, want := range map[string]int{"/rpc": http.StatusOK, "/sse": http.StatusMethodNotAllowed, "/messages": http.StatusBadRequest, "/mcp": http.StatusNotFound} {
		resp, body := post(t, ts.URL+path, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if resp.StatusCode != want {
			t.Errorf("POST %s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
	}
}

// TestShutdownInOrder: Shutdown ends a 2026-07-28 listen stream with its final
// result (not a cut), stops a running task, ends the Streamable HTTP and
// HTTP+SSE sessions, and then answers 503.
func TestShutdownInOrder(t *testing.T) {
	ctx := t.Context()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Tasks: &mcp.TaskOptions{}})
	started, stopped := make(chan struct{}), make(chan error, 1)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "work", Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional}},
		func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			close(started)
			<-ctx.Done() // works until stopped
			stopped <- ctx.Err()
			return "", ctx.Err()
		})
	if err != nil {
		t.Fatal(err)
	}
	h := mcpkit.NewHTTPHandler(srv, nil)
	ts := testkit.NewServer(t, h)
	client := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, nil)

	stateless, err := mcpkit.ConnectURL(ctx, client, ts.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stateless.Close()
	sub, err := stateless.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	legacySSE, err := mcpkit.ConnectURL(ctx, client, ts.URL+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer legacySSE.Close()

	// A task in a 2025-11-25 session, started by hand.
	resp, body := post(t, ts.URL+"/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	post(t, ts.URL+"/mcp", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp, body := post(t, ts.URL+"/mcp", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work","arguments":{},"task":{"ttl":60000}}}`); !strings.Contains(body, `"taskId"`) {
		t.Fatalf("a task: %d %s", resp.StatusCode, body)
	}
	<-started

	shutdownCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := h.Shutdown(shutdownCtx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	within(t, "the listen stream to end", sub.Done())
	if err := sub.Err(); err != nil {
		t.Errorf("the listen stream was cut (%v), not ended with its final result", err)
	}
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the task's context: %v, want cancelled", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("the task still runs")
	}
	within(t, "the HTTP+SSE session to end", legacySSE.Done())
	if resp, body := post(t, ts.URL+"/mcp", sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a request after Shutdown: %d %s, want 503", resp.StatusCode, body)
	}
}

// within waits for ch to be closed, failing the test after 20 seconds.
func within(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestServeShutsDownWhenContextEnds: Serve returns nil once its context ends,
// ending an open stream rather than waiting for it, and closes the listener.
func TestServeShutsDownWhenContextEnds(t *testing.T) {
	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, newGreeter(), nil) }()
	client := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-06-18"})
	cs, err := mcpkit.ConnectURL(t.Context(), client, "http://"+ln.Addr().String()+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close() // its GET stream is open meanwhile
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener is still open")
	}
}

func TestListenBindsLoopbackWithoutHost(t *testing.T) {
	ln, err := mcpkit.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("bound %s, want 127.0.0.1", ip)
	}
	if _, err := mcpkit.Listen("8080"); err == nil {
		t.Error("an address without a port was accepted")
	}
}
