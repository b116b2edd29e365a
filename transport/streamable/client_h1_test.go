package streamable

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/mcpkit/mcpkit/internal/h1"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestClientDefaultTransport checks where the synchronous HTTP/1.1 transport is
// the default: an http:// URL without a proxy and without a caller's client.
func TestClientDefaultTransport(t *testing.T) {
	proxied := false
	old := clientProxy
	clientProxy = func(*http.Request) (*url.URL, error) {
		if proxied {
			return url.Parse("http://proxy.test:3128")
		}
		return nil, nil
	}
	t.Cleanup(func() { clientProxy = old })
	own := &http.Client{}
	for _, c := range []struct {
		url     string
		client  *http.Client
		proxied bool
		want    bool
	}{
		{"http://127.0.0.1:1/mcp", nil, false, true},
		{"https://127.0.0.1:1/mcp", nil, false, false},
		{"http://127.0.0.1:1/mcp", nil, true, false},
		{"http://127.0.0.1:1/mcp", own, false, false},
		{"http://127.0.0.1:1/mcp", http.DefaultClient, false, false},
	} {
		proxied = c.proxied
		conn, err := NewClientConn(context.Background(), c.url, &ClientOptions{HTTPClient: c.client})
		if err != nil {
			t.Fatal(err)
		}
		_, isH1 := conn.hc.Transport.(*h1.Transport)
		if got := conn.h1 != nil; got != c.want || got != isH1 {
			t.Errorf("%s (client %v, proxied %v): h1 %v, want %v", c.url, c.client != nil, c.proxied, got, c.want)
		}
		if !c.want && c.client == nil && conn.hc != http.DefaultClient {
			t.Errorf("%s: not http.DefaultClient", c.url)
		}
		conn.Close()
	}
}

// TestClientCloseReleasesConnections checks that Close closes the default
// transport's idle connections.
func TestClientCloseReleasesConnections(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	if c.h1 == nil {
		t.Fatal("the default transport is not h1")
	}
	clientHandshake(t, ctx, c)
	if c.h1.IdleConns() == 0 {
		t.Fatal("no idle connection after the handshake")
	}
	c.Close()
	if n := c.h1.IdleConns(); n != 0 {
		t.Fatalf("%d idle connections after Close", n)
	}
}
