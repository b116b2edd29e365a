package legacysse_test

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// TestTeardownWithAStreamLeftOpen is what a test that fails between dialling and
// closing its client leaves behind: a client stream, here through a relaying proxy
// as in TestRefusedPostFailsOneRequest, whose handler waits on the demo server's
// stream, which only ends after the proxy has stopped. httptest.Server.Close waits
// for that stream for as long as the client lives; the test servers must stop
// anyway, promptly, and the client must see its stream end.
func TestTeardownWithAStreamLeftOpen(t *testing.T) {
	servers := &testkit.DeferredCleanups{TB: t}
	url, h := serveDemo(servers, nil)
	proxy := relay(servers, strings.TrimSuffix(url, "/sse"), nil)
	conn, err := legacysse.NewClientConn(testkit.Context(t), proxy.URL+"/sse", &legacysse.ClientOptions{Logger: quiet})
	if err != nil {
		t.Fatalf("NewClientConn: %v", err)
	}
	defer conn.Close() // only once the teardown has been checked
	// NewClientConn returned on the endpoint event, which the server sends once the session is open.
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions behind the proxy, want 1", n)
	}

	servers.RunWithin(t, testkit.TeardownLimit)

	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions left after the teardown", n)
	}
	if msg, err := conn.Read(testkit.Context(t)); err == nil {
		t.Errorf("the client read %s after its servers stopped, want its stream to have ended", msg)
	}
}
