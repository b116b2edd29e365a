package protocol

import (
	"encoding/json"
	"fmt"
)

// Content block types (the "type" discriminator of a content block).
const (
	// ContentTypeText is a text block.
	ContentTypeText = "text"
	// ContentTypeImage is a base64 image block.
	ContentTypeImage = "image"
	// ContentTypeAudio is a base64 audio block. Added in 2025-03-26.
	ContentTypeAudio = "audio"
	// ContentTypeResourceLink is a link to a resource. Added in 2025-06-18.
	ContentTypeResourceLink = "resource_link"
	// ContentTypeResource is an embedded resource.
	ContentTypeResource = "resource"
	// ContentTypeToolUse is a model's request to call a tool, in sampling
	// messages. Added in 2025-11-25.
	ContentTypeToolUse = "tool_use"
	// ContentTypeToolResult is the result of a tool_use, in sampling
	// messages. Added in 2025-11-25.
	ContentTypeToolResult = "tool_result"
)

// Content is one content block: the union of TextContent, ImageContent,
// AudioContent, ResourceLink, EmbeddedResource, ToolUseContent and
// ToolResultContent, discriminated by Type. Only the fields of its Type are
// meaningful; MarshalJSON writes exactly those (required ones even when
// empty) and never the fields of another type.
//
// Build blocks with the constructors ([NewTextContent], [NewImageContent],
// ...). Decoding uses encoding/json's default behaviour.
type Content struct {
	// Type is one of the ContentType constants.
	Type string `json:"type"`

	// Text is the text of a "text" block.
	Text string `json:"text,omitempty"`

	// Data is the raw bytes of an "image" or "audio" block (base64 on the
	// wire).
	Data []byte `json:"data,omitempty"`
	// MimeType is the MIME type of an "image", "audio" or "resource_link"
	// block.
	MimeType string `json:"mimeType,omitempty"`

	// URI is the linked resource of a "resource_link" block.
	URI string `json:"uri,omitempty"`
	// Name is the resource name of a "resource_link" block or the tool name
	// of a "tool_use" block.
	Name string `json:"name,omitempty"`
	// Title is the display name of a "resource_link" block.
	Title string `json:"title,omitempty"`
	// Description describes the resource of a "resource_link" block.
	Description string `json:"description,omitempty"`
	// Size is the resource size in bytes of a "resource_link" block.
	Size *int64 `json:"size,omitempty"`
	// Icons are the resource's icons in a "resource_link" block. Added in
	// 2025-11-25.
	Icons []Icon `json:"icons,omitempty"`

	// Resource is the embedded resource of a "resource" block.
	Resource *ResourceContents `json:"resource,omitempty"`

	// ID identifies a "tool_use" block; tool_result blocks refer to it.
	// Added in 2025-11-25.
	ID string `json:"id,omitempty"`
	// Input holds the tool arguments of a "tool_use" block (a JSON object).
	// Added in 2025-11-25.
	Input json.RawMessage `json:"input,omitempty"`

	// ToolUseID is the ID of the tool_use a "tool_result" block answers.
	// Added in 2025-11-25.
	ToolUseID string `json:"toolUseId,omitempty"`
	// Content is the unstructured result of a "tool_result" block. Added in
	// 2025-11-25.
	Content []Content `json:"content,omitempty"`
	// StructuredContent is the structured result of a "tool_result" block.
	// Added in 2025-11-25.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError marks a "tool_result" block as a failed call. Added in
	// 2025-11-25.
	IsError bool `json:"isError,omitempty"`

	// Annotations are display hints (all types except tool_use and
	// tool_result).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the block's _meta object. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// NewTextContent returns a text block.
func NewTextContent(text string) Content {
	return Content{Type: ContentTypeText, Text: text}
}

// NewImageContent returns an image block holding data (raw bytes; they are
// base64-encoded on the wire).
func NewImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentTypeImage, Data: data, MimeType: mimeType}
}

// NewAudioContent returns an audio block holding data (raw bytes; they are
// base64-encoded on the wire). Audio was added in 2025-03-26.
func NewAudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentTypeAudio, Data: data, MimeType: mimeType}
}

// NewResourceLink returns a resource_link block pointing at r: it copies the
// resource's URI, name, title, description, MIME type, size, icons,
// annotations and _meta. Resource links were added in 2025-06-18.
func NewResourceLink(r *Resource) Content {
	return Content{
		Type:        ContentTypeResourceLink,
		URI:         r.URI,
		Name:        r.Name,
		Title:       r.Title,
		Description: r.Description,
		MimeType:    r.MimeType,
		Size:        r.Size,
		Icons:       r.Icons,
		Annotations: r.Annotations,
		Meta:        r.Meta,
	}
}

// NewEmbeddedResource returns a resource block embedding rc.
func NewEmbeddedResource(rc *ResourceContents) Content {
	return Content{Type: ContentTypeResource, Resource: rc}
}

// NewToolUseContent returns a tool_use block (sampling with tools, added in
// 2025-11-25). input must be a JSON object; nil encodes as {}.
func NewToolUseContent(id, name string, input json.RawMessage) Content {
	return Content{Type: ContentTypeToolUse, ID: id, Name: name, Input: input}
}

// NewToolResultContent returns a tool_result block answering the tool_use
// with id toolUseID (sampling with tools, added in 2025-11-25).
func NewToolResultContent(toolUseID string, content []Content, isError bool) Content {
	return Content{Type: ContentTypeToolResult, ToolUseID: toolUseID, Content: content, IsError: isError}
}

