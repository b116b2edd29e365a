package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpkit/mcpkit/protocol"
)

// ToolFromMCP returns the definition of the MCP tool t for a model, under the
// model-facing name (see ModelToolNames). The description falls back to the
// tool's title; the input schema is passed on as it is (a provider maps it
// with MapSchema).
func ToolFromMCP(t *protocol.Tool, name string) Tool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return Tool{Name: name, Description: desc, InputSchema: t.InputSchema}
}

// ToolResultFromMCP turns an MCP tool result into a tool result for the
// model, keeping every kind of content:
//   - text, image and audio blocks become text, image and audio parts;
//   - a resource link becomes a line of text naming the resource (URI, name,
//     title, MIME type, size, description);
//   - an embedded text resource becomes text headed by its URI; an embedded
//     binary resource becomes an image or audio part when its MIME type says
//     so, else a document part named by its URI;
//   - structuredContent becomes a JSON text part, unless a text block already
//     holds the same JSON (the specification asks servers to add one);
//   - isError is kept.
//
// Each provider then writes the parts its tool results accept, and describes
// the others in text.
func ToolResultFromMCP(callID, name string, res *protocol.CallToolResult) *ToolResult {
	tr := &ToolResult{CallID: callID, Name: name, IsError: res.IsError}
	for i := range res.Content {
		tr.Content = append(tr.Content, partFromContent(&res.Content[i]))
	}
	if res.StructuredContent != nil {
		if enc, err := json.Marshal(res.StructuredContent); err == nil && !hasJSONText(res.Content, enc) {
			tr.Content = append(tr.Content, Part{Type: PartText, Text: string(enc)})
		}
	}
	return tr
}

// partFromContent converts one MCP content block.
func partFromContent(c *protocol.Content) Part {
	switch c.Type {
	case protocol.ContentTypeText:
		return Part{Type: PartText, Text: c.Text}
	case protocol.ContentTypeImage:
		return Part{Type: PartImage, MimeType: c.MimeType, Data: c.Data}
	case protocol.ContentTypeAudio:
		return Part{Type: PartAudio, MimeType: c.MimeType, Data: c.Data}
	case protocol.ContentTypeResourceLink:
		return Part{Type: PartText, Text: describeLink(c)}
	case protocol.ContentTypeResource:
		if c.Resource == nil {
			return Part{Type: PartText, Text: "[an embedded resource without contents]"}
		}
		return partFromResource(c.Resource)
	}
	enc, err := json.Marshal(c)
	if err != nil {
		return Part{Type: PartText, Text: fmt.Sprintf("[a %q content block]", c.Type)}
	}
	return Part{Type: PartText, Text: string(enc)}
}

// partFromResource converts embedded resource contents.
func partFromResource(rc *protocol.ResourceContents) Part {
	if !rc.IsBlob() {
		head := "Resource " + rc.URI
		if rc.MimeType != "" {
			head += " (" + rc.MimeType + ")"
		}
		return Part{Type: PartText, Text: head + ":\n" + rc.Text}
	}
	switch {
	case strings.HasPrefix(rc.MimeType, "image/"):
		return Part{Type: PartImage, MimeType: rc.MimeType, Data: rc.Blob, Name: rc.URI}
	case strings.HasPrefix(rc.MimeType, "audio/"):
		return Part{Type: PartAudio, MimeType: rc.MimeType, Data: rc.Blob, Name: rc.URI}
	}
	return Part{Type: PartDocument, MimeType: rc.MimeType, Data: rc.Blob, Name: rc.URI}
}

// describeLink writes a resource link as a line of text.
func describeLink(c *protocol.Content) string {
	var b strings.Builder
	b.WriteString("Resource link: ")
	b.WriteString(c.URI)
	if c.Name != "" {
		fmt.Fprintf(&b, " (name %q", c.Name)
		if c.Title != "" {
			fmt.Fprintf(&b, ", title %q", c.Title)
		}
		b.WriteString(")")
	}
	if c.MimeType != "" {
		b.WriteString(", " + c.MimeType)
	}
	if c.Size != nil {
		fmt.Fprintf(&b, ", %d bytes", *c.Size)
	}
	if c.Description != "" {
		b.WriteString(": " + c.Description)
	}
	return b.String()
}

// hasJSONText reports whether a text block holds the same JSON value as enc.
func hasJSONText(blocks []protocol.Content, enc []byte) bool {
	var want any
	if json.Unmarshal(enc, &want) != nil {
		return false
	}
	for i := range blocks {
		if blocks[i].Type != protocol.ContentTypeText {
			continue
		}
		t := bytes.TrimSpace([]byte(blocks[i].Text))
		if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
			continue
		}
		var got any
		if json.Unmarshal(t, &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

// Describe returns a one-line text standing for a part a provider cannot send
// (an audio clip to a model that takes no audio, say).
func (p *Part) Describe() string {
	what := string(p.Type)
	if p.Name != "" {
		what += " " + p.Name
	}
	return fmt.Sprintf("[%s: %s, %d bytes, not shown to the model]", what, p.MimeType, len(p.Data))
}

// IsTextMIME reports whether a MIME type holds text (text/*, JSON, XML,
// YAML, JavaScript), which a provider can send as text.
func IsTextMIME(mime string) bool {
	mime = strings.ToLower(mime)
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = strings.TrimSpace(mime[:i])
	}
	return strings.HasPrefix(mime, "text/") || strings.HasSuffix(mime, "+json") || strings.HasSuffix(mime, "+xml") ||
		mime == "application/json" || mime == "application/xml" || mime == "application/yaml" || mime == "application/javascript"
}
