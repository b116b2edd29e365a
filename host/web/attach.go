package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/protocol"
)

// Bounds of what the page can attach to a message.
const (
	maxCatalog     = 500     // resources and prompts listed per server
	maxAttachments = 8       // resources attached to one message
	maxAttachText  = 1 << 20 // characters of one attached resource
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

// attachment names a resource of a server.
type attachment struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
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

// attached reads the resources and returns them as text for the model.
func (s *Server) attached(ctx context.Context, list []attachment) (string, error) {
	if len(list) > maxAttachments {
		return "", fmt.Errorf("at most %d attachments", maxAttachments)
	}
	var b strings.Builder
	for _, a := range list {
		cs, err := s.opts.Source.ServerSession(ctx, a.Server)
		if err != nil {
			return "", err
		}
		res, err := cs.ReadResource(ctx, a.URI)
		if err != nil {
			return "", fmt.Errorf("reading %s of %s: %w", a.URI, a.Server, err)
		}
		for _, c := range res.Contents {
			fmt.Fprintf(&b, "[Attached resource %s from %s", c.URI, a.Server)
			if c.MimeType != "" {
				fmt.Fprintf(&b, ", %s", c.MimeType)
			}
			b.WriteString("]\n")
			switch {
			case c.Text != "":
				text := c.Text
				if len(text) > maxAttachText {
					text = text[:maxAttachText] + "\n[…cut]"
				}
				b.WriteString(text)
			default:
				fmt.Fprintf(&b, "(%d bytes of binary content)", len(c.Blob))
			}
			b.WriteString("\n\n")
		}
	}
	return b.String(), nil
}

// promptText gets a prompt and returns its messages' text, for the composer.
func (s *Server) promptText(ctx context.Context, server, name string, args map[string]string) (string, error) {
	cs, err := s.opts.Source.ServerSession(ctx, server)
	if err != nil {
		return "", err
	}
	res, err := cs.GetPrompt(ctx, name, args)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range res.Messages {
		if m.Content.Type == protocol.ContentTypeText {
			parts = append(parts, m.Content.Text)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}
