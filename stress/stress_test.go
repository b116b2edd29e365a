//go:build linux

package stress

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The server's limits, small so that the attacks pass them at reduced scale.
const (
	maxConnections = 64
	maxSessions    = 40
	perClient      = 10
	maxStreams     = 8
	maxBody        = 64 << 10
	timeoutFlag    = time.Second     // --header-timeout and --body-timeout
	connIdle       = 2 * time.Second // --conn-idle-timeout
	sessionIdle    = 3 * time.Second // --idle-timeout
)

// TestAttacksAndRecovery replays the hardening review's attacks against a
// real `mcpkit serve --http` process, then checks that a normal client is
// served in full and that the process's memory and descriptors come back near
// their baseline. A prober calls the server throughout: whatever the attacks
// make it refuse, nothing may ever be answered wrongly.
func TestAttacksAndRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("the stress group takes about a minute")
	}
	bin := buildMCPKit(t, t.TempDir())
	s := startServer(t, bin,
		"--max-connections", fmt.Sprint(maxConnections),
		"--max-sessions", fmt.Sprint(maxSessions),
		"--max-sessions-per-client", fmt.Sprint(perClient),
		"--max-streams", fmt.Sprint(maxStreams),
		"--max-body-bytes", fmt.Sprint(maxBody),
		"--header-timeout", timeoutFlag.String(),
		"--body-timeout", timeoutFlag.String(),
		"--conn-idle-timeout", connIdle.String(),
		"--idle-timeout", sessionIdle.String(),
	)

	// Baseline: once a normal client has been served and has left.
	verifyService(t, s.addr)
	base, _ := s.settle(10*time.Second, func(u usage) bool { return u.fds <= 13 })
	t.Logf("baseline: %v", base)

	p := startProber(t, s.addr)
	peak := s.watch()

	// Every wave of connections beyond the cap gets in as the server's
	// timeouts close the one before: allow a few waves.
	waves := func(n int, each time.Duration) time.Duration {
		return time.Duration((n+maxConnections-1)/maxConnections+2)*each + 10*time.Second
	}
	t.Run("idle connections beyond the cap", func(t *testing.T) {
		idleConnections(t, s, 3*maxConnections, waves(3*maxConnections, timeoutFlag))
	})
	t.Run("kept-alive idle connections", func(t *testing.T) {
		keptAliveConnections(t, s, maxConnections/2, connIdle+10*time.Second)
	})
	t.Run("slow bodies beyond the cap", func(t *testing.T) {
		slowClients(t, s, 2*maxConnections, false, waves(2*maxConnections, timeoutFlag))
	})
	t.Run("slow headers", func(t *testing.T) {
		slowClients(t, s, maxConnections/2, true, waves(maxConnections/2, timeoutFlag))
	})
	t.Run("session flood", func(t *testing.T) { sessionFlood(t, s) })
	t.Run("stream flood", func(t *testing.T) { streamFlood(t, s) })
	t.Run("oversized and malformed messages", func(t *testing.T) { badMessages(t, s) })
	t.Run("clients vanishing mid-stream", func(t *testing.T) { vanishingClients(t, s) })

	top := peak()
	p.finish(t)
	t.Logf("peak during the attacks: %v", top)
	if limit := base.fds + maxConnections + 16; top.fds > limit {
		t.Errorf("the server held %d descriptors, more than its connection cap allows (%d)", top.fds, limit)
	}
	if top.rssKB > base.rssKB+48<<10 {
		t.Errorf("the server's RSS reached %v (baseline %v)", top, base)
	}

	// Recovery: a normal client is served in full, and the process lets go of
	// what the attacks made it hold.
	verifyService(t, s.addr)
	after, ok := s.settle(20*time.Second, func(u usage) bool {
		return u.fds <= base.fds+4 && u.rssKB <= base.rssKB+16<<10 && u.goroutines <= base.goroutines+8
	})
	t.Logf("after the attacks: %v", after)
	if !ok {
		t.Errorf("the server did not come back near its baseline: %v, baseline %v", after, base)
	}
}

