package gateway

import (
	"encoding/json"
	"errors"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/transport/streamable"
	"github.com/mcpkit/mcpkit/upstream"
)

// statusServers are a server that works, one that prints its token and dies,
// and one that is disabled.
func statusServers() []*upstream.ServerConfig {
	leaky := testServer("leaky", "leaky")
	leaky.Env["API_TOKEN"] = "tok-0123456789"
	off := testServer("off", "demo")
	off.Disabled = true
	return []*upstream.ServerConfig{testServer("a", "demo"), leaky, off}
}

// TestGatewayStatus: each server's state, what the gateway offers of it, and
// what went wrong, with the token the failing server printed redacted; the
// gateway is ready although one server is down.
func TestGatewayStatus(t *testing.T) {
	gw := startGatewayOptions(t, &Options{Logger: quiet, Supervisor: upstream.Options{InitialBackoff: time.Hour}}, statusServers()...)
	if err := gw.Ready(t.Context()); err != nil {
		t.Errorf("Ready with one server down: %v, want ready", err)
	}
	st := gw.Status()
	if !st.Ready || st.NotReady != "" || len(st.Servers) != 3 {
		t.Fatalf("Status = %+v", st)
	}
	a, leaky, off := st.Servers[0], st.Servers[1], st.Servers[2]
	if a.Name != "a" || a.State != "ready" || a.Transport != "stdio" || a.Tools < 10 || a.Prompts < 2 || a.Resources < 3 ||
		a.Restarts != 0 || a.PID == 0 || !strings.HasPrefix(a.Server, "mcpkit-demo ") || a.ProtocolVersion == "" {
		t.Errorf("a = %+v", a)
	}
	if leaky.Name != "leaky" || leaky.State != "backoff" || leaky.Failures != 1 || leaky.NextAttempt == nil ||
		!strings.Contains(leaky.LastError, "exited") || len(leaky.Stderr) != 1 || leaky.Stderr[0] != "fatal: token [redacted] refused" {
		t.Errorf("leaky = %+v", leaky)
	}
	if off.Name != "off" || off.State != "disabled" || off.PID != 0 {
		t.Errorf("off = %+v", off)
	}

	ts := httptest.NewServer(gw.StatusHandler())
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET: %d %v", resp.StatusCode, resp.Header)
	}
	var decoded Status
	if err := json.Unmarshal(body, &decoded); err != nil || len(decoded.Servers) != 3 || decoded.Servers[1].Stderr[0] != leaky.Stderr[0] {
		t.Errorf("the body does not decode to the status: %v\n%s", err, body)
	}
	for _, secret := range []string{"tok-0123456789", "API_TOKEN", serverEnv} {
		if strings.Contains(string(body), secret) {
			t.Errorf("the status shows %q:\n%s", secret, body)
		}
	}
	if resp, err := http.Post(ts.URL, "application/json", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v, want 405", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestGatewayReady: not ready before Start and after Close; with required
// servers, not ready while one of them is down, saying which.
func TestGatewayReady(t *testing.T) {
	cfg := &upstream.Config{Servers: map[string]*upstream.ServerConfig{}}
	unstarted := New(cfg, &Options{Logger: quiet})
	if err := unstarted.Ready(t.Context()); err == nil || !strings.Contains(err.Error(), "has not started") {
		t.Errorf("Ready before Start: %v", err)
	}

	gw := startGatewayOptions(t, &Options{Logger: quiet, RequiredServers: []string{"a", "leaky", "nope"},
		Supervisor: upstream.Options{InitialBackoff: time.Hour}}, statusServers()...)
	err := gw.Ready(t.Context())
	if err == nil || !strings.Contains(err.Error(), `required server "leaky" is backoff`) ||
		!strings.Contains(err.Error(), `required server "nope" is not in the configuration`) || strings.Contains(err.Error(), `"a"`) {
		t.Errorf("Ready with a required server down: %v", err)
	}
	if st := gw.Status(); st.Ready || !strings.Contains(st.NotReady, `"leaky"`) {
		t.Errorf("Status: ready %v, %q", st.Ready, st.NotReady)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Ready(t.Context()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Ready after Close: %v", err)
	}
}

// TestGatewayCallErrorRedacted: the errors of calls to an HTTP server that
// went away, and its status, name the server and hide the key its URL
// carries.
func TestGatewayCallErrorRedacted(t *testing.T) {
	const key = "sk-live-0123456789"
	srv, err := demo.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: streamable.NewHandler(srv, nil)}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	web := &upstream.ServerConfig{Name: "web", Transport: upstream.TransportHTTP, URL: "http://" + ln.Addr().String() + "/mcp?key=" + key}
	gw := startGateway(t, &upstream.Options{InitialBackoff: time.Hour, PingInterval: -1}, web)
	down := make(chan upstream.Status, 1)
	gw.Supervisor().Subscribe(func(e upstream.Event) {
		if e.Kind == upstream.EventState && e.Status.State == upstream.StateBackoff {
			select {
			case down <- e.Status:
			default:
			}
		}
	})
	cs := connectClient(t, gw, nil)
	ctx := testkit.Context(t)
	if got := call(ctx, t, cs, "web__echo", map[string]any{"message": "hi"}); got != "hello hi" {
		t.Fatalf("web__echo = %q", got)
	}
	_ = hs.Close() // the server goes away, its open streams with it
	check := func(what, text string) {
		t.Helper()
		if !strings.HasPrefix(text, `server "web"`) || strings.Contains(text, key) {
			t.Errorf("%s = %q, want it to name the server and hide the key", what, text)
		}
	}
	// The first call fails in the transport, or finds the session ended by
	// the supervisor (which the failed requests alert); either way it fails.
	res, err := cs.CallTool(ctx, "web__echo", map[string]any{"message": "hi"})
	if err != nil || !res.IsError {
		t.Fatalf("a call to the server that went away: %v %+v, want an isError result", err, res)
	}
	check("the first call's error", res.Content[0].Text)
	var st upstream.Status
	select {
	case st = <-down:
	case <-ctx.Done():
		t.Fatal("the server was not marked down")
	}
	if strings.Contains(st.LastError, key) || !strings.Contains(st.LastError, "key="+upstream.Redacted) {
		t.Errorf("LastError = %q, want the URL's key redacted", st.LastError)
	}
	res, err = cs.CallTool(ctx, "web__echo", map[string]any{"message": "hi"})
	if err != nil || !res.IsError {
		t.Fatalf("a call while the server is down: %v %+v, want an isError result", err, res)
	}
	check("the error while down", res.Content[0].Text)

	// A transport's error quoting the URL, as a call in flight may get it.
	u := &upServer{name: "web", cfg: web}
	cause := errors.New(`Post "` + web.URL + `": dial tcp: connection refused`)
	failed := u.failure(cause)
	check("failure", failed.Error())
	if !errors.Is(failed, cause) {
		t.Error("failure loses the error it words")
	}
}
