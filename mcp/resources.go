package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// ResourceRequest is a resources/read as a resource handler sees it.
type ResourceRequest struct {
	Request
	Params *protocol.ReadResourceParams
	// Vars holds the values of the URI template's variables when the URI matched a
	// template (nil for a static resource).
	Vars map[string]string
}

// ResourceHandler reads a resource. Return ResourceNotFound(uri) for a URI the
// handler does not have (e.g. a template match with no such item).
type ResourceHandler func(ctx context.Context, req *ResourceRequest) (*protocol.ReadResourceResult, error)

type serverResource struct {
	res     protocol.Resource
	handler ResourceHandler
}

type serverTemplate struct {
	tmpl    protocol.ResourceTemplate
	parsed  *uritemplate.Template
	handler ResourceHandler
}

// AddResource registers a resource at a fixed URI. Registering a URI again replaces it.
func (s *Server) AddResource(r *protocol.Resource, h ResourceHandler) error {
	if r.URI == "" || r.Name == "" {
		return fmt.Errorf("mcp: a resource needs a uri and a name")
	}
	s.mu.Lock()
	s.resources.add(r.URI, &serverResource{res: *r, handler: h})
	s.mu.Unlock()
	s.notifyAll(protocol.NotificationResourcesListChanged, nil)
	return nil
}

// AddResourceTemplate registers an RFC 6570 URI template: a resources/read whose URI
// matches it (and no static resource) goes to h, with the template's variables in
// ResourceRequest.Vars.
func (s *Server) AddResourceTemplate(t *protocol.ResourceTemplate, h ResourceHandler) error {
	parsed, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp: resource template %q: %w", t.URITemplate, err)
	}
	if t.Name == "" {
		return fmt.Errorf("mcp: resource template %q needs a name", t.URITemplate)
	}
	s.mu.Lock()
	s.templates.add(t.URITemplate, &serverTemplate{tmpl: *t, parsed: parsed, handler: h})
	s.mu.Unlock()
	s.notifyAll(protocol.NotificationResourcesListChanged, nil)
	return nil
}

// RemoveResources unregisters resources by URI and templates by their template string.
func (s *Server) RemoveResources(uris ...string) {
	s.mu.Lock()
	removed := false
	for _, u := range uris {
		removed = s.resources.remove(u) || removed
		removed = s.templates.remove(u) || removed
	}
	s.mu.Unlock()
	if removed {
		s.notifyAll(protocol.NotificationResourcesListChanged, nil)
	}
}

// NotifyResourceUpdated tells every legacy session subscribed to uri, and every
// subscriptions/listen stream that asked for it, that the resource changed.
func (s *Server) NotifyResourceUpdated(ctx context.Context, uri string) {
	s.publish(Change{Kind: ResourceUpdated, URI: uri})
	if !s.legacyFeed {
		s.resourceUpdatedLegacy(ctx, uri)
	}
}

// resourceUpdatedLegacy tells the legacy sessions subscribed to uri.
func (s *Server) resourceUpdatedLegacy(ctx context.Context, uri string) {
	for _, ss := range s.Sessions() {
		ss.mu.Lock()
		ss.syncSharedLocked()
		_, subscribed := ss.subscriptions[uri]
		ss.mu.Unlock()
		if subscribed {
			if err := ss.notify(ctx, protocol.NotificationResourcesUpdated, &protocol.ResourceUpdatedParams{URI: uri}); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
				s.log.Debug("mcp: resource update notification failed", "uri", uri, "error", err)
			}
		}
	}
}

func listResources(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	v := r.ProtocolVersion()
	resources, next, err := listPage(ctx, r, raw, FeatureResource, &r.server().resources, func(sr *serverResource) protocol.Resource { return *sr.res.ForVersion(v) })
	if err != nil {
		return nil, err
	}
	return &protocol.ListResourcesResult{Resources: resources, NextCursor: next}, nil
}

func listResourceTemplates(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	templates, next, err := listPage(ctx, r, raw, FeatureResourceTemplate, &r.server().templates, func(st *serverTemplate) protocol.ResourceTemplate { return st.tmpl })
	if err != nil {
		return nil, err
	}
	return &protocol.ListResourceTemplatesResult{ResourceTemplates: templates, NextCursor: next}, nil
}

// findResource returns the handler for uri: the static resource with that URI, else
// the first template (in template-string order) that matches it; and the name of
// that resource or template for a VisibleFunc.
func (s *Server) findResource(uri string) (h ResourceHandler, vars map[string]string, kind FeatureKind, name string, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if sr, ok := s.resources.get(uri); ok {
		return sr.handler, nil, FeatureResource, uri, true
	}
	for _, st := range s.templates.all() {
		if values := st.parsed.Match(uri); values != nil {
			vars := make(map[string]string, len(st.parsed.Varnames()))
			for _, name := range st.parsed.Varnames() {
				if v := values.Get(name); v.Valid() {
					vars[name] = v.String()
				}
			}
			return st.handler, vars, FeatureResourceTemplate, st.tmpl.URITemplate, true
		}
	}
	return nil, nil, 0, "", false
}

func readResource(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.ReadResourceParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, errorf(CodeInvalidParams, "invalid params: missing uri")
	}
	h, vars, kind, name, ok := r.server().findResource(p.URI)
	if !ok {
		return nil, ResourceNotFound(p.URI)
	}
	if err := r.server().hidden(ctx, r, kind, name); err != nil {
		return nil, err
	}
	r.Meta = p.Meta
	r.bind(ctx, p.URI, nil, p.RequestState, p.InputResponses)
	res, err := h(ctx, &ResourceRequest{Request: *r, Params: &p, Vars: vars})
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &protocol.ReadResourceResult{}
	}
	return res, nil
}

func subscribe(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.SubscribeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, errorf(CodeInvalidParams, "invalid params: missing uri")
	}
	ss := r.Session
	ss.mu.Lock()
	if ss.subscriptions == nil {
		ss.subscriptions = make(map[string]struct{})
	}
	ss.subscriptions[p.URI] = struct{}{}
	ss.mu.Unlock()
	if err := ss.saveState(ctx); err != nil {
		return nil, err
	}
	return &protocol.EmptyResult{}, nil
}

func unsubscribe(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.UnsubscribeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	ss := r.Session
	ss.mu.Lock()
	delete(ss.subscriptions, p.URI)
	ss.mu.Unlock()
	if err := ss.saveState(ctx); err != nil {
		return nil, err
	}
	return &protocol.EmptyResult{}, nil
}
