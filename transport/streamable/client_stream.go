package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// clientStreamState is what survives the reconnections of one SSE stream.
type clientStreamState struct {
	lastID   string        // the last event id seen, for Last-Event-Id
	retry    time.Duration // the server's reconnection time
	hasRetry bool
}

// errStreamEnded describes an SSE stream the server closed cleanly.
var errStreamEnded = errors.New("the event stream ended")

// consumeSSE delivers the messages of an event stream until it ends. It reports
// whether the stream made progress (a message or a new event id arrived), and nil
// for a clean end of the stream. A stream that carried an event larger than
// MaxMessageSize (dropped) ends with an error wrapping jsonrpc.ErrMessageTooLarge
// that says so: that is why a response it should have carried is missing.
func (c *ClientConn) consumeSSE(body io.Reader, st *clientStreamState) (progressed bool, err error) {
	d := sse.NewDecoderWithOptions(body, sse.DecoderOptions{LastEventID: st.lastID, MaxEventSize: c.opts.MaxMessageSize})
	start := st.lastID
	delivered := false
	var dropped error
	defer func() {
		st.lastID = d.LastEventID()
		if r, ok := d.Retry(); ok {
			st.retry, st.hasRetry = r, true
		}
		progressed = delivered || st.lastID != start
	}()
	for {
		ev, err := d.Next()
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				c.log.Warn("streamable: dropped an event larger than MaxMessageSize", "limit", c.opts.MaxMessageSize)
				dropped = fmt.Errorf("the server sent a message larger than this client's limit of %d bytes (MaxMessageSize), which was dropped: %w",
					c.opts.MaxMessageSize, jsonrpc.ErrMessageTooLarge)
				continue
			}
			if dropped != nil {
				return false, dropped
			}
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		// Events of other types, and events with no data (a server primes a stream
		// with an id and empty data), carry no message.
		if ev.Type != "message" || len(ev.Data) == 0 {
			continue
		}
		delivered = true
		if !c.deliver(ev.Data) {
			return false, errClientClosed
		}
	}
}

// deliver queues the message(s) in data for Read: a batch is split into its
// messages, and a response whose request is not pending is dropped. It reports false
// once the connection is closed.
func (c *ClientConn) deliver(data []byte) bool {
	if jsonrpc.IsBatch(data) {
		msgs, errs, err := jsonrpc.DecodeBatch(data)
		if err != nil {
			c.log.Warn("streamable: dropping a malformed batch from the server", "error", err)
			return true
		}
		for i, m := range msgs {
			if errs != nil && errs[i] != nil {
				c.log.Warn("streamable: dropping a malformed message of a batch", "error", errs[i])
				continue
			}
			if m.IsResponse() && !c.claim(m) {
				continue
			}
			if !c.enqueue(jsonrpc.Encode(m)) {
				return false
			}
		}
		return true
	}
	var m jsonrpc.Message
	if err := jsonrpc.DecodeInto(data, &m); err == nil && m.IsResponse() && !c.claim(&m) {
		return true
	}
	// Anything else, malformed messages included, is the JSON-RPC layer's to judge.
	return c.enqueue(data)
}

// claim takes the pending request a response answers; it reports false, logging at
// debug level, when there is none. The response to an initialize request names the
// protocol version to send from now on.
func (c *ClientConn) claim(m *jsonrpc.Message) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.pending[m.ID]
	if !ok {
		c.log.Debug("streamable: dropping a response to no pending request", "id", m.ID)
		return false
	}
	delete(c.pending, m.ID)
	if k.initialize && m.Error == nil {
		c.session.setVersion(clientResultVersion(m.Result))
	}
	return true
}

// clientResultVersion returns the protocolVersion of an InitializeResult.
func clientResultVersion(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.ProtocolVersion
}

func (c *ClientConn) anyPending(k *clientCall) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range k.ids {
		if c.pending[id] == k {
			return true
		}
	}
	return false
}

// followStream reads a request's SSE reply. If the stream ends before every
// response arrived, it resumes it with GET and Last-Event-Id, as the server's retry
// field (or the backoff) says, until the responses arrive, the server cannot resume,
// or MaxReconnects attempts in a row failed (no connection, or a stream that ended
// without progress); then it returns why.
func (c *ClientConn) followStream(ctx context.Context, k *clientCall, body io.ReadCloser) error {
	var st clientStreamState
	failures := 0
	cause := errStreamEnded
	for {
		if body != nil {
			progressed, err := c.consumeSSE(body, &st)
			body.Close()
			body = nil
			if progressed {
				failures = 0
			} else {
				failures++
			}
			cause = errStreamEnded
			if err != nil {
				cause = err
			}
		}
		if !c.anyPending(k) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(cause, jsonrpc.ErrMessageTooLarge) {
			return cause // resuming would bring the same message again
		}
		if k.stateless {
			return fmt.Errorf("%w before the response (a 2026-07-28 stream cannot be resumed)", cause)
		}
		if st.lastID == "" {
			return fmt.Errorf("%w before the response, with no event id to resume from", cause)
		}
		if failures >= c.opts.MaxReconnects {
			return fmt.Errorf("resuming the event stream failed %d times in a row: %w", failures, cause)
		}
		if !c.sleep(c.reconnectDelay(&st, failures)) {
			return errClientClosed
		}
		c.log.Debug("streamable: resuming a request's event stream", "method", k.method, "lastEventId", st.lastID)
		resp, err := c.openStream(ctx, st.lastID)
		if err != nil {
			if clientPermanent(err) {
				return fmt.Errorf("the server cannot resume the event stream: %w", err)
			}
			failures++
			cause = err
			continue
		}
		body = resp.Body
	}
}

