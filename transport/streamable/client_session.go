package streamable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// reinitialize replaces a session the server answered 404 for. gen is the session
// generation the failed request was sent with: if another request re-initialized
// since, there is nothing to do. On success the new session is in place and the
// standalone GET stream runs again.
func (c *ClientConn) reinitialize(ctx context.Context, gen uint64) error {
	c.reinitMu.Lock()
	oldID, newID, did, err := c.reinitLocked(ctx, gen)
	c.reinitMu.Unlock()
	if !did || (err != nil && c.ctx.Err() != nil) { // nothing done, or closing
		return err
	}
	if err != nil {
		c.log.Warn("streamable: the server ended the session and starting a new one failed", "error", err)
	} else {
		c.log.Warn("streamable: the server ended the session; started a new one and resent the initialize request")
	}
	if f := c.opts.OnSessionExpired; f != nil {
		f(oldID, newID, err)
	}
	return err
}

func (c *ClientConn) reinitLocked(ctx context.Context, gen uint64) (oldID, newID string, did bool, err error) {
	c.mu.Lock()
	cur, initMsg, initID := c.session, c.initMsg, c.initID
	c.mu.Unlock()
	if cur.gen != gen {
		return "", "", false, nil // done already
	}
	if initMsg == nil {
		return cur.id, "", true, fmt.Errorf("%w (no initialize request to repeat)", ErrSessionExpired)
	}
	fail := func(err error) (string, string, bool, error) {
		return cur.id, "", true, fmt.Errorf("%w, and a new session could not be started: %w", ErrSessionExpired, err)
	}

	// A new initialize, without session headers.
	resp, err := c.post(ctx, initMsg, clientSession{}, nil, nil)
	if err != nil {
		return fail(err)
	}
	if !clientIs2xx(resp.StatusCode) {
		return fail(clientStatusError(resp, c.opts.MaxMessageSize))
	}
	next := clientSession{gen: cur.gen + 1}
	next.setID(resp.Header.Get(HeaderSessionID))
	result, err := c.readInitResult(resp, initID)
	if err != nil {
		return fail(err)
	}
	next.setVersion(clientResultVersion(result))

	// Then notifications/initialized in the new session. Whatever a server answers
	// to it (one sends back an event stream) is of no use here.
	note := jsonrpc.AppendNotification(nil, protocol.NotificationInitialized, nil)
	if resp, err = c.post(ctx, note, next, nil, nil); err != nil {
		return fail(err)
	}
	if !clientIs2xx(resp.StatusCode) {
		return fail(clientStatusError(resp, c.opts.MaxMessageSize))
	}
	clientDiscard(resp)

	c.mu.Lock()
	c.session = next
	c.initialized = true
	c.mu.Unlock()
	c.startStandalone()
	return cur.id, next.id, true, nil
}

// readInitResult reads the reply to a repeated initialize request and returns the
// result of the response with id. Other messages in the reply are dropped: the
// client's JSON-RPC layer does not know of this exchange.
func (c *ClientConn) readInitResult(resp *http.Response, id jsonrpc.ID) ([]byte, error) {
	var found *jsonrpc.Message
	check := func(data []byte) bool {
		if jsonrpc.IsBatch(data) {
			msgs, _, _ := jsonrpc.DecodeBatch(data)
			for _, m := range msgs {
				if m != nil && m.IsResponse() && m.ID == id {
					found = m
				}
			}
		} else if m, err := jsonrpc.Decode(data); err == nil && m.IsResponse() && m.ID == id {
			found = m
		}
		return found != nil
	}
	switch clientContentType(resp) {
	case clientJSON:
		data, err := clientReadBody(resp, c.opts.MaxMessageSize)
		if err != nil {
			return nil, err
		}
		check(bytes.TrimSpace(data))
	case clientSSE:
		defer resp.Body.Close()
		d := sse.NewDecoderWithOptions(resp.Body, sse.DecoderOptions{MaxEventSize: c.opts.MaxMessageSize})
		for found == nil {
			ev, err := d.Next()
			if errors.Is(err, sse.ErrEventTooLarge) {
				continue
			}
			if err != nil {
				if err == io.EOF {
					break
				}
				return nil, err
			}
			if ev.Type == "message" && check(ev.Data) {
				break
			}
		}
	default:
		clientDiscard(resp)
	}
	switch {
	case found == nil:
		return nil, errors.New("the reply to initialize held no response")
	case found.Error != nil:
		return nil, found.Error
	}
	return found.Result, nil
}

// switchToFallback hands the connection to ClientOptions.Fallback and writes the
// initialize request msg to it.
func (c *ClientConn) switchToFallback(ctx context.Context, msg []byte, status int) error {
	c.log.Info("streamable: the server does not speak Streamable HTTP; using the fallback transport", "status", status)
	dialCtx, cancel := context.WithCancel(ctx) // Close interrupts the fallback's dialing
	stop := context.AfterFunc(c.ctx, cancel)
	fb, err := c.opts.Fallback(dialCtx)
	stop()
	cancel()
	if err == nil && fb == nil {
		err = errors.New("the Fallback hook returned no connection")
	}
	if err != nil {
		return fmt.Errorf("streamable: the server answered initialize with %d, and the fallback failed: %w", status, err)
	}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		_ = fb.Close()
		return errClientClosed
	case c.fallback.Load() != nil: // a concurrent initialize switched first
		c.mu.Unlock()
		_ = fb.Close()
	default:
		c.fallback.Store(&clientFallback{conn: fb})
		close(c.switched)
		c.mu.Unlock()
	}
	return c.fallbackConn().Write(ctx, msg)
}
