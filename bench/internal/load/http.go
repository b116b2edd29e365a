package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// mcpPath is where every server binary mounts its MCP endpoint.
const mcpPath = "/mcp"

// httpClient is one simulated Streamable HTTP client: a connection and, once the
// handshake is done, its session.
type httpClient struct {
	conn      *httpConn
	stateful  bool
	requireID bool
	sessionID string
	version   string // negotiated protocol version, sent as Mcp-Protocol-Version
	msgs      [][]byte
	body      []byte
}

// errSessionLost means the server answered 404: the session is gone.
var errSessionLost = errors.New("session not found (404)")

// handshake sends initialize and notifications/initialized.
func (c *httpClient) handshake(id int64) error {
	c.sessionID, c.version = "", ""
	c.body = appendInitialize(c.body[:0], id)
	resp, err := c.conn.post(mcpPath, c.body, "", "")
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if resp.Status != 200 {
		return fmt.Errorf("initialize: HTTP %d: %.200s", resp.Status, resp.Body)
	}
	c.msgs = bodyMessages(c.msgs, resp.ContentType, resp.Body)
	version, err := checkInitialize(c.msgs, id)
	if err != nil {
		return err
	}
	if c.stateful {
		c.sessionID = resp.SessionID
		if c.sessionID == "" && c.requireID {
			return errors.New("initialize: no Mcp-Session-Id in a stateful server's answer")
		}
	}
	c.version = version
	resp, err = c.conn.post(mcpPath, initializedNotification, c.sessionID, c.version)
	if err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if resp.Status/100 != 2 {
		return fmt.Errorf("notifications/initialized: HTTP %d: %.200s", resp.Status, resp.Body)
	}
	return nil
}

// call sends tools/call id with message and checks the reply (want is "hello " +
// message).
func (c *httpClient) call(id int64, message, want []byte) error {
	c.body = appendCall(c.body[:0], id, message)
	resp, err := c.conn.post(mcpPath, c.body, c.sessionID, c.version)
	if err != nil {
		return err
	}
	switch {
	case resp.Status == 404 && c.sessionID != "":
		return errSessionLost
	case resp.Status != 200:
		return fmt.Errorf("tools/call: HTTP %d: %.200s", resp.Status, resp.Body)
	}
	c.msgs = bodyMessages(c.msgs, resp.ContentType, resp.Body)
	return checkCall(c.msgs, id, want)
}

// runHTTP measures tools/call throughput over Streamable HTTP at addr (the
// server p, or a balancer in front of it) with cfg.Concurrency workers, each
// with its own keep-alive connection and session.
func runHTTP(ctx context.Context, cfg Config, p *serverProc, addr string, res *Result) error {
	stateful := cfg.Mode == ModeHTTPStateful || cfg.Mode == ModeRedis
	return runWorkers(ctx, cfg, p, res, cfg.Concurrency, func(ctx context.Context, w int, phase *atomic.Int32, rec *recorder) {
		c := &httpClient{conn: newHTTPConn(addr, cfg.RequestTimeout), stateful: stateful, requireID: cfg.RequireSession}
		defer c.conn.close()
		base := int64(w+1) << 32 // ids stay below 2^53, JSON-safe
		initialized := false
		var msg, want []byte
		for seq := int64(1); phase.Load() != phaseDone && ctx.Err() == nil; seq++ {
			if !initialized {
				if err := c.handshake(base); err != nil {
					rec.fail(err)
					sleepCtx(ctx, 10*time.Millisecond) // a broken server: do not spin
					continue
				}
				initialized = true
			}
			msg = appendMessage(msg[:0], w, seq)
			want = append(append(want[:0], "hello "...), msg...)
			start := time.Now()
			err := c.call(base+seq, msg, want)
			elapsed := time.Since(start)
			if err != nil {
				rec.fail(err)
				if errors.Is(err, errSessionLost) {
					initialized = false
				}
				continue
			}
			if phase.Load() == phaseMeasure {
				rec.latencies = append(rec.latencies, int64(elapsed))
			}
		}
	})
}

// statelessHeaders are the 2026-07-28 headers of every tools/call of the echo
// tool, besides Mcp-Protocol-Version.
const statelessHeaders = "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"

// runHTTPStateless is runHTTP in the 2026-07-28 era (the floor of
// ModeClientHTTPStateless): no handshake and no session; each tools/call
// carries the client's envelope in its _meta, as mcpkit's client sends it.
func runHTTPStateless(ctx context.Context, cfg Config, p *serverProc, res *Result) error {
	return runWorkers(ctx, cfg, p, res, cfg.Concurrency, func(ctx context.Context, w int, phase *atomic.Int32, rec *recorder) {
		conn := newHTTPConn(p.addr, cfg.RequestTimeout)
		conn.header = statelessHeaders
		defer conn.close()
		base := int64(w+1) << 32
		var body, msg, want []byte
		var msgs [][]byte
		for seq := int64(1); phase.Load() != phaseDone && ctx.Err() == nil; seq++ {
			msg = appendMessage(msg[:0], w, seq)
			want = append(append(want[:0], "hello "...), msg...)
			body = appendStatelessCall(body[:0], base+seq, msg)
			start := time.Now()
			resp, err := conn.post(mcpPath, body, "", statelessVersion)
			if err == nil && resp.Status != 200 {
				err = fmt.Errorf("tools/call: HTTP %d: %.200s", resp.Status, resp.Body)
			}
			if err == nil {
				msgs = bodyMessages(msgs, resp.ContentType, resp.Body)
				err = checkCall(msgs, base+seq, want)
			}
			elapsed := time.Since(start)
			if err != nil {
				rec.fail(err)
				continue
			}
			if phase.Load() == phaseMeasure {
				rec.latencies = append(rec.latencies, int64(elapsed))
			}
		}
	})
}