// MarshalJSON encodes the block with exactly the fields of its Type.
func (c Content) MarshalJSON() ([]byte, error) {
	return c.AppendJSON(make([]byte, 0, c.sizeHint()))
}

// sizeHint estimates the encoded size to avoid regrowing the buffer.
func (c *Content) sizeHint() int {
	n := 48 + len(c.Text) + len(c.MimeType) + len(c.URI) + len(c.Name) + len(c.Title) +
		len(c.Description) + len(c.ID) + len(c.Input) + len(c.ToolUseID) + (len(c.Data)+2)/3*4
	if c.Resource != nil {
		n += 48 + len(c.Resource.URI) + len(c.Resource.MimeType) + len(c.Resource.Text) + (len(c.Resource.Blob)+2)/3*4
	}
	return n
}

// AppendJSON appends the block's JSON encoding to b. Servers writing many
// blocks into one buffer can use it to avoid intermediate allocations.
func (c *Content) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, '{')
	b = appendStringField(b, "type", c.Type)
	switch c.Type {
	case ContentTypeText:
		b = appendStringField(b, "text", c.Text)
	case ContentTypeImage, ContentTypeAudio:
		b = appendBase64Field(b, "data", c.Data)
		b = appendStringField(b, "mimeType", c.MimeType)
	case ContentTypeResourceLink:
		b = appendStringField(b, "uri", c.URI)
		b = appendStringField(b, "name", c.Name)
		if c.Title != "" {
			b = appendStringField(b, "title", c.Title)
		}
		if c.Description != "" {
			b = appendStringField(b, "description", c.Description)
		}
		if c.MimeType != "" {
			b = appendStringField(b, "mimeType", c.MimeType)
		}
		if c.Size != nil {
			b = appendIntField(b, "size", *c.Size)
		}
		if c.Icons != nil {
			if b, err = appendValueField(b, "icons", c.Icons); err != nil {
				return b, err
			}
		}
	case ContentTypeResource:
		b = appendKey(b, "resource")
		if c.Resource == nil {
			return b, fmt.Errorf("protocol: resource content block has no resource")
		}
		if b, err = c.Resource.AppendJSON(b); err != nil {
			return b, err
		}
	case ContentTypeToolUse:
		b = appendStringField(b, "id", c.ID)
		b = appendStringField(b, "name", c.Name)
		if b, err = appendRawField(b, "input", c.Input, "{}"); err != nil {
			return b, err
		}
	case ContentTypeToolResult:
		b = appendStringField(b, "toolUseId", c.ToolUseID)
		if b, err = appendContentArray(appendKey(b, "content"), c.Content); err != nil {
			return b, err
		}
		if c.StructuredContent != nil {
			if b, err = appendValueField(b, "structuredContent", c.StructuredContent); err != nil {
				return b, err
			}
		}
		if c.IsError {
			b = appendBoolField(b, "isError", true)
		}
	default:
		return b, fmt.Errorf("protocol: unknown content block type %q", c.Type)
	}
	if c.Annotations != nil && c.Type != ContentTypeToolUse && c.Type != ContentTypeToolResult {
		if b, err = appendValueField(b, "annotations", c.Annotations); err != nil {
			return b, err
		}
	}
	if c.Meta != nil {
		if b, err = appendMetaField(b, "_meta", c.Meta); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendContentArray appends blocks as a JSON array; nil encodes as [].
func appendContentArray(b []byte, blocks []Content) ([]byte, error) {
	b = append(b, '[')
	for i := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = blocks[i].AppendJSON(b); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// ResourceContents is the contents of a resource: the union of
// TextResourceContents and BlobResourceContents. A nil Blob means text
// contents (Text is written even when empty); a non-nil Blob means binary
// contents (base64 on the wire) and Text is ignored.
type ResourceContents struct {
	// URI identifies the resource.
	URI string `json:"uri"`
	// MimeType is the MIME type, if known.
	MimeType string `json:"mimeType,omitempty"`
	// Text is the text of text contents.
	Text string `json:"text,omitempty"`
	// Blob is the bytes of binary contents.
	Blob []byte `json:"blob,omitempty"`
	// Meta is the object's _meta. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// NewTextResourceContents returns text contents.
func NewTextResourceContents(uri, mimeType, text string) *ResourceContents {
	return &ResourceContents{URI: uri, MimeType: mimeType, Text: text}
}

// NewBlobResourceContents returns binary contents. A nil blob is stored as
// an empty, non-nil slice so that the contents stay binary.
func NewBlobResourceContents(uri, mimeType string, blob []byte) *ResourceContents {
	if blob == nil {
		blob = []byte{}
	}
	return &ResourceContents{URI: uri, MimeType: mimeType, Blob: blob}
}

// IsBlob reports whether rc holds binary contents.
func (rc *ResourceContents) IsBlob() bool { return rc.Blob != nil }

// MarshalJSON encodes rc as TextResourceContents or BlobResourceContents.
func (rc ResourceContents) MarshalJSON() ([]byte, error) {
	return rc.AppendJSON(make([]byte, 0, 48+len(rc.URI)+len(rc.MimeType)+len(rc.Text)+(len(rc.Blob)+2)/3*4))
}

// AppendJSON appends rc's JSON encoding to b.
func (rc *ResourceContents) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendStringField(b, "uri", rc.URI)
	if rc.MimeType != "" {
		b = appendStringField(b, "mimeType", rc.MimeType)
	}
	if rc.Blob != nil {
		b = appendBase64Field(b, "blob", rc.Blob)
	} else {
		b = appendStringField(b, "text", rc.Text)
	}
	if rc.Meta != nil {
		var err error
		if b, err = appendMetaField(b, "_meta", rc.Meta); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
