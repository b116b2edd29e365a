package streamable

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
)

// writeOneWay POSTs notifications or responses, which get no reply: Write waits for
// the status. The request outlives Write only to read a body the server sent anyway;
// Close or the end of ctx before the status arrives cancels it.
func (c *ClientConn) writeOneWay(ctx context.Context, msg []byte, out *clientOutgoing) error {
	what := out.method
	if what == "" {
		what = "response"
	}
	reqCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopClose := context.AfterFunc(c.ctx, cancel)
	stopWrite := context.AfterFunc(ctx, cancel)
	release := func() {
		stopClose()
		cancel()
	}
	resp, err := c.sendOneWay(reqCtx, msg, out)
	if !stopWrite() && ctx.Err() != nil && err != nil {
		err = ctx.Err()
	}
	if err != nil {
		release()
		return fmt.Errorf("streamable: sending %s: %w", what, err)
	}
	if resp == nil { // re-initializing sent this notifications/initialized
		release()
		return nil
	}

	var calls []context.CancelFunc
	c.mu.Lock()
	c.answered = true
	initialized := out.method == protocol.NotificationInitialized
	if initialized {
		c.initialized = true
	}
	for _, id := range out.cancels { // the caller gave up: drop the call and its reply
		if k := c.pending[id]; k != nil {
			delete(c.pending, id)
			if len(k.ids) == 1 && k.cancel != nil {
				calls = append(calls, k.cancel)
			}
		}
	}
	c.mu.Unlock()
	for _, cancel := range calls {
		cancel()
	}
	if initialized {
		if answered := c.startStandalone(); answered != nil {
			t := time.NewTimer(standaloneWait)
			select {
			case <-answered:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
	}
	// A server may answer with a body anyway (one answered notifications/initialized
	// with an SSE stream): read it in the background.
	if !clientHasBody(resp) {
		clientDiscard(resp)
		release()
	} else if !c.goBackground(func() { defer release(); c.readOneWayReply(resp) }) {
		resp.Body.Close()
		release()
	}
	return nil
}

// sendOneWay POSTs msg and returns the 2xx response, re-initializing the session
// and sending msg again if the server answered 404 for it. It returns a nil response
// when msg is the notifications/initialized that re-initializing sent.
func (c *ClientConn) sendOneWay(ctx context.Context, msg []byte, out *clientOutgoing) (*http.Response, error) {
	sess := c.currentSession()
	header := messageHeader(ctx, out)
	resp, err := c.post(ctx, msg, sess, nil, header)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound && sess.id != "" {
		clientDiscard(resp)
		if out.method == "" { // a response to a request of the old session: pointless now
			return nil, ErrSessionExpired
		}
		if err := c.reinitialize(ctx, sess.gen); err != nil {
			return nil, err
		}
		if out.method == protocol.NotificationInitialized {
			return nil, nil
		}
		if resp, err = c.post(ctx, msg, c.currentSession(), nil, header); err != nil {
			return nil, err
		}
	}
	if !clientIs2xx(resp.StatusCode) {
		return nil, clientStatusError(resp, c.opts.MaxMessageSize)
	}
	return resp, nil
}

func (c *ClientConn) readOneWayReply(resp *http.Response) {
	defer resp.Body.Close()
	switch clientContentType(resp) {
	case clientSSE:
		var st clientStreamState
		_, _ = c.consumeSSE(resp.Body, &st)
	case clientJSON:
		if data, err := clientReadBody(resp, c.opts.MaxMessageSize); err == nil && len(bytes.TrimSpace(data)) > 0 {
			c.deliver(data)
		}
	}
}
