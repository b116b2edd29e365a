package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/llm"
)

// The request body of POST /v1/messages.
type messagesRequest struct {
	Model         string      `json:"model"`
	MaxTokens     int         `json:"max_tokens"`
	System        string      `json:"system,omitempty"`
	Messages      []message   `json:"messages"`
	Tools         []tool      `json:"tools,omitempty"`
	ToolChoice    *toolChoice `json:"tool_choice,omitempty"`
	Stream        bool        `json:"stream"`
	Temperature   *float64    `json:"temperature,omitempty"`
	StopSequences []string    `json:"stop_sequences,omitempty"`
}

type message struct {
	Role    string         `json:"role"`
	Content []contentBlock `json:"content"`
}

// contentBlock is a text, image, document, tool_use or tool_result block.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Source    *source         `json:"source,omitempty"`
	Title     string          `json:"title,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   []contentBlock  `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type source struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type toolChoice struct {
	Type string `json:"type"`
}

// SchemaOptions is how this provider maps input schemas: the Messages API
// follows $ref into $defs, so references are kept (a schema that shares its
// definitions stays small).
var SchemaOptions = llm.SchemaOptions{InlineRefs: false}

// encodeRequest writes req as a streaming Messages request.
func encodeRequest(req *llm.Request) ([]byte, error) {
	mr := messagesRequest{
		Model:         req.Model,
		MaxTokens:     req.MaxTokens,
		System:        req.System,
		Stream:        true,
		Temperature:   req.Temperature,
		StopSequences: req.StopSequences,
	}
	if mr.MaxTokens <= 0 {
		mr.MaxTokens = DefaultMaxTokens
	}
	for i := range req.Messages {
		m := encodeMessage(&req.Messages[i])
		if len(m.Content) == 0 {
			continue
		}
		// The API wants the roles to alternate: consecutive messages of one
		// role are one message.
		if n := len(mr.Messages); n > 0 && mr.Messages[n-1].Role == m.Role {
			prev := &mr.Messages[n-1]
			prev.Content = append(prev.Content, m.Content...)
			sortToolResultsFirst(prev.Content)
			continue
		}
		mr.Messages = append(mr.Messages, m)
	}
	for i := range req.Tools {
		tl, err := encodeTool(&req.Tools[i])
		if err != nil {
			return nil, err
		}
		mr.Tools = append(mr.Tools, tl)
	}
	if len(mr.Tools) > 0 {
		switch req.ToolChoice {
		case llm.ToolChoiceRequired:
			mr.ToolChoice = &toolChoice{Type: "any"}
		case llm.ToolChoiceNone:
			mr.ToolChoice = &toolChoice{Type: "none"}
		case llm.ToolChoiceAuto:
			mr.ToolChoice = &toolChoice{Type: "auto"}
		}
	}
	return json.Marshal(&mr)
}

// encodeTool writes t as one element of a request's "tools", its input
// schema mapped with SchemaOptions.
func encodeTool(t *llm.Tool) (tool, error) {
	schema, err := llm.MapSchema(t.InputSchema, SchemaOptions)
	if err != nil {
		return tool{}, fmt.Errorf("llm: anthropic: tool %q: %w", t.Name, err)
	}
	return tool{Name: t.Name, Description: t.Description, InputSchema: schema}, nil
}

// ToolJSON returns t exactly as the requests of this provider carry it: one
// element of "tools" ({"name":...,"description":...,"input_schema":...}), its
// input schema mapped with SchemaOptions. It is what a tool costs in a
// request, for counting (see llm/tokens).
func ToolJSON(t *llm.Tool) ([]byte, error) {
	tl, err := encodeTool(t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&tl)
}

// encodeMessage writes one message's parts as content blocks, tool results
// first (the API requires them at the start of a user message).
func encodeMessage(m *llm.Message) message {
	out := message{Role: string(m.Role)}
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.Type {
		case llm.PartToolCall:
			out.Content = append(out.Content, contentBlock{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name,
				Input: toolInput(p.ToolCall.Arguments)})
		case llm.PartToolResult:
			tr := p.ToolResult
			b := contentBlock{Type: "tool_result", ToolUseID: tr.CallID, IsError: tr.IsError}
			for j := range tr.Content {
				if c, ok := encodePart(&tr.Content[j]); ok {
					b.Content = append(b.Content, c)
				}
			}
			out.Content = append(out.Content, b)
		default:
			if c, ok := encodePart(p); ok {
				out.Content = append(out.Content, c)
			}
		}
	}
	sortToolResultsFirst(out.Content)
	return out
}

// sortToolResultsFirst moves tool_result blocks before the others, keeping
// each group's order.
func sortToolResultsFirst(blocks []contentBlock) {
	results := make([]contentBlock, 0, len(blocks))
	var others []contentBlock
	for _, b := range blocks {
		if b.Type == "tool_result" {
			results = append(results, b)
		} else {
			others = append(others, b)
		}
	}
	copy(blocks, append(results, others...))
}

// toolInput is the input of a tool_use block, which must be a JSON object:
// arguments that are not one (malformed, empty) are sent as {} — the tool
// result the host wrote for that call says what was wrong.
func toolInput(args string) json.RawMessage {
	t := bytes.TrimSpace([]byte(args))
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t
	}
	return json.RawMessage("{}")
}

// imageTypes are the image media types the Messages API takes.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// encodePart writes a text, image or document part as a content block. A
// text of white space only is dropped (the API refuses such text blocks);
// what the API cannot take (audio, other files) is described in text.
func encodePart(p *llm.Part) (contentBlock, bool) {
	switch p.Type {
	case llm.PartText:
		return contentBlock{Type: "text", Text: p.Text}, strings.TrimSpace(p.Text) != ""
	case llm.PartImage:
		if imageTypes[p.MimeType] {
			return contentBlock{Type: "image", Source: &source{Type: "base64", MediaType: p.MimeType,
				Data: base64.StdEncoding.EncodeToString(p.Data)}}, true
		}
	case llm.PartDocument:
		switch {
		case p.MimeType == "application/pdf":
			return contentBlock{Type: "document", Title: p.Name, Source: &source{Type: "base64", MediaType: p.MimeType,
				Data: base64.StdEncoding.EncodeToString(p.Data)}}, true
		case llm.IsTextMIME(p.MimeType) && utf8.Valid(p.Data):
			return contentBlock{Type: "document", Title: p.Name, Source: &source{Type: "text", MediaType: "text/plain",
				Data: string(p.Data)}}, true
		}
	case llm.PartToolCall, llm.PartToolResult:
		return contentBlock{}, false
	}
	return contentBlock{Type: "text", Text: strings.TrimSpace(p.Describe())}, true
}
