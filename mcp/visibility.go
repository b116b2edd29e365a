package mcp

import (
	"context"
	"errors"
	"hash/maphash"
	"slices"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// FeatureKind names a kind of feature a server offers, for a [VisibleFunc].
type FeatureKind uint8

const (
	// FeatureTool is a tool, named by its name.
	FeatureTool FeatureKind = iota + 1
	// FeaturePrompt is a prompt, named by its name.
	FeaturePrompt
	// FeatureResource is a resource, named by its URI.
	FeatureResource
	// FeatureResourceTemplate is a resource template, named by its URI
	// template; a resource read through it is checked under this name.
	FeatureResourceTemplate
)

// String returns the kind as the error messages name it.
func (k FeatureKind) String() string {
	switch k {
	case FeatureTool:
		return "tool"
	case FeaturePrompt:
		return "prompt"
	case FeatureResource:
		return "resource"
	case FeatureResourceTemplate:
		return "resource template"
	}
	return "feature"
}

// A VisibleFunc decides whether the client of a request sees a feature: in the
// lists (tools/list, prompts/list, resources/list, resources/templates/list)
// and in the calls (tools/call, prompts/get, resources/read), which it refuses
// for a feature not visible with [CodeInvalidParams] and a message naming it.
// It gets the request's context, which names the authenticated caller
// ([github.com/mcpkit/mcpkit/transport.PrincipalFrom]), and the request, whose
// session (legacy era) or client info says which client it is: one filter
// serves both eras, per session or per request.
//
// It runs under the server's read lock, once per feature listed: it must be
// fast and must not call back into the server. When what it reads changes,
// [Server.RefreshVisibility] tells the clients whose view changed; it asks
// again then with the context of each client's last listing.
type VisibleFunc func(ctx context.Context, r *Request, kind FeatureKind, name string) bool

// keep returns the filter of a list of kind for the request, or nil when
// every feature is visible.
func (s *Server) keep(ctx context.Context, r *Request, kind FeatureKind) func(string) bool {
	f := s.opts.Visible
	if f == nil {
		return nil
	}
	return func(name string) bool { return f(ctx, r, kind, name) }
}

// hidden reports whether the feature name of kind is not visible to the
// client of r, with the error to answer its call with.
func (s *Server) hidden(ctx context.Context, r *Request, kind FeatureKind, name string) error {
	if f := s.opts.Visible; f != nil && !f(ctx, r, kind, name) {
		return errorf(CodeInvalidParams, "%s '%s' is not available to this client", kind, name)
	}
	return nil
}

// Per-client views. A client that was shown a list under a VisibleFunc has a
// view of it: the fingerprint of the names it saw. RefreshVisibility computes
// each view again and tells the clients whose view changed, and only them.
//
// A legacy session's view is recorded when it lists (the first page: the
// fingerprint covers every page), with the context of that request, which
// names its caller; a later refresh asks the VisibleFunc again with that
// context. A subscriptions/listen stream (2026-07-28, where list changes
// travel only on such streams) fingerprints the lists it listens for when it
// opens, with its own request's context, and checks them at each refresh.

// viewKinds are the lists a view covers, indexed by FeatureKind-1.
const viewKinds = int(FeatureResourceTemplate)

// sessionView is what a legacy session was last shown (ServerSession.mu
// guards it).
type sessionView struct {
	ctx   context.Context // the listing request's, without its cancellation
	known [viewKinds]bool // the kind's fingerprint is what the client holds
	fp    [viewKinds]uint64
}

// listChangedMethod is the notification that tells a client a list of kind changed.
func listChangedMethod(kind FeatureKind) string {
	switch kind {
	case FeatureTool:
		return protocol.NotificationToolsListChanged
	case FeaturePrompt:
		return protocol.NotificationPromptsListChanged
	}
	return protocol.NotificationResourcesListChanged
}

// fingerprintLocked returns the fingerprint of the names of kind that keep
// leaves (every name when keep is nil). s.mu is held.
func (s *Server) fingerprintLocked(kind FeatureKind, keep func(string) bool) uint64 {
	var sorted []string
	switch kind {
	case FeatureTool:
		sorted = s.tools.sorted
	case FeaturePrompt:
		sorted = s.prompts.sorted
	case FeatureResource:
		sorted = s.resources.sorted
	case FeatureResourceTemplate:
		sorted = s.templates.sorted
	}
	var h maphash.Hash
	h.SetSeed(s.viewSeed)
	for _, n := range sorted {
		if keep == nil || keep(n) {
			h.WriteString(n)
			h.WriteByte(0)
		}
	}
	return h.Sum64()
}

// fingerprints computes the fingerprints of the kinds in want for the client
// of r, as ctx names it.
func (s *Server) fingerprints(ctx context.Context, r *Request, want [viewKinds]bool) (fp [viewKinds]uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, ok := range want {
		if ok {
			kind := FeatureKind(i + 1)
			fp[i] = s.fingerprintLocked(kind, s.keep(ctx, r, kind))
		}
	}
	return fp
}

// recordView notes that the legacy session was shown the list of kind, whose
// fingerprint is fp, by the request of ctx.
func (ss *ServerSession) recordView(ctx context.Context, kind FeatureKind, fp uint64) {
	vctx := context.WithoutCancel(ctx)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	r := ss.rareLocked()
	if r.view == nil {
		r.view = &sessionView{}
	}
	r.view.ctx = vctx
	r.view.known[kind-1], r.view.fp[kind-1] = true, fp
}

// forgetView notes that the session was told the lists of method changed:
// until it lists them again, a refresh has nothing to tell it about them.
func (ss *ServerSession) forgetView(method string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	view := ss.viewLocked()
	if view == nil {
		return
	}
	for i := range view.known {
		if listChangedMethod(FeatureKind(i+1)) == method {
			view.known[i] = false
		}
	}
}

// refreshView computes the session's views again and sends list_changed for
// the ones that changed.
func (ss *ServerSession) refreshView() {
	ss.mu.Lock()
	view := ss.viewLocked()
	if view == nil {
		ss.mu.Unlock()
		return
	}
	v := *view
	ss.mu.Unlock()
	fp := ss.server.fingerprints(v.ctx, &Request{Session: ss}, v.known)
	var send []string
	ss.mu.Lock()
	for i, ok := range v.known {
		if ok && view.known[i] && fp[i] != view.fp[i] {
			// Told: it lists again (recording its new view) before it is
			// told again.
			view.known[i] = false
			if m := listChangedMethod(FeatureKind(i + 1)); !slices.Contains(send, m) {
				send = append(send, m)
			}
		}
	}
	ss.mu.Unlock()
	for _, m := range send {
		if err := ss.notify(context.Background(), m, nil); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
			ss.server.log.Debug("mcp: notification failed", "method", m, "error", err)
		}
	}
}

