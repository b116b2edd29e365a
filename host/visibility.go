package host

import "github.com/mcpkit/mcpkit/protocol"

// The MCP Apps keys of a tool's _meta (io.modelcontextprotocol/ui); host
// reads them without importing ext/apps, which is server side.
const (
	uiMetaKey        = "ui"
	uiLegacyURIKey   = "ui/resourceUri"
	uiModelAudience  = "model"
	uiVisibilityKey  = "visibility"
	uiResourceURIKey = "resourceUri"
)

// ModelVisible reports whether the model may see and call t: false for a
// tool of an MCP App whose _meta.ui.visibility names who may use it and
// lacks "model" (a tool for its view only). Such tools stay in the
// ToolSource, for a host that renders views to call on the view's behalf.
func ModelVisible(t *protocol.Tool) bool {
	ui, _ := t.Meta[uiMetaKey].(map[string]any)
	vis, ok := ui[uiVisibilityKey].([]any)
	if !ok || len(vis) == 0 {
		return true
	}
	for _, v := range vis {
		if v == uiModelAudience {
			return true
		}
	}
	return false
}

// ViewURI returns the ui:// URI of the view that renders t's results
// (_meta.ui.resourceUri, or the older flat "ui/resourceUri"), or "".
func ViewURI(t *protocol.Tool) string {
	if t == nil {
		return ""
	}
	ui, _ := t.Meta[uiMetaKey].(map[string]any)
	if u, ok := ui[uiResourceURIKey].(string); ok && u != "" {
		return u
	}
	u, _ := t.Meta[uiLegacyURIKey].(string)
	return u
}