// idleWarmupSessions are opened (and not counted) before the first memory reading,
// so that code paths and pools touched by the first sessions do not count.
const idleWarmupSessions = 20

// idleVerifySessions is how many of the opened sessions are checked, at the end,
// to still work: a server that dropped them would look cheap.
const idleVerifySessions = 10

// idleReadBuffer is the load generator's read buffer on each idle connection: the
// handshake's answers are small, and thousands of connections stay open.
const idleReadBuffer = 4 << 10

// runIdle opens cfg.Sessions sessions and measures the server's memory growth per
// session. Each session is what a client keeps while it says nothing: a keep-alive
// connection of its own, on which initialize and notifications/initialized were
// sent and answered, held open until the memory has been read. An MCP server keeps
// the connection and its session (the Mcp-Session-Id it issued); the bare server
// (the ceiling) keeps only the connection, which makes its figure the floor that
// the others are compared with in the same run.
func runIdle(ctx context.Context, cfg Config, p *serverProc, res *Result) error {
	open := func(n int) ([]*httpClient, int64, error) {
		const workers = 4
		clients := make([]*httpClient, n)
		var errs atomic.Int64
		var firstErr error
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n && ctx.Err() == nil; i += workers {
					conn := newHTTPConn(p.addr, cfg.RequestTimeout)
					conn.readBuffer = idleReadBuffer
					c := &httpClient{conn: conn, stateful: true, requireID: cfg.RequireSession}
					if err := c.handshake(int64(i + 1)); err != nil {
						conn.close()
						errs.Add(1)
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						continue
					}
					clients[i] = c
				}
			}()
		}
		wg.Wait()
		return clients, errs.Load(), firstErr
	}
	closeAll := func(clients []*httpClient) {
		for _, c := range clients {
			if c != nil {
				c.conn.close()
			}
		}
	}
	warm, errs, err := open(idleWarmupSessions)
	closeAll(warm)
	if errs > 0 {
		return fmt.Errorf("warm-up sessions: %d failed: %w", errs, err)
	}
	// Let the server finish with the closed connections before measuring.
	sleepCtx(ctx, 300*time.Millisecond)
	ms0, err := p.memStats(true)
	if err != nil {
		return err
	}
	rss0, err := procRSS(p.pid)
	if err != nil {
		return err
	}
	start := time.Now()
	clients, errs, firstErr := open(cfg.Sessions)
	defer closeAll(clients)
	res.Seconds = time.Since(start).Seconds()
	res.Errors += errs
	if firstErr != nil {
		res.FirstError = firstErr.Error()
	}
	sleepCtx(ctx, 500*time.Millisecond)
	ms1, err := p.memStats(true)
	if err != nil {
		return err
	}
	rss1, err := procRSS(p.pid)
	if err != nil {
		return err
	}
	if res.PeakRSSBytes, err = procPeakRSS(p.pid); err != nil {
		return err
	}
	for _, c := range clients {
		if c != nil {
			res.Sessions++
		}
	}
	res.Calls = int64(res.Sessions)
	res.CallsPerSec = float64(res.Sessions) / res.Seconds
	res.RSSBytes = rss1
	if res.Sessions > 0 {
		n := float64(res.Sessions)
		res.RSSPerSession = float64(rss1-rss0) / n
		res.HeapPerSession = float64(ms1.HeapAlloc-ms0.HeapAlloc) / n
		res.StackPerSession = float64(ms1.StackInuse-ms0.StackInuse) / n
		res.GoroutinesPerSession = float64(ms1.Goroutines-ms0.Goroutines) / n
	}
	if res.Sessions == 0 {
		return errors.New("no session opened")
	}
	// The sessions must still work: call the tool in a few of them, spread evenly,
	// each on its own connection, still open.
	for k := range idleVerifySessions {
		c := clients[k*len(clients)/idleVerifySessions]
		if c == nil {
			continue
		}
		msg := fmt.Appendf(nil, "idle-%d", k)
		if err := c.call(int64(1<<40+k), msg, append([]byte("hello "), msg...)); err != nil {
			res.Errors++
			if res.FirstError == "" {
				res.FirstError = fmt.Sprintf("idle session %d: %v", k, err)
			}
		}
	}
	return nil
}
