package apps

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Middleware returns server middleware that gives a client without the
// extension plain tools: in tools/list, tools meant for views only (whose
// visibility lacks "model") are left out and the others lose _meta.ui and
// _meta["ui/resourceUri"]; in resources/list, the views (ui:// resources)
// are left out. A client that declared the extension sees everything as
// registered. Other methods pass through untouched.
//
// In the legacy era the client's declaration is read from initialize; in the
// stateless era from the request's _meta.
func Middleware() mcp.Middleware {
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction != mcp.Incoming || c.Notification ||
				(c.Method != protocol.MethodToolsList && c.Method != protocol.MethodResourcesList) {
				return next(ctx, c)
			}
			res, err := next(ctx, c)
			if err != nil || callerSupports(c) {
				return res, err
			}
			switch r := res.(type) {
			case *protocol.ListToolsResult:
				return plainTools(r), nil
			case *protocol.ListResourcesResult:
				return withoutViews(r), nil
			}
			return res, nil
		}
	}
}

// callerSupports reports whether the client making c declared the extension:
// in the request's _meta (stateless era) or in initialize (legacy era).
func callerSupports(c *mcp.Call) bool {
	if len(c.Params) > 0 && strings.Contains(string(c.Params), protocol.MetaKeyClientCapabilities) {
		// Only the part of the declaration that matters is decoded.
		var p struct {
			Meta struct {
				Caps *struct {
					Extensions struct {
						UI *struct {
							MimeTypes []string `json:"mimeTypes"`
						} `json:"io.modelcontextprotocol/ui"` // ExtensionID
					} `json:"extensions"`
				} `json:"io.modelcontextprotocol/clientCapabilities"` // protocol.MetaKeyClientCapabilities
			} `json:"_meta"`
		}
		if json.Unmarshal(c.Params, &p) == nil && p.Meta.Caps != nil {
			ui := p.Meta.Caps.Extensions.UI
			return ui != nil && slices.Contains(ui.MimeTypes, MIMEType)
		}
	}
	if ss, ok := c.Session.(*mcp.ServerSession); ok {
		return ClientSupports(ss.ClientCapabilities())
	}
	return false
}

// plainTools returns r without view-only tools and without the extension's
// metadata; r and its tools are not modified (they share maps with the
// server's registry).
func plainTools(r *protocol.ListToolsResult) *protocol.ListToolsResult {
	out := *r
	out.Tools = make([]protocol.Tool, 0, len(r.Tools))
	for _, t := range r.Tools {
		ui, linked := t.Meta[metaKey]
		_, legacy := t.Meta[LegacyResourceURIKey]
		if !linked && !legacy {
			out.Tools = append(out.Tools, t)
			continue
		}
		if linked && !slices.Contains(visibility(toolMeta(ui)), Model) {
			continue
		}
		meta := make(protocol.Meta, len(t.Meta))
		for k, v := range t.Meta {
			if k != metaKey && k != LegacyResourceURIKey {
				meta[k] = v
			}
		}
		if len(meta) == 0 {
			meta = nil
		}
		t.Meta = meta
		out.Tools = append(out.Tools, t)
	}
	return &out
}

// toolMeta reads a tool's _meta.ui: the ToolMeta AddTool stored, or a value
// decoded from JSON (a tool registered by hand).
func toolMeta(v any) ToolMeta {
	switch m := v.(type) {
	case ToolMeta:
		return m
	case *ToolMeta:
		if m != nil {
			return *m
		}
		return ToolMeta{}
	}
	var ui ToolMeta
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &ui)
	}
	return ui
}

// withoutViews returns r without its ui:// resources.
func withoutViews(r *protocol.ListResourcesResult) *protocol.ListResourcesResult {
	out := *r
	out.Resources = make([]protocol.Resource, 0, len(r.Resources))
	for _, res := range r.Resources {
		if !strings.HasPrefix(res.URI, URIScheme) {
			out.Resources = append(out.Resources, res)
		}
	}
	return &out
}
