package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/llm"
)

// The request body of POST /chat/completions.
type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	Tools               []chatTool     `json:"tools,omitempty"`
	ToolChoice          string         `json:"tool_choice,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	Stop                []string       `json:"stop,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is a system, user, assistant or tool message. Content is a
// string, a list of content parts, or null (an assistant message with only
// tool calls).
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// contentPart is one part of a user message's content list.
type contentPart struct {
	Type       string      `json:"type"`
	Text       string      `json:"text,omitempty"`
	ImageURL   *imageURL   `json:"image_url,omitempty"`
	InputAudio *inputAudio `json:"input_audio,omitempty"`
	File       *filePart   `json:"file,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type inputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

type filePart struct {
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data"`
}

// SchemaOptions is how this provider maps input schemas: local references
// are inlined, since several compatible servers (grammar-constrained
// decoders, prompt templates) do not follow $ref.
var SchemaOptions = llm.SchemaOptions{InlineRefs: true}

// encodeRequest writes req as a streaming Chat Completions request.
func (c *Client) encodeRequest(req *llm.Request) ([]byte, error) {
	cr := chatRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature:   req.Temperature,
		Stop:          req.StopSequences,
		ToolChoice:    string(req.ToolChoice),
	}
	if req.MaxTokens > 0 {
		if c.maxField == "max_completion_tokens" {
			cr.MaxCompletionTokens = req.MaxTokens
		} else {
			cr.MaxTokens = req.MaxTokens
		}
	}
	if req.System != "" {
		cr.Messages = append(cr.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for i := range req.Messages {
		msgs, err := c.encodeMessage(&req.Messages[i])
		if err != nil {
			return nil, err
		}
		cr.Messages = append(cr.Messages, msgs...)
	}
	for i := range req.Tools {
		ct, err := encodeTool(&req.Tools[i])
		if err != nil {
			return nil, err
		}
		cr.Tools = append(cr.Tools, ct)
	}
	if len(cr.Tools) == 0 {
		cr.ToolChoice = ""
	}
	return json.Marshal(&cr)
}

// encodeTool writes t as one element of a request's "tools", its input
// schema mapped with SchemaOptions.
func encodeTool(t *llm.Tool) (chatTool, error) {
	params, err := llm.MapSchema(t.InputSchema, SchemaOptions)
	if err != nil {
		return chatTool{}, fmt.Errorf("llm: openai: tool %q: %w", t.Name, err)
	}
	return chatTool{Type: "function", Function: functionDef{Name: t.Name, Description: t.Description, Parameters: params}}, nil
}

// ToolJSON returns t exactly as the requests of this provider carry it: one
// element of "tools" ({"type":"function","function":{...}}), its input schema
// mapped with SchemaOptions. It is what a tool costs in a request, for
// counting (see llm/tokens).
func ToolJSON(t *llm.Tool) ([]byte, error) {
	ct, err := encodeTool(t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&ct)
}

// encodeMessage writes one message as Chat Completions messages. An
// assistant message becomes one message with its text and tool calls. A user
// message becomes one "tool" message per tool result (they must directly
// follow the assistant's tool calls), then one user message with the rest:
// its own parts, and the images, audio and files the tool results returned,
// which a tool message cannot hold.
func (c *Client) encodeMessage(m *llm.Message) ([]chatMessage, error) {
	if m.Role == llm.RoleAssistant {
		am := chatMessage{Role: "assistant"}
		var text strings.Builder
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				text.WriteString(p.Text)
			case llm.PartToolCall:
				args := p.ToolCall.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				am.ToolCalls = append(am.ToolCalls, chatToolCall{ID: p.ToolCall.ID, Type: "function",
					Function: chatFunction{Name: p.ToolCall.Name, Arguments: args}})
			}
		}
		if text.Len() > 0 {
			am.Content = text.String()
		}
		return []chatMessage{am}, nil
	}
	var out []chatMessage
	var rest []contentPart
	for _, p := range m.Parts {
		if p.Type != llm.PartToolResult {
			rest = append(rest, c.userParts(&p)...)
			continue
		}
		tr := p.ToolResult
		var text []string
		var media []contentPart
		for i := range tr.Content {
			q := &tr.Content[i]
			if q.Type == llm.PartText {
				text = append(text, q.Text)
				continue
			}
			parts := c.userParts(q)
			if len(parts) == 1 && parts[0].Type == "text" {
				text = append(text, parts[0].Text) // described, not attached
				continue
			}
			text = append(text, fmt.Sprintf("[%s attached in the next user message]", q.Type))
			media = append(media, parts...)
		}
		content := strings.Join(text, "\n")
		if content == "" {
			content = "(the tool returned nothing)" // some compatible servers refuse an empty message
		}
		if tr.IsError {
			content = "Error: " + content
		}
		out = append(out, chatMessage{Role: "tool", ToolCallID: tr.CallID, Content: content})
		if len(media) > 0 {
			rest = append(rest, contentPart{Type: "text", Text: fmt.Sprintf("Attachments returned by tool call %s (%s):", tr.CallID, tr.Name)})
			rest = append(rest, media...)
		}
	}
	switch {
	case len(rest) == 0:
	case len(rest) == 1 && rest[0].Type == "text":
		out = append(out, chatMessage{Role: "user", Content: rest[0].Text})
	default:
		out = append(out, chatMessage{Role: "user", Content: rest})
	}
	return out, nil
}

// userParts writes a part as user content parts: text; an image as a data
// URL; wav or mp3 audio as input_audio; a PDF as a file; a text document as
// text. What Chat Completions cannot take (or everything but text, with
// NoMedia) is described in a text part.
func (c *Client) userParts(p *llm.Part) []contentPart {
	switch p.Type {
	case llm.PartText:
		return []contentPart{{Type: "text", Text: p.Text}}
	case llm.PartImage:
		if c.withMedia {
			return []contentPart{{Type: "image_url", ImageURL: &imageURL{URL: dataURL(p.MimeType, p.Data)}}}
		}
	case llm.PartAudio:
		if format := audioFormat(p.MimeType); c.withMedia && format != "" {
			return []contentPart{{Type: "input_audio", InputAudio: &inputAudio{Data: base64.StdEncoding.EncodeToString(p.Data), Format: format}}}
		}
	case llm.PartDocument:
		if llm.IsTextMIME(p.MimeType) && utf8.Valid(p.Data) {
			return []contentPart{{Type: "text", Text: "Resource " + p.Name + " (" + p.MimeType + "):\n" + string(p.Data)}}
		}
		if c.withMedia && p.MimeType == "application/pdf" {
			return []contentPart{{Type: "file", File: &filePart{Filename: fileName(p.Name), FileData: dataURL(p.MimeType, p.Data)}}}
		}
	case llm.PartToolCall, llm.PartToolResult:
		return nil
	}
	return []contentPart{{Type: "text", Text: p.Describe()}}
}

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// audioFormat returns the input_audio format of a MIME type: "wav" or "mp3",
// the two Chat Completions takes, or "".
func audioFormat(mime string) string {
	switch strings.ToLower(mime) {
	case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave":
		return "wav"
	case "audio/mpeg", "audio/mp3", "audio/mpeg3":
		return "mp3"
	}
	return ""
}

// fileName takes the last path element of a URI for a file part.
func fileName(uri string) string {
	if i := strings.LastIndexAny(uri, "/:"); i >= 0 && i+1 < len(uri) {
		return uri[i+1:]
	}
	if uri == "" {
		return "document.pdf"
	}
	return uri
}
