// Package tokens counts what a server's tools cost in a model's context: each
// MCP tool as the OpenAI or Anthropic request format carries it (the
// definitions llm/openai.ToolJSON and llm/anthropic.ToolJSON write, under the
// names llm.ModelToolNames gives), tokenized with tiktoken's o200k_base or
// cl100k_base vocabulary, which the binary embeds (nothing is downloaded).
//
// What is counted is the JSON the host sends. Providers turn tool definitions
// into text of their own before the model reads them, and add a fixed
// per-request preamble when tools are present; neither is counted, since
// neither is public in a form one can reproduce (Anthropic publishes the size
// of its tool-use system prompt per model, OpenAI publishes nothing). Claude
// models use a tokenizer of their own that is not public either: with
// FormatAnthropic the count is of Anthropic's JSON in an OpenAI encoding, an
// estimate. See Note.
package tokens

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/anthropic"
	"github.com/mcpkit/mcpkit/llm/openai"
	"github.com/mcpkit/mcpkit/protocol"
)

// Encoding names a tokenizer vocabulary.
type Encoding string

// The encodings Count knows.
const (
	// O200kBase is the vocabulary of GPT-4o, GPT-4.1, GPT-5 and the o-series.
	O200kBase Encoding = "o200k_base"
	// Cl100kBase is the vocabulary of GPT-4 and GPT-3.5 Turbo.
	Cl100kBase Encoding = "cl100k_base"
)

// Encodings lists the encodings Count knows, the default first.
var Encodings = []Encoding{O200kBase, Cl100kBase}

// Format names the request format whose tool definitions are counted.
type Format string

// The formats Count knows.
const (
	// FormatOpenAI is Chat Completions: {"type":"function","function":{...}}.
	FormatOpenAI Format = "openai"
	// FormatAnthropic is the Messages API: {"name","description","input_schema"}.
	FormatAnthropic Format = "anthropic"
)

// Formats lists the formats Count knows, the default first.
var Formats = []Format{FormatOpenAI, FormatAnthropic}

// Note states what the counts include and what they leave out, for a report's
// reader.
const Note = "Counts are of the tool definitions as the request JSON carries them. " +
	"Not counted: the per-request overhead a provider adds when tools are present and the text it renders the definitions into " +
	"(not public for OpenAI; Anthropic documents a tool-use system prompt of a few hundred tokens per request), " +
	"assumed constant per request, so it does not change which tools cost most. " +
	"Claude's tokenizer is not public: anthropic counts use the chosen OpenAI encoding, an estimate."

// ToolCount is what one tool costs.
type ToolCount struct {
	// Name is the tool's MCP name.
	Name string `json:"name"`
	// ModelName is the name the model sees (llm.ModelToolNames), when it
	// differs from Name.
	ModelName string `json:"modelName,omitempty"`
	// Tokens is the count of the whole definition.
	Tokens int `json:"tokens"`
	// Text is the count of the name and the description (tokenized alone).
	Text int `json:"text"`
	// Schema is the count of the input schema as the format maps it.
	Schema int `json:"schema"`
	// Framing is the rest: the format's keys and punctuation, and the merges
	// across the parts' edges. Text + Schema + Framing == Tokens.
	Framing int `json:"framing"`
	// Bytes is the size of the definition.
	Bytes int `json:"bytes"`
}

// ItemCount is what one listed item (a prompt, a resource template) costs.
type ItemCount struct {
	// Name is the item's name.
	Name string `json:"name"`
	// Tokens is the count of the item's MCP JSON.
	Tokens int `json:"tokens"`
}

// Report is what a tool list costs in one format and encoding.
type Report struct {
	// Format and Encoding are what was counted.
	Format   Format   `json:"format"`
	Encoding Encoding `json:"encoding"`
	// Tools are the tools, largest first (ties by name).
	Tools []ToolCount `json:"tools"`
	// Total is the sum of Tools[i].Tokens.
	Total int `json:"total"`
}

// ListReport is what a list of prompts or resource templates costs, as their
// MCP JSON (what a host that showed them to the model would paste).
type ListReport struct {
	// Encoding is what was counted with.
	Encoding Encoding `json:"encoding"`
	// Items are the items, largest first (ties by name).
	Items []ItemCount `json:"items"`
	// Total is the sum of Items[i].Tokens.
	Total int `json:"total"`
}

// codecs holds one loaded tokenizer per encoding: loading parses the embedded
// vocabulary, which takes a fraction of a second, once.
var codecs = map[Encoding]func() (*tiktoken.Tiktoken, error){
	O200kBase:  loader(O200kBase),
	Cl100kBase: loader(Cl100kBase),
}

var setLoader sync.Once

