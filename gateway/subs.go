package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Resource subscriptions through the gateway.
//
// The gateway's clients subscribe in two ways: a legacy session with
// resources/subscribe (until resources/unsubscribe or the session's end), a
// stateless client with a subscriptions/listen stream (for as long as the
// stream lasts). Either way the resource's server is subscribed to once for
// all of them — resources/subscribe on a legacy server, a listen stream of
// the gateway's own on a stateless one — and unsubscribed when the last
// subscriber goes. Its resources/updated comes back through the supervisor
// (EventResourceUpdated) and reaches every subscriber under the gateway's
// URI (Server.NotifyResourceUpdated serves both kinds of subscriber).

// upSub is one resource the gateway is subscribed to on a server.
type upSub struct {
	u      *upServer
	uri    string // the server's URI
	count  int    // the gateway's subscribers
	cs     *mcp.ClientSession
	listen *mcp.Subscription // the stream of a stateless server
}

// subscriptions are the gateway's subscriptions to its servers' resources.
type subscriptions struct {
	mu     sync.Mutex // held across the calls to the servers: they are in order
	byURI  map[string]*upSub
	legacy map[*mcp.ServerSession]map[string]func() // a legacy session's subscriptions: their release
	// dropped, when set (by tests), hears of every subscription to a server
	// the gateway ends because nobody wants it any more.
	dropped chan<- string
}

// acquire subscribes one more client to the gateway's resource uri; release
// undoes it. A URI no server has is not subscribed to anywhere.
func (g *Gateway) acquire(ctx context.Context, uri string) (release func()) {
	u, up, ok := g.resourceOwner(uri)
	if !ok {
		return func() {}
	}
	key := u.name + "\x00" + up
	s := &g.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byURI == nil {
		s.byURI = map[string]*upSub{}
	}
	sub := s.byURI[key]
	if sub == nil {
		sub = &upSub{u: u, uri: up}
		s.byURI[key] = sub
	}
	sub.count++
	if sub.count == 1 {
		if cs, err := g.sup.Session(ctx, u.name); err == nil {
			g.subscribeOn(ctx, sub, cs)
		}
	}
	var once sync.Once
	return func() { once.Do(func() { g.releaseSub(key) }) }
}

// releaseSub drops a subscriber; the last one unsubscribes from the server.
func (g *Gateway) releaseSub(key string) {
	s := &g.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.byURI[key]
	if sub == nil {
		return
	}
	if sub.count--; sub.count > 0 {
		return
	}
	delete(s.byURI, key)
	g.unsubscribeOn(sub)
	if s.dropped != nil {
		s.dropped <- key
	}
}

// subscribeOn subscribes to sub's resource on session cs. The caller holds
// g.subs.mu.
func (g *Gateway) subscribeOn(ctx context.Context, sub *upSub, cs *mcp.ClientSession) {
	g.unsubscribeOn(sub) // a previous session's
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listTimeout)
	defer cancel()
	var err error
	if cs.IsStateless() {
		sub.listen, err = cs.Listen(ctx, protocol.SubscriptionFilter{ResourceSubscriptions: []string{sub.uri}})
	} else {
		err = cs.Subscribe(ctx, &protocol.SubscribeParams{URI: sub.uri})
	}
	if err != nil {
		g.log.Debug("gateway: subscribing to a resource", "server", sub.u.name, "uri", sub.uri, "error", err)
		return
	}
	sub.cs = cs
}

// unsubscribeOn ends sub's subscription on its server, if any. The caller
// holds g.subs.mu.
func (g *Gateway) unsubscribeOn(sub *upSub) {
	cs, listen := sub.cs, sub.listen
	sub.cs, sub.listen = nil, nil
	switch {
	case listen != nil:
		listen.Close()
	case cs != nil:
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		defer cancel()
		if err := cs.Unsubscribe(ctx, &protocol.UnsubscribeParams{URI: sub.uri}); err != nil {
			g.log.Debug("gateway: resources/unsubscribe", "server", sub.u.name, "uri", sub.uri, "error", err)
		}
	}
}

// resubscribe gives a server's new session the subscriptions its clients
// hold, those made through an earlier entry of the same name included (a
// server a reload changed).
func (g *Gateway) resubscribe(ctx context.Context, u *upServer, cs *mcp.ClientSession) {
	s := &g.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.byURI {
		if sub.u.name == u.name {
			sub.u = u
			if sub.cs != cs {
				g.subscribeOn(ctx, sub, cs)
			}
		}
	}
}

// closeSubscriptions ends every subscription to the servers (Close).
func (g *Gateway) closeSubscriptions() {
	s := &g.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, sub := range s.byURI {
		g.unsubscribeOn(sub)
		delete(s.byURI, key)
	}
}

// legacySubscribe records a legacy session's resources/subscribe (once per
// URI) and, the first time, arranges for its subscriptions to be released
// when the session ends.
func (g *Gateway) legacySubscribe(ctx context.Context, ss *mcp.ServerSession, uri string) {
	s := &g.subs
	s.mu.Lock()
	if s.legacy == nil {
		s.legacy = map[*mcp.ServerSession]map[string]func(){}
	}
	mine, known := s.legacy[ss]
	if _, dup := mine[uri]; dup {
		s.mu.Unlock()
		return
	}
	if !known {
		mine = map[string]func(){}
		s.legacy[ss] = mine
		// The session's subscriptions end with it; this goroutine lives as
		// long as the session.
		go func() {
			<-ss.Done()
			g.legacyUnsubscribeAll(ss)
		}()
	}
	mine[uri] = func() {}
	s.mu.Unlock()
	release := g.acquire(ctx, uri)
	s.mu.Lock()
	if m := s.legacy[ss]; m != nil {
		if _, still := m[uri]; still {
			m[uri] = release
			release = nil
		}
	}
	s.mu.Unlock()
	if release != nil { // unsubscribed (or the session ended) meanwhile
		release()
	}
}

// legacyUnsubscribe undoes a legacy session's resources/subscribe.
func (g *Gateway) legacyUnsubscribe(ss *mcp.ServerSession, uri string) {
	s := &g.subs
	s.mu.Lock()
	release := s.legacy[ss][uri]
	delete(s.legacy[ss], uri)
	s.mu.Unlock()
	if release != nil {
		release()
	}
}

// legacyUnsubscribeAll releases every subscription of a session that ended.
func (g *Gateway) legacyUnsubscribeAll(ss *mcp.ServerSession) {
	s := &g.subs
	s.mu.Lock()
	mine := s.legacy[ss]
	delete(s.legacy, ss)
	s.mu.Unlock()
	for _, release := range mine {
		release()
	}
}

// listenThrough serves a stateless client's subscriptions/listen: the
// resources it names are subscribed to on their servers for as long as the
// stream lasts.
func (g *Gateway) listenThrough(ctx context.Context, call *mcp.Call, next mcp.Invoker) (any, error) {
	var p protocol.SubscriptionsListenParams
	if json.Unmarshal(call.Params, &p) == nil {
		for _, uri := range p.Notifications.ResourceSubscriptions {
			release := g.acquire(ctx, uri)
			defer release()
		}
	}
	return next(ctx, call)
}
