package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/protocol"
)

// maxViewHTML bounds a view's document.
const maxViewHTML = 4 << 20

// view is an MCP Apps view the page shows: a tool result's ui:// resource.
type view struct {
	id     string
	server string // the server whose tool made it; its calls go there only
	tool   string // the tool's name for the model
	uri    string
	html   string
	csp    string // the policy built from the declared domains
	// approved are the declared domains (_meta.ui.csp) that the policy
	// grants, which the page passes on to the sandbox proxy with the view
	// (the policy itself is the proxy's header) and tells the view in
	// hostCapabilities.sandbox.csp.
	approved apps.CSP
}

// viewEvent tells the page to show a view. Its tool call's input, result or
// cancellation are the page's events of that call ("args", "call",
// "result"), before or after this one.
type viewEvent struct {
	ID            string        `json:"id"`
	Name          string        `json:"name"` // the tool's name for the model
	URI           string        `json:"uri"`
	Tool          protocol.Tool `json:"tool"`
	PrefersBorder *bool         `json:"prefersBorder,omitempty"`
}

// uiMeta is a view resource's _meta.ui, as far as the host uses it.
type uiMeta struct {
	CSP           *apps.CSP `json:"csp"`
	PrefersBorder *bool     `json:"prefersBorder"`
}

// openView reads the view of a tool call from its server and tells the
// page to show it; a failure is shown instead.
func (s *Server) openView(callID string, tool *host.Tool, uri string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, meta, err := s.readView(ctx, tool.Server, uri)
	if err != nil {
		s.hub.publish(event{Type: "error", ID: callID, Text: fmt.Sprintf("the view %s of %s: %v", uri, tool.Name, err)})
		return
	}
	v.tool = tool.Name
	s.mu.Lock()
	s.views[v.id] = v
	s.mu.Unlock()
	s.hub.publish(event{Type: "view", ID: callID, View: &viewEvent{ID: v.id, Name: tool.Name, URI: uri, Tool: tool.MCP, PrefersBorder: meta.PrefersBorder}})
}

// readView reads the ui:// resource uri of server.
func (s *Server) readView(ctx context.Context, server, uri string) (*view, *uiMeta, error) {
	cs, err := s.opts.Source.ServerSession(ctx, server)
	if err != nil {
		return nil, nil, err
	}
	res, err := cs.ReadResource(ctx, uri)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Contents) == 0 {
		return nil, nil, errors.New("no content")
	}
	c := res.Contents[0]
	if !strings.HasPrefix(c.MimeType, "text/html") {
		return nil, nil, fmt.Errorf("content of type %q, not an HTML view", c.MimeType)
	}
	html := c.Text
	if html == "" && len(c.Blob) > 0 {
		html = string(c.Blob)
	}
	if len(html) > maxViewHTML {
		return nil, nil, fmt.Errorf("a view of more than %d bytes", maxViewHTML)
	}
	meta := &uiMeta{}
	if ui, ok := c.Meta["ui"]; ok {
		if b, err := json.Marshal(ui); err == nil {
			_ = json.Unmarshal(b, meta)
		}
	}
	return &view{id: randomID(), server: server, uri: uri, html: html, csp: apps.ContentSecurityPolicy(meta.CSP), approved: apps.ApprovedCSP(meta.CSP)}, meta, nil
}

// appError is a JSON-RPC error for the view.
type appError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// viewByID returns the view id.
func (s *Server) viewByID(id string) *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.views[id]
}

// appCall is a view's tools/call: only to its own server, only for a tool
// visible to apps.
func (s *Server) appCall(ctx context.Context, v *view, p *protocol.CallToolParams) (json.RawMessage, *appError) {
	cs, err := s.opts.Source.ServerSession(ctx, v.server)
	if err != nil {
		return nil, &appError{-32603, err.Error()}
	}
	var tool *protocol.Tool
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return nil, &appError{-32603, err.Error()}
		}
		if t.Name == p.Name {
			tool = &t
			break
		}
	}
	if tool == nil {
		return nil, &appError{-32602, fmt.Sprintf("unknown tool %q", p.Name)}
	}
	if !host.VisibleTo(tool, host.ForApp) {
		return nil, &appError{-32602, fmt.Sprintf("tool %q is not visible to apps", p.Name)}
	}
	raw, err := cs.CallToolRaw(ctx, p)
	if err != nil {
		return nil, &appError{-32603, err.Error()}
	}
	return raw, nil
}

// appRead is a view's resources/read, of its own server.
func (s *Server) appRead(ctx context.Context, v *view, uri string) (any, *appError) {
	cs, err := s.opts.Source.ServerSession(ctx, v.server)
	if err != nil {
		return nil, &appError{-32603, err.Error()}
	}
	res, err := cs.ReadResource(ctx, uri)
	if err != nil {
		return nil, &appError{-32603, err.Error()}
	}
	return res, nil
}
