package host

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Audiences of a tool's _meta.ui.visibility (MCP Apps).
const (
	// ForModel is the audience of the tools a model may call.
	ForModel = "model"
	// ForApp is the audience of the tools an MCP Apps view may call.
	ForApp = "app"
)

// ViewOf returns the ui:// URI of the MCP Apps view linked to t: its
// _meta.ui.resourceUri, or the deprecated flat _meta["ui/resourceUri"]; ""
// when it has none.
func ViewOf(t *protocol.Tool) string {
	if ui, ok := t.Meta["ui"].(map[string]any); ok {
		if s, ok := ui["resourceUri"].(string); ok {
			return s
		}
	}
	s, _ := t.Meta["ui/resourceUri"].(string)
	return s
}

// VisibleTo reports whether t's _meta.ui.visibility lists who (ForModel or
// ForApp). A tool without a visibility is visible to both, as the MCP Apps
// specification says; a malformed one is visible to neither.
func VisibleTo(t *protocol.Tool, who string) bool {
	ui, ok := t.Meta["ui"].(map[string]any)
	if !ok {
		return true
	}
	v, ok := ui["visibility"]
	if !ok || v == nil {
		return true
	}
	list, ok := v.([]any)
	if !ok {
		return false
	}
	if len(list) == 0 {
		return true
	}
	for _, e := range list {
		if e == who {
			return true
		}
	}
	return false
}

// ServerSession returns the current session of the server named name, for
// requests that are not the model's: an MCP Apps view's tools/call and
// resources/read, which the caller checks itself. With one server, "" (the
// Tool.Server of its tools) names it.
func (s *SessionSource) ServerSession(ctx context.Context, name string) (*mcp.ClientSession, error) {
	if name == "" && len(s.servers) == 1 {
		return s.servers[0].Session(ctx)
	}
	for i := range s.servers {
		if s.servers[i].Name == name {
			return s.servers[i].Session(ctx)
		}
	}
	return nil, fmt.Errorf("host: no server %q", name)
}

// ServerNames returns the names of the source's servers, in order.
func (s *SessionSource) ServerNames() []string {
	out := make([]string, len(s.servers))
	for i := range s.servers {
		out[i] = s.servers[i].Name
	}
	return out
}