// RefreshVisibility asks the [VisibleFunc] of [ServerOptions].Visible again
// for every client that was shown a list, and sends list_changed
// (notifications/tools/list_changed, prompts/list_changed,
// resources/list_changed) to those whose visible set changed, and only to
// them: call it after changing what the VisibleFunc reads (a reloaded rule
// file, a user's new role). The legacy sessions are told directly; in the
// stateless era, the subscriptions/listen streams that asked for the list's
// changes are (each judged with its own request's context). A client that
// never listed, or was told of a change it has not listed since, is not
// told again. Without a VisibleFunc it does nothing.
func (s *Server) RefreshVisibility() {
	if s.opts.Visible == nil {
		return
	}
	s.viewGen.Add(1)
	for _, ss := range s.Sessions() {
		ss.refreshView()
	}
	_ = s.views.Publish(context.Background(), Change{})
}

// listenView is the view of one subscriptions/listen stream: the lists it
// listens for and their fingerprints, as its client is allowed to see them.
type listenView struct {
	want [viewKinds]bool
	fp   [viewKinds]uint64
}

// newListenView fingerprints the lists filter listens for, when the server
// has a VisibleFunc (nil otherwise: every change is sent as it is).
func (s *Server) newListenView(ctx context.Context, r *Request, filter protocol.SubscriptionFilter) *listenView {
	if s.opts.Visible == nil || !(filter.ToolsListChanged || filter.PromptsListChanged || filter.ResourcesListChanged) {
		return nil
	}
	v := &listenView{}
	v.want[FeatureTool-1] = filter.ToolsListChanged
	v.want[FeaturePrompt-1] = filter.PromptsListChanged
	v.want[FeatureResource-1] = filter.ResourcesListChanged
	v.want[FeatureResourceTemplate-1] = filter.ResourcesListChanged
	v.fp = s.fingerprints(ctx, r, v.want)
	return v
}

// update computes the view again and marks in kinds the lists that changed.
// A list already marked (its change published) is fingerprinted anew too, so
// that the next refresh compares with what the client will list.
func (v *listenView) update(ctx context.Context, r *Request, kinds *[TaskUpdated + 1]bool) {
	fp := r.server().fingerprints(ctx, r, v.want)
	for i, ok := range v.want {
		if !ok || fp[i] == v.fp[i] {
			continue
		}
		v.fp[i] = fp[i]
		switch FeatureKind(i + 1) {
		case FeatureTool:
			kinds[ToolsChanged] = true
		case FeaturePrompt:
			kinds[PromptsChanged] = true
		default:
			kinds[ResourcesChanged] = true
		}
	}
}
