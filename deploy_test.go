package mcpkit_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// nginxExample is the nginx configuration the repository ships for replicas.
const nginxExample = "deploy/nginx/mcpkit-replicas.conf"

// TestNginxExampleSSESettings: the nginx example has what SSE through a
// proxy needs: no buffering (each event goes out as written), HTTP/1.1 with
// keep-alive connections to the replicas, and a read timeout longer than
// mcpkit's SSE keep-alive interval (TestNginxExampleKeepsIdleStreams shows
// why, with nginx running).
func TestNginxExampleSSESettings(t *testing.T) {
	b, err := os.ReadFile(nginxExample)
	if err != nil {
		t.Fatal(err)
	}
	var conf strings.Builder // without comments
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		conf.WriteString(line + "\n")
	}
	for _, want := range []string{
		`(?m)^\s*proxy_buffering off;`,
		`(?m)^\s*proxy_http_version 1\.1;`,
		`(?m)^\s*proxy_set_header Connection "";`, // no "Connection: close" to the upstream
		`(?s)upstream mcpkit \{[^}]*\bkeepalive [1-9][0-9]*;`,
	} {
		if !regexp.MustCompile(want).MatchString(conf.String()) {
			t.Errorf("%s has nothing matching %s", nginxExample, want)
		}
	}
	m := regexp.MustCompile(`(?m)^\s*proxy_read_timeout (\d+)s;`).FindStringSubmatch(conf.String())
	if m == nil {
		t.Fatalf("%s sets no proxy_read_timeout in seconds", nginxExample)
	}
	if n, _ := strconv.Atoi(m[1]); time.Duration(n)*time.Second <= streamable.DefaultKeepAlive {
		t.Errorf("%s: proxy_read_timeout %ss is not longer than the SSE keep-alive interval %v", nginxExample, m[1], streamable.DefaultKeepAlive)
	}
}

// TestNginxExampleKeepsIdleStreams runs nginx with the example, its read
// timeout cut to 1 s, in front of mcpkit: a GET stream on which nothing
// happens outlives three read timeouts when keep-alives flow (every 250 ms)
// and then still delivers a notification; without keep-alives nginx cuts it
// after the read timeout.
func TestNginxExampleKeepsIdleStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx for a few seconds; skipped in -short mode")
	}
	nginx := findNginx(t)
	const readTimeout = time.Second
	b, err := os.ReadFile(nginxExample)
	if err != nil {
		t.Fatal(err)
	}
	short := regexp.MustCompile(`proxy_read_timeout \d+s;`).ReplaceAllString(string(b), fmt.Sprintf("proxy_read_timeout %ds;", int(readTimeout.Seconds())))
	example := filepath.Join(t.TempDir(), "mcpkit-replicas.conf")
	if err := os.WriteFile(example, []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		keepAlive time.Duration
	}{
		{"keep-alives every 250 ms", 250 * time.Millisecond},
		{"no keep-alives", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newGreeter()
			h := mcpkit.NewHTTPHandler(srv, &mcpkit.HTTPOptions{KeepAlive: tc.keepAlive, AllowedHosts: []string{"*"}})
			t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
			ts := testkit.NewServer(t, h)
			url, _ := testkit.StartBalancer(t, nginx, example, []string{strings.TrimPrefix(ts.URL, "http://")})
			stream := idleGetStream(t, url+"/mcp")
			opened := time.Now()
			select {
			case r := <-stream:
				if tc.keepAlive > 0 {
					t.Fatalf("the idle stream ended after %v (%v, event %+v); nginx's read timeout is %v", time.Since(opened), r.err, r.ev, readTimeout)
				}
				// nginx's timer starts at its last read from mcpkit, a little before
				// opened: a cut well before the timeout is a failure of something else.
				if r.err == nil || time.Since(opened) < readTimeout/2 {
					t.Fatalf("without keep-alives: %v after %v; want the stream cut by nginx after about %v", r.err, time.Since(opened), readTimeout)
				}
				return
			case <-time.After(3 * readTimeout):
				if tc.keepAlive < 0 {
					t.Fatalf("without keep-alives the stream outlived nginx's read timeout (%v): is the timeout applied?", readTimeout)
				}
			}
			_ = mcp.AddTool(srv, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.ToolRequest, struct{}) (string, error) { return "", nil })
			r := testkit.Receive(t, stream)
			if r.err != nil || !strings.Contains(string(r.ev.Data), protocol.NotificationToolsListChanged) {
				t.Fatalf("after %v idle: %+v %v; want tools/list_changed", time.Since(opened), r.ev, r.err)
			}
		})
	}
}

// streamRead is one read of an event stream: an event with data, or the
// error that ended the stream.
type streamRead struct {
	ev  sse.Event
	err error
}

// idleGetStream opens a session at url and its GET stream, and returns what
// the stream delivers, read by a goroutine that ends with the stream.
func idleGetStream(t *testing.T, url string) <-chan streamRead {
	t.Helper()
	resp, body := testkit.PostMCP(t, t.Context(), url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize through nginx: %d %s", resp.StatusCode, body)
	}
	hdr := map[string]string{streamable.HeaderSessionID: sid}
	if resp, body := testkit.PostMCP(t, t.Context(), url, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized through nginx: %d %s", resp.StatusCode, body)
	}
	get := testkit.OpenMCP(t, t.Context(), http.MethodGet, url, hdr, "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET through nginx: %d", get.StatusCode)
	}
	out := make(chan streamRead, 4)
	go func() { // ends when the stream does (at the latest when the test closes its body)
		d := sse.NewDecoder(get.Body)
		for {
			ev, err := d.Next()
			if err != nil {
				out <- streamRead{err: err}
				return
			}
			if len(ev.Data) > 0 {
				out <- streamRead{ev: ev}
			}
		}
	}()
	return out
}

// findNginx returns the path of nginx (Debian installs it in /usr/sbin),
// failing the test under CI=true if it is missing, and skipping it otherwise.
func findNginx(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("nginx is not installed (Debian: apt-get install nginx; scripts/test.sh installs it)")
	}
	t.Skip("nginx is not installed (Debian: apt-get install nginx); CI=true makes this a failure")
	return ""
}
