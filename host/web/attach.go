package web

import (
	"context"
	"strings"

	"github.com/mcpkit/mcpkit/protocol"
)

// Bounds of what the page can attach to a message.
const (
	maxCatalog = 500 // resources and prompts listed per server
)

// catalogEntry is a resource or a prompt the page offers to attach.
type catalogEntry struct {
	Server      string                    `json:"server"`
	Kind        string                    `json:"kind"` // resource or prompt
	Name        string                    `json:"name"`
	URI         string                    `json:"uri,omitempty"`
	Description string                    `json:"description,omitempty"`
	Arguments   []protocol.PromptArgument `json:"arguments,omitempty"`
}

// catalog lists the servers' resources (views left out: they are not for
// the model) and prompts; a server that cannot list them is skipped.
func (s *Server) catalog(ctx context.Context) []catalogEntry {
	out := []catalogEntry{}
	for _, name := range s.opts.Source.ServerNames() {
		cs, err := s.opts.Source.ServerSession(ctx, name)
		if err != nil {
			continue
		}
		caps := cs.InitializeResult().Capabilities
		n := 0
		if caps.Resources != nil {
			for r, err := range cs.Resources(ctx) {
				if err != nil || n >= maxCatalog {
					break
				}
				if strings.HasPrefix(r.URI, "ui://") {
					continue
				}
				n++
				out = append(out, catalogEntry{Server: name, Kind: "resource", Name: r.Name, URI: r.URI, Description: r.Description})
			}
		}
		n = 0
		if caps.Prompts != nil {
			for p, err := range cs.Prompts(ctx) {
				if err != nil || n >= maxCatalog {
					break
				}
				n++
				out = append(out, catalogEntry{Server: name, Kind: "prompt", Name: p.Name, Description: p.Description, Arguments: p.Arguments})
			}
		}
	}
	return out
}