// sessionFlood opens sessions from several client addresses: one client gets
// its share and then 429, the server fills and then gives 503, and both come
// with Retry-After and a JSON-RPC error; the HTTP+SSE transport draws on the
// same budget; ended and expired sessions free their places.
func sessionFlood(t *testing.T, s *server) {
	ctx := t.Context()
	greedy := newClient(s.addr, "127.0.0.2")
	var greedySessions []string
	for i := range perClient + 5 {
		sid, r, err := greedy.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if i < perClient {
			if sid == "" {
				t.Fatalf("session %d of a client within its share: %d %s", i, r.status, r.body)
			}
			greedySessions = append(greedySessions, sid)
			continue
		}
		refused(t, r, http.StatusTooManyRequests, "this client address holds 10 sessions")
	}
	// The HTTP+SSE transport counts against the same share.
	r, err := greedy.do(ctx, http.MethodGet, "/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	refused(t, r, http.StatusTooManyRequests, "this client address holds 10 sessions")

	opened, full := 0, 0
	for ip := 3; ip <= 7; ip++ {
		c := newClient(s.addr, fmt.Sprintf("127.0.0.%d", ip))
		for range perClient {
			sid, r, err := c.initialize(ctx)
			switch {
			case err != nil:
				t.Fatal(err)
			case sid != "":
				opened++
			default:
				full++
				refused(t, r, http.StatusServiceUnavailable, "server full")
			}
		}
		c.http.CloseIdleConnections()
	}
	const prober = 1 // the prober's session is open throughout
	if want := maxSessions - perClient - prober; opened != want || full != 5*perClient-want {
		t.Errorf("%d sessions opened and %d refused as full, want %d and %d", opened, full, want, 5*perClient-want)
	}

	// Ended sessions free their places at once...
	for _, sid := range greedySessions {
		if err := greedy.end(ctx, sid); err != nil {
			t.Fatal(err)
		}
	}
	greedy.http.CloseIdleConnections()
	late := newClient(s.addr, "127.0.0.8")
	defer late.http.CloseIdleConnections()
	for range perClient {
		if sid, r, err := late.initialize(ctx); err != nil || sid == "" {
			t.Fatalf("a session after others ended: %v %d %s", err, r.status, r.body)
		}
	}
	// ... and idle ones once they expire: the server is full until then.
	deadline := time.Now().Add(sessionIdle + 15*time.Second)
	for {
		sid, r, err := late.initialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sid != "" {
			break
		}
		if r.status != http.StatusServiceUnavailable && r.status != http.StatusTooManyRequests {
			t.Fatalf("while full: %d %s", r.status, r.body)
		}
		if time.Now().After(deadline) {
			t.Fatal("idle sessions never expired")
		}
		select { // the server is another process: retry as Retry-After says, faster
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return
		}
	}
}

// streamFlood opens more HTTP+SSE streams than the cap: the ones beyond get
// 503 with Retry-After; closing them frees the places.
func streamFlood(t *testing.T, s *server) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var open []*http.Response
	defer func() {
		for _, r := range open {
			r.Body.Close()
		}
	}()
	for i := range maxStreams + 3 {
		c := newClient(s.addr, fmt.Sprintf("127.0.1.%d", i+1)) // a client each: no share is reached
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/sse", nil)
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if i < maxStreams {
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("stream %d within the cap: %s", i, resp.Status)
			}
			open = append(open, resp)
			continue
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		resp.Body.Close()
		refused(t, reply{status: resp.StatusCode, header: resp.Header, body: body.Bytes()}, http.StatusServiceUnavailable, "streams are open")
	}
}

// badMessages sends bodies over the size limit (declared and chunked) and
// malformed JSON, to both transports.
func badMessages(t *testing.T, s *server) {
	ctx := t.Context()
	c := newClient(s.addr, "127.0.0.1")
	defer c.http.CloseIdleConnections()
	big := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxBody) + `"}}`)
	for range 10 {
		r, err := c.do(ctx, http.MethodPost, "/mcp", big)
		if err != nil || r.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("an oversized body: %v %d %s", err, r.status, r.body)
		}
		// Chunked: no Content-Length to refuse it by.
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/mcp", struct{ *bytes.Reader }{bytes.NewReader(big)})
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("an oversized chunked body: %s", resp.Status)
		}
		r, err = c.do(ctx, http.MethodPost, "/mcp", []byte(`{"jsonrpc":"2.0","id":1,"method":`))
		if code, _ := r.rpcError(); err != nil || r.status != http.StatusBadRequest || code != -32700 {
			t.Fatalf("malformed JSON: %v %d %s", err, r.status, r.body)
		}
	}
	// HTTP+SSE: a session's message endpoint.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/sse", nil)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, endpoint := "", ""
	for buf := make([]byte, 1); endpoint == ""; {
		if _, err := resp.Body.Read(buf); err != nil {
			t.Fatalf("reading the endpoint event: %v", err)
		}
		if buf[0] != '\n' {
			line += string(buf)
			continue
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			endpoint = data
		}
		line = ""
	}
	r, err := c.do(ctx, http.MethodPost, endpoint, big)
	if err != nil || r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized message over HTTP+SSE: %v %d %s", err, r.status, r.body)
	}
	r, err = c.do(ctx, http.MethodPost, endpoint, []byte(`{"jsonrpc":`))
	if code, _ := r.rpcError(); err != nil || r.status != http.StatusBadRequest || code != -32700 {
		t.Errorf("malformed JSON over HTTP+SSE: %v %d %s", err, r.status, r.body)
	}
}

// vanishingClients opens streams of every kind and resets their connections
// after the first bytes: a tool call streaming progress in a session, an
// HTTP+SSE stream, a 2026-07-28 subscriptions/listen.
func vanishingClients(t *testing.T, s *server) {
	ctx := t.Context()
	c := newClient(s.addr, "127.0.0.1")
	defer c.http.CloseIdleConnections()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for i := range 20 {
		sid, r, err := c.initialize(ctx)
		if err != nil || sid == "" {
			t.Fatalf("initialize: %v %d %s", err, r.status, r.body)
		}
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{"n":1000},"_meta":{"progressToken":1}}}`, i)
		vanishMidStream(t, s.addr, httpRequest(http.MethodPost, "/mcp", s.addr, call, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18"), 3)
		vanishMidStream(t, s.addr, httpRequest(http.MethodGet, "/sse", s.addr, ""), 2)
		listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`
		vanishMidStream(t, s.addr, httpRequest(http.MethodPost, "/mcp", s.addr, listen,
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"), 2)
		if err := c.end(ctx, sid); err != nil {
			t.Error(err)
		}
	}
}
