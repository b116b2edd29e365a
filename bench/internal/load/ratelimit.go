package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// RateConfig is one run of the rate-limit measurement: a server with a
// per-client budget (`mcpkit serve` or `mcpkit gateway` with --rate-limit and
// static tokens, started by the caller) is called by two clients at once, a
// greedy one far over its budget and a good one within it.
type RateConfig struct {
	Addr string // host:port of the server; MCP at /mcp

	GreedyToken   string // the greedy client's bearer token
	GreedyWorkers int    // its workers, each calling as fast as it is answered
	GoodToken     string // the good client's bearer token
	GoodRate      int    // the good client's calls per second, paced (one worker)

	Duration       time.Duration // the measured window
	RequestTimeout time.Duration // per exchange; 0 means 10 s
}

// RateResult is what a rate-limit run measured over its window.
type RateResult struct {
	Seconds float64 `json:"seconds"`

	GreedyOK         int64 `json:"greedyOK"`         // calls answered
	GreedyLimited    int64 `json:"greedyLimited"`    // 429s
	GreedyNoRetry    int64 `json:"greedyNoRetry"`    // 429s without Retry-After
	GreedyOtherError int64 `json:"greedyOtherError"` // anything else

	GoodCalls   int64   `json:"goodCalls"`   // calls answered and checked
	GoodRefused int64   `json:"goodRefused"` // 429s: must be 0
	GoodErrors  int64   `json:"goodErrors"`  // other failures: must be 0
	GoodPerSec  float64 `json:"goodPerSec"`
	GoodP50Ms   float64 `json:"goodP50Ms"`
	GoodP99Ms   float64 `json:"goodP99Ms"`

	FirstError string `json:"firstError,omitempty"`
}

// errLimited is a 429 answer.
var errLimited = errors.New("HTTP 429")

// limitedCall is one tools/call of the echo tool: errLimited for a 429
// (retryAfter says whether it came with Retry-After), another error for
// anything but the right answer.
func (c *httpClient) limitedCall(id int64, message, want []byte) (retryAfter bool, err error) {
	c.body = appendCall(c.body[:0], id, message)
	resp, err := c.conn.post(mcpPath, c.body, c.sessionID, c.version)
	if err != nil {
		return false, err
	}
	if resp.Status == 429 {
		return resp.RetryAfter != "", errLimited
	}
	if resp.Status != 200 {
		return false, fmt.Errorf("tools/call: HTTP %d: %.200s", resp.Status, resp.Body)
	}
	c.msgs = bodyMessages(c.msgs, resp.ContentType, resp.Body)
	return false, checkCall(c.msgs, id, want)
}

// RunRateLimit runs both clients for cfg.Duration (each over its own
// keep-alive connections, stateless requests after a handshake each) and
// returns what they got.
func RunRateLimit(ctx context.Context, cfg RateConfig) (RateResult, error) {
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	var res RateResult
	var firstErr atomic.Pointer[string]
	fail := func(err error) {
		msg := err.Error()
		firstErr.CompareAndSwap(nil, &msg)
	}
	newClient := func(token string) *httpClient {
		conn := newHTTPConn(cfg.Addr, cfg.RequestTimeout)
		conn.header = "Authorization: Bearer " + token + "\r\n"
		return &httpClient{conn: conn, stateful: true}
	}
	// The handshakes are made first: they count against the budgets too,
	// and the good client's must not be refused.
	good := newClient(cfg.GoodToken)
	defer good.conn.close()
	if err := good.handshake(1); err != nil {
		return res, fmt.Errorf("the good client's handshake: %w", err)
	}
	greedy := make([]*httpClient, cfg.GreedyWorkers)
	for w := range greedy {
		greedy[w] = newClient(cfg.GreedyToken)
		defer greedy[w].conn.close()
		if err := greedy[w].handshake(1); err != nil {
			return res, fmt.Errorf("the greedy client's handshake %d: %w", w, err)
		}
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for w, c := range greedy {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var msg, want []byte
			for seq := int64(2); ctx.Err() == nil; seq++ {
				msg = appendMessage(msg[:0], w, seq)
				want = append(append(want[:0], "hello "...), msg...)
				retry, err := c.limitedCall(seq, msg, want)
				switch {
				case err == nil:
					atomic.AddInt64(&res.GreedyOK, 1)
				case errors.Is(err, errLimited):
					atomic.AddInt64(&res.GreedyLimited, 1)
					if !retry {
						atomic.AddInt64(&res.GreedyNoRetry, 1)
					}
				case ctx.Err() == nil:
					atomic.AddInt64(&res.GreedyOtherError, 1)
					fail(fmt.Errorf("greedy: %w", err))
				}
			}
		}()
	}
	var latencies []int64
	tick := time.NewTicker(time.Second / time.Duration(max(cfg.GoodRate, 1)))
	var msg, want []byte
	for seq := int64(2); ; seq++ {
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		if ctx.Err() != nil {
			break
		}
		msg = appendMessage(msg[:0], 1000, seq)
		want = append(append(want[:0], "hello "...), msg...)
		t0 := time.Now()
		_, err := good.limitedCall(seq, msg, want)
		elapsed := time.Since(t0)
		switch {
		case err == nil:
			res.GoodCalls++
			latencies = append(latencies, int64(elapsed))
		case errors.Is(err, errLimited):
			res.GoodRefused++
		default:
			res.GoodErrors++
			fail(fmt.Errorf("good: %w", err))
		}
	}
	tick.Stop()
	res.Seconds = time.Since(start).Seconds()
	wg.Wait()
	res.GoodPerSec = float64(res.GoodCalls) / res.Seconds
	res.GoodP50Ms = percentile(latencies, 0.50) / 1e6
	res.GoodP99Ms = percentile(latencies, 0.99) / 1e6
	if p := firstErr.Load(); p != nil {
		res.FirstError = *p
	}
	return res, nil
}