func loader(e Encoding) func() (*tiktoken.Tiktoken, error) {
	return sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		// The embedded vocabularies, instead of a download at run time.
		setLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
		t, err := tiktoken.GetEncoding(string(e))
		if err != nil {
			return nil, fmt.Errorf("tokens: load %s: %w", e, err)
		}
		return t, nil
	})
}

// Counter counts the tokens of text in one encoding. It is safe for
// concurrent use.
type Counter struct {
	enc Encoding
	t   *tiktoken.Tiktoken
}

// NewCounter returns a Counter for e (loading its vocabulary the first time).
func NewCounter(e Encoding) (*Counter, error) {
	load, ok := codecs[e]
	if !ok {
		return nil, fmt.Errorf("tokens: unknown encoding %q (want one of %v)", e, Encodings)
	}
	t, err := load()
	if err != nil {
		return nil, err
	}
	return &Counter{enc: e, t: t}, nil
}

// Encoding returns the counter's encoding.
func (c *Counter) Encoding() Encoding { return c.enc }

// Count returns the number of tokens of s as ordinary text (a special token's
// spelling counts as the text it is, as in a request body).
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	return len(c.t.EncodeOrdinary(s))
}

// Count returns what tools cost as format's definitions, counted in enc.
func Count(tools []protocol.Tool, format Format, enc Encoding) (Report, error) {
	c, err := NewCounter(enc)
	if err != nil {
		return Report{}, err
	}
	return c.Tools(tools, format)
}

// Tools returns what tools cost as format's definitions.
func (c *Counter) Tools(tools []protocol.Tool, format Format) (Report, error) {
	toolJSON, opts, err := formatOf(format)
	if err != nil {
		return Report{}, err
	}
	names := make([]string, len(tools))
	for i := range tools {
		names[i] = tools[i].Name
	}
	modelNames := llm.ModelToolNames(names)
	r := Report{Format: format, Encoding: c.enc, Tools: make([]ToolCount, 0, len(tools))}
	for i := range tools {
		lt := llm.ToolFromMCP(&tools[i], modelNames[i])
		def, err := toolJSON(&lt)
		if err != nil {
			return Report{}, fmt.Errorf("tokens: %w", err)
		}
		schema, err := llm.MapSchema(lt.InputSchema, opts)
		if err != nil {
			return Report{}, fmt.Errorf("tokens: tool %q: %w", tools[i].Name, err)
		}
		tc := ToolCount{
			Name:   tools[i].Name,
			Tokens: c.Count(string(def)),
			Text:   c.Count(lt.Name) + c.Count(lt.Description),
			Schema: c.Count(string(schema)),
			Bytes:  len(def),
		}
		tc.Framing = tc.Tokens - tc.Text - tc.Schema
		if lt.Name != tools[i].Name {
			tc.ModelName = lt.Name
		}
		r.Tools = append(r.Tools, tc)
		r.Total += tc.Tokens
	}
	slices.SortStableFunc(r.Tools, func(a, b ToolCount) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(a.Name, b.Name))
	})
	return r, nil
}

// formatOf returns format's definition writer and schema mapping.
func formatOf(format Format) (func(*llm.Tool) ([]byte, error), llm.SchemaOptions, error) {
	switch format {
	case FormatOpenAI:
		return openai.ToolJSON, openai.SchemaOptions, nil
	case FormatAnthropic:
		return anthropic.ToolJSON, anthropic.SchemaOptions, nil
	}
	return nil, llm.SchemaOptions{}, fmt.Errorf("tokens: unknown format %q (want one of %v)", format, Formats)
}

// Prompts returns what prompts cost as their MCP JSON.
func (c *Counter) Prompts(prompts []protocol.Prompt) (ListReport, error) {
	return countList(c, prompts, func(p *protocol.Prompt) string { return p.Name })
}

// ResourceTemplates returns what resource templates cost as their MCP JSON.
func (c *Counter) ResourceTemplates(templates []protocol.ResourceTemplate) (ListReport, error) {
	return countList(c, templates, func(t *protocol.ResourceTemplate) string { return t.Name })
}

// countList counts each item's JSON.
func countList[T any](c *Counter, items []T, name func(*T) string) (ListReport, error) {
	r := ListReport{Encoding: c.enc, Items: make([]ItemCount, 0, len(items))}
	for i := range items {
		enc, err := json.Marshal(&items[i])
		if err != nil {
			return ListReport{}, fmt.Errorf("tokens: %s: %w", name(&items[i]), err)
		}
		n := c.Count(string(enc))
		r.Items = append(r.Items, ItemCount{Name: name(&items[i]), Tokens: n})
		r.Total += n
	}
	slices.SortStableFunc(r.Items, func(a, b ItemCount) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(a.Name, b.Name))
	})
	return r, nil
}