// reconnectDelay is the wait before reconnecting: the server's retry field if it
// sent one, otherwise the backoff after this many failures.
func (c *ClientConn) reconnectDelay(st *clientStreamState, failures int) time.Duration {
	if st.hasRetry {
		return st.retry
	}
	return c.backoff(failures)
}

// backoff is ReconnectDelay doubled n times, capped at MaxReconnectDelay.
func (c *ClientConn) backoff(n int) time.Duration {
	d := c.opts.ReconnectDelay
	for i := 0; i < n && d < c.opts.MaxReconnectDelay; i++ {
		d *= 2
	}
	return min(d, c.opts.MaxReconnectDelay)
}

// errNotEventStream is the failure of a GET answered 2xx without an event stream.
var errNotEventStream = errors.New("the server answered GET without an event stream")

// openStream sends a GET for an event stream, resuming after lastID if set.
func (c *ClientConn) openStream(ctx context.Context, lastID string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodGet, nil, c.currentSession())
	if err != nil {
		return nil, err
	}
	req.Header["Accept"] = clientSSEAccept
	if lastID != "" {
		req.Header[HeaderLastEventID] = []string{lastID}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if !clientIs2xx(resp.StatusCode) {
		return nil, clientStatusError(resp, c.opts.MaxMessageSize)
	}
	if clientContentType(resp) != clientSSE {
		clientDiscard(resp)
		return nil, errNotEventStream
	}
	return resp, nil
}

// clientPermanent reports whether a failed GET is not worth repeating: a 4xx status
// (405 from a server with no GET stream, 404 for a session that is gone) or a reply
// that is no event stream.
func clientPermanent(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.StatusCode >= 400 && se.StatusCode < 500 &&
			se.StatusCode != http.StatusRequestTimeout && se.StatusCode != http.StatusTooManyRequests
	}
	return errors.Is(err, errNotEventStream)
}

// standaloneWait bounds how long the write of notifications/initialized waits for
// the server to answer the standalone GET.
const standaloneWait = 2 * time.Second

// startStandalone opens the standalone GET stream in the background, unless it is
// running, disabled, or the session is not initialized. The returned channel (nil
// when nothing was started) is closed once the server has answered the first GET,
// whatever the answer: until then, a message a server sends outside any request
// (some servers send it only on an open GET stream, and drop it otherwise) could be
// lost.
func (c *ClientConn) startStandalone() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opts.DisableStandaloneStream || c.standalone || c.closed || !c.initialized {
		return nil
	}
	c.standalone = true
	answered := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.runStandalone(answered)
	}()
	return answered
}

// runStandalone keeps the standalone GET stream open. Like an EventSource it
// reconnects whenever the stream ends; it stops for good on a 4xx answer (a server
// without GET streams) or after MaxReconnects failures in a row (no connection, or
// a stream that broke without progress). A new session (see reinitialize) starts it
// again. Streams that end cleanly without delivering anything are not failures,
// but each one in a row doubles the wait before the next, so a server that keeps
// closing empty streams is not hammered even with a tiny retry field.
func (c *ClientConn) runStandalone(answered chan struct{}) {
	var st clientStreamState
	failures, idle := 0, 0
	for {
		gen := c.currentSession().gen
		resp, err := c.openStream(c.ctx, st.lastID)
		if answered != nil {
			close(answered)
			answered = nil
		}
		switch {
		case err == nil:
			progressed, rerr := c.consumeSSE(resp.Body, &st)
			resp.Body.Close()
			switch {
			case progressed:
				failures, idle = 0, 0
			case rerr == nil:
				failures = 0
				idle++
			default:
				failures++
			}
		case c.ctx.Err() != nil:
			return
		case clientPermanent(err):
			if c.stopStandalone(gen) {
				c.log.Debug("streamable: no standalone GET stream", "reason", err)
				return
			}
			st, failures, idle = clientStreamState{}, 0, 0 // a new session: try it at once
			continue
		default:
			failures++
			c.log.Debug("streamable: the standalone GET stream failed", "error", err, "failures", failures)
		}
		if failures > c.opts.MaxReconnects {
			if c.stopStandalone(gen) {
				c.log.Warn("streamable: giving up the standalone GET stream", "failures", failures)
				return
			}
			st, failures, idle = clientStreamState{}, 0, 0
			continue
		}
		delay := c.reconnectDelay(&st, failures)
		if idle > 0 {
			delay = max(delay, c.backoff(idle-1))
		}
		if !c.sleep(delay) {
			return
		}
	}
}

// stopStandalone marks the GET stream stopped, unless the session changed since gen:
// then the caller should go on with the new session. It reports whether it stopped.
func (c *ClientConn) stopStandalone(gen uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session.gen != gen {
		return false
	}
	c.standalone = false
	return true
}
