package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/protocol"
)

// Bounds of what a user can attach to a message.
const (
	// MaxAttachments bounds the resources attached to one message.
	MaxAttachments = 8
	// maxAttachText bounds the characters of one attached resource's text.
	maxAttachText = 1 << 20
)

// Attachment names a resource of one of a SessionSource's servers.
type Attachment struct {
	// Server names the server ("" with a single server).
	Server string `json:"server"`
	// URI is the resource's URI.
	URI string `json:"uri"`
}

// Attach reads the resources through their servers' sessions and returns
// them as text for the user's message: each content with a line naming it,
// text cut at 1 MiB, binary content described by its size.
func (s *SessionSource) Attach(ctx context.Context, list []Attachment) (string, error) {
	if len(list) > MaxAttachments {
		return "", fmt.Errorf("at most %d attachments", MaxAttachments)
	}
	var b strings.Builder
	for _, a := range list {
		cs, err := s.ServerSession(ctx, a.Server)
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

// PromptText gets a server's prompt and returns its messages' text, joined
// by blank lines (an embedded text resource's text included, other media
// named), to be sent as the user's message.
func (s *SessionSource) PromptText(ctx context.Context, server, name string, args map[string]string) (string, error) {
	cs, err := s.ServerSession(ctx, server)
	if err != nil {
		return "", err
	}
	res, err := cs.GetPrompt(ctx, name, args)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range res.Messages {
		switch c := m.Content; c.Type {
		case protocol.ContentTypeText:
			parts = append(parts, c.Text)
		case protocol.ContentTypeResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, "[Resource "+c.Resource.URI+"]\n"+c.Resource.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n"), nil
}
