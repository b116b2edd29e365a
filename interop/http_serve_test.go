package interop

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/transport/streamable"
)

// serveAnnouncement is the line `mcpkit serve --http` prints on stderr once it listens.
var serveAnnouncement = regexp.MustCompile(`^mcpkit: serving the demo server at http://(127\.0\.0\.1:\d+)/mcp \(Streamable HTTP\) and http://127\.0\.0\.1:\d+/sse \(HTTP\+SSE\)$`)

// TestTypeScriptHTTPClientAgainstMcpkitServeHTTP runs the same TypeScript SDK client
// (http_ts_client.mjs) against the mcpkit binary, `mcpkit serve --http 127.0.0.1:0`
// with and without --sessionless, rather than against handlers mounted by the test: it
// checks the command's own wiring (the paths /mcp, /sse and /messages, the address it
// announces, its handler defaults, which are ResponseAuto) and that it shuts down
// cleanly, with exit status 0, on an interrupt after serving the clients.
func TestTypeScriptHTTPClientAgainstMcpkitServeHTTP(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	for _, tc := range []struct {
		name string
		args []string
		cfg  httpConfig
		sse  bool // also run the HTTP+SSE client
	}{
		{name: "stateful", cfg: httpConfig{echoType: mediaJSON, countType: mediaSSE}, sse: true},
		{name: "sessionless", args: []string{"--sessionless"},
			cfg: httpConfig{opts: streamable.HandlerOptions{Sessionless: true}, echoType: mediaJSON, countType: mediaSSE}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			out := newEventLog()
			cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--http", "127.0.0.1:0"}, tc.args...)...)
			// A data race in the server stops it at once, so that the client fails; no
			// pause at exit (the race runtime waits a second by default).
			cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 atexit_sleep_ms=0")
			m, server := startAnnouncedServer(ctx, t, cmd, out, serveAnnouncement)
			base := "http://" + m[1]

			r := runHTTPTSClient(t, node, "streamable", base+"/mcp", "")
			checkDemoSteps(t, r, "")
			checkStreamableExchanges(t, r, &tc.cfg)
			if tc.sse {
				r := runHTTPTSClient(t, node, "sse", base+"/sse", "")
				checkDemoSteps(t, r, "")
				checkLegacyExchanges(t, r)
			}

			start := time.Now()
			switch err := server.interrupt(10 * time.Second); {
			case errors.Is(err, errors.ErrUnsupported):
				t.Log("interrupts cannot be sent here: graceful shutdown not checked")
			case err != nil:
				t.Errorf("mcpkit serve after an interrupt: %v", err)
			default:
				t.Logf("mcpkit serve exited cleanly %v after the interrupt", time.Since(start).Round(time.Millisecond))
			}
			for _, line := range out.snapshot() {
				if strings.Contains(line, "DATA RACE") {
					t.Error("mcpkit serve reported a data race")
					break
				}
			}
		})
	}
}
