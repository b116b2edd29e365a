package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// This file is the client side of subscriptions/listen (2026-07-28): a long-lived
// request whose answer is a stream of change notifications. The server
// acknowledges first, tagging the acknowledgement with the listen request's
// JSON-RPC id; every notification of the stream carries that id too. The
// notifications reach the ClientOptions handlers (ToolListChangedHandler,
// ResourceUpdatedHandler, ...) and invalidate the cache like any other.

// Subscription is an open subscriptions/listen stream. Close ends it; Done is
// closed when it has ended, by Close, by the server, or with the connection.
type Subscription struct {
	cs     *ClientSession
	id     int64
	cancel context.CancelFunc

	ackOnce sync.Once
	acked   chan struct{}
	ack     protocol.SubscriptionFilter

	done chan struct{}
	err  error // why it ended; read after done is closed
}

// Listen opens a subscriptions/listen stream delivering the notifications filter
// selects, and returns once the server has acknowledged it (or ctx ends, or the
// server refused). ctx bounds only the wait for the acknowledgement: the stream
// lasts until [Subscription.Close], the server ends it, or the session ends. On a
// legacy session it returns [ErrStatelessOnly] (use [ClientSession.Subscribe] and
// the list_changed notifications there).
func (cs *ClientSession) Listen(ctx context.Context, filter protocol.SubscriptionFilter) (*Subscription, error) {
	m := cs.stateless
	if m == nil {
		return nil, ErrStatelessOnly
	}
	m.mu.Lock()
	version, level := m.version, m.logLevel
	m.mu.Unlock()
	params := &protocol.SubscriptionsListenParams{Meta: cs.client.requestMeta(nil, version, m.caps, level), Notifications: filter}
	sub := &Subscription{cs: cs, acked: make(chan struct{}), done: make(chan struct{})}
	// The stream outlives ctx, keeping its values; Close or the session's end
	// stops it.
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sub.cancel = cancel
	go func() {
		defer close(sub.done)
		defer cs.forgetListen(sub)
		var res protocol.SubscriptionsListenResult
		err := cs.call(withRequestID(lctx, sub.register), protocol.MethodSubscriptionsListen, params, &res)
		if err != nil && lctx.Err() != nil {
			err = nil // closed by Close
		}
		sub.err = err
	}()
	select {
	case <-sub.acked:
		return sub, nil
	case <-sub.done:
		if sub.err != nil {
			return nil, fmt.Errorf("mcp: subscriptions/listen: %w", sub.err)
		}
		return nil, errors.New("mcp: subscriptions/listen: the stream ended before the server acknowledged it")
	case <-ctx.Done():
		sub.Close()
		return nil, fmt.Errorf("mcp: subscriptions/listen: %w", ctx.Err())
	case <-cs.Done():
		sub.Close()
		return nil, fmt.Errorf("mcp: subscriptions/listen: %w", jsonrpc.ErrClosed)
	}
}

// Acknowledged returns the notifications the server agreed to deliver: the
// requested filter, less what the server does not support.
func (s *Subscription) Acknowledged() protocol.SubscriptionFilter { return s.ack }

// Close ends the subscription (on stdio with notifications/cancelled, over HTTP by
// closing the stream) and waits for it to end.
func (s *Subscription) Close() {
	s.cancel()
	<-s.done
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why the subscription ended, once Done is closed: nil when the
// server ended it gracefully or Close did, the failure otherwise (the connection
// lost, an error from the server).
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// register records the subscription under the JSON-RPC id its request got, before
// the request is written.
func (s *Subscription) register(id jsonrpc.ID) {
	n, ok := id.Raw().(int64)
	if !ok {
		return
	}
	s.id = n
	cs := s.cs
	cs.mu.Lock()
	if cs.listens == nil {
		cs.listens = make(map[int64]*Subscription)
	}
	cs.listens[n] = s
	cs.mu.Unlock()
}

func (cs *ClientSession) forgetListen(s *Subscription) {
	cs.mu.Lock()
	if cs.listens[s.id] == s {
		delete(cs.listens, s.id)
	}
	cs.mu.Unlock()
}

// acknowledged hands the server's acknowledgement to its subscription.
func (cs *ClientSession) acknowledged(p *protocol.SubscriptionsAcknowledgedParams) {
	v, ok := p.Meta.SubscriptionID()
	if !ok {
		return
	}
	id, ok := v.(int64)
	if !ok {
		return
	}
	cs.mu.Lock()
	s := cs.listens[id]
	cs.mu.Unlock()
	if s == nil {
		return
	}
	s.ackOnce.Do(func() {
		s.ack = p.Notifications
		close(s.acked)
	})
}

// requestIDKey carries, in the context of a Call, a function told the JSON-RPC id
// the request is written with.
type requestIDKey struct{}

func withRequestID(ctx context.Context, f func(jsonrpc.ID)) context.Context {
	return context.WithValue(ctx, requestIDKey{}, f)
}

// idConn is the transport as the session's JSON-RPC connection sees it: it tells a
// request that asked (withRequestID) the id it is written with.
type idConn struct {
	transport.Conn
}

// SetReplyHandler passes the handler on to a connection that takes one
// (rpcconn.ReplyStream).
func (c *idConn) SetReplyHandler(f func(msg []byte) bool) {
	if s, ok := c.Conn.(interface{ SetReplyHandler(func([]byte) bool) }); ok {
		s.SetReplyHandler(f)
	}
}

// SetDecodedReplyHandler passes the handler on to a connection that takes one
// (rpcconn.DecodedReplyStream), or, decoding the replies for it, to one that
// takes raw replies.
func (c *idConn) SetDecodedReplyHandler(f func(m *jsonrpc.Message) bool) {
	switch s := c.Conn.(type) {
	case interface {
		SetDecodedReplyHandler(func(*jsonrpc.Message) bool)
	}:
		s.SetDecodedReplyHandler(f)
	case interface{ SetReplyHandler(func([]byte) bool) }:
		s.SetReplyHandler(func(data []byte) bool {
			if jsonrpc.IsBatch(data) {
				return false
			}
			m, err := jsonrpc.Decode(data)
			return err == nil && f(m)
		})
	}
}

// Write writes msg, first reporting its id when ctx asks for it.
func (c *idConn) Write(ctx context.Context, msg []byte) error {
	if f, ok := ctx.Value(requestIDKey{}).(func(jsonrpc.ID)); ok {
		if m, err := jsonrpc.Decode(msg); err == nil && m.IsRequest() {
			f(m.ID)
		}
	}
	return c.Conn.Write(ctx, msg)
}

// WriteRequest writes the request msg, first reporting its id when ctx asks
// for it, on the transport's WriteRequest when it has one (see
// transport.RequestConn).
func (c *idConn) WriteRequest(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage, msg []byte) error {
	if f, ok := ctx.Value(requestIDKey{}).(func(jsonrpc.ID)); ok {
		f(id)
	}
	if rc, ok := c.Conn.(transport.RequestConn); ok {
		return rc.WriteRequest(ctx, id, method, params, msg)
	}
	return c.Conn.Write(ctx, msg)
}
