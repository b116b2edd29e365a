package tokens

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/anthropic"
	"github.com/mcpkit/mcpkit/llm/openai"
	"github.com/mcpkit/mcpkit/protocol"
)

// The tokenizer gives the ids tiktoken's authors publish, in both encodings,
// including the whitespace cases of tiktoken's own regex test (one of which
// another Go port, github.com/tiktoken-go/tokenizer v0.10.0, gets wrong).
func TestReferenceStrings(t *testing.T) {
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Sources map[string]string `json:"sources"`
		Cases   []struct {
			Source   string   `json:"source"`
			Encoding Encoding `json:"encoding"`
			Text     string   `json:"text"`
			IDs      []int    `json:"ids"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 10 {
		t.Fatalf("only %d reference cases", len(ref.Cases))
	}
	seen := map[Encoding]bool{}
	for _, c := range ref.Cases {
		if ref.Sources[c.Source] == "" {
			t.Errorf("%q: unknown source %q", c.Text, c.Source)
		}
		seen[c.Encoding] = true
		ctr, err := NewCounter(c.Encoding)
		if err != nil {
			t.Fatal(err)
		}
		if got := ctr.t.EncodeOrdinary(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("%s %q: ids %v, want %v", c.Encoding, c.Text, got, c.IDs)
		}
		if got := ctr.Count(c.Text); got != len(c.IDs) {
			t.Errorf("%s %q: Count %d, want %d", c.Encoding, c.Text, got, len(c.IDs))
		}
	}
	if !seen[O200kBase] || !seen[Cl100kBase] {
		t.Errorf("the reference covers %v, want both encodings", seen)
	}
}

// sampleTools are tools of different sizes: a big schema, a long description,
// a name models refuse, a tool with no schema at all.
func sampleTools() []protocol.Tool {
	return []protocol.Tool{
		{Name: "small", Description: "Says hi."},
		{Name: "search files", Description: "Searches the files.", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"What to look for"}},"required":["q"]}`)},
		{Name: "wordy", Description: strings.Repeat("This tool does a great many things, each explained at length. ", 20)},
		{Name: "shared", Title: "Shared definitions", InputSchema: json.RawMessage(`{"type":"object","$defs":{"p":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string","format":"email"}}}},"properties":{"a":{"$ref":"#/$defs/p"},"b":{"$ref":"#/$defs/p"},"c":{"$ref":"#/$defs/p"}}}`)},
	}
}

// A report counts each tool's definition as the format writes it, largest
// first; its parts add up to each tool's count and the tools' counts to the
// total.
func TestCountTools(t *testing.T) {
	tools := sampleTools()
	for _, format := range Formats {
		for _, enc := range Encodings {
			r, err := Count(tools, format, enc)
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != format || r.Encoding != enc || len(r.Tools) != len(tools) {
				t.Fatalf("%s/%s: report %+v", format, enc, r)
			}
			sum := 0
			for i, tc := range r.Tools {
				sum += tc.Tokens
				if tc.Text+tc.Schema+tc.Framing != tc.Tokens || tc.Text <= 0 || tc.Schema <= 0 || tc.Framing <= 0 {
					t.Errorf("%s/%s %s: parts %+v", format, enc, tc.Name, tc)
				}
				if i > 0 && r.Tools[i-1].Tokens < tc.Tokens {
					t.Errorf("%s/%s: %s (%d) before %s (%d)", format, enc, r.Tools[i-1].Name, r.Tools[i-1].Tokens, tc.Name, tc.Tokens)
				}
			}
			if sum != r.Total {
				t.Errorf("%s/%s: total %d, tools add up to %d", format, enc, r.Total, sum)
			}
			if r.Tools[0].Name != "wordy" || r.Tools[len(r.Tools)-1].Name != "small" {
				t.Errorf("%s/%s: order %v", format, enc, r.Tools)
			}
		}
	}
}

// Each count is exactly the tokens of the provider's own definition (the
// tool as its requests carry it, under the model-facing name), and the
// schema part that of the provider's mapping of the schema.
func TestCountsAreOfTheProvidersDefinitions(t *testing.T) {
	tools := sampleTools()
	c, err := NewCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		format Format
		def    func(*llm.Tool) ([]byte, error)
		opts   llm.SchemaOptions
	}{{FormatOpenAI, openai.ToolJSON, openai.SchemaOptions}, {FormatAnthropic, anthropic.ToolJSON, anthropic.SchemaOptions}} {
		r, err := c.Tools(tools, p.format)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]ToolCount{}
		for _, tc := range r.Tools {
			byName[tc.Name] = tc
		}
		for _, tool := range tools {
			tc := byName[tool.Name]
			name := tool.Name
			if tool.Name == "search files" {
				name = llm.ModelToolNames([]string{tool.Name})[0] // search_files_<hash>: a changed name carries its hash
				if tc.ModelName != name || !strings.HasPrefix(name, "search_files_") {
					t.Errorf("%s: model name %q, want %q", p.format, tc.ModelName, name)
				}
			} else if tc.ModelName != "" {
				t.Errorf("%s %s: model name %q for a valid name", p.format, tool.Name, tc.ModelName)
			}
			lt := llm.ToolFromMCP(&tool, name)
			def, err := p.def(&lt)
			if err != nil {
				t.Fatal(err)
			}
			schema, err := llm.MapSchema(lt.InputSchema, p.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.Tokens != len(c.t.EncodeOrdinary(string(def))) || tc.Bytes != len(def) || tc.Schema != c.Count(string(schema)) {
				t.Errorf("%s %s: %+v; definition %s", p.format, tool.Name, tc, def)
			}
		}
		// The description falls back to the title, as a host sends it.
		if byName["shared"].Text != c.Count("shared")+c.Count("Shared definitions") {
			t.Errorf("%s: the title is not counted as the description: %+v", p.format, byName["shared"])
		}
	}
	// OpenAI's definitions inline references; Anthropic's keep them.
	oa, _ := c.Tools(tools[3:], FormatOpenAI)
	an, _ := c.Tools(tools[3:], FormatAnthropic)
	if oa.Tools[0].Schema <= an.Tools[0].Schema {
		t.Errorf("inlined schema %d tokens, with references %d", oa.Tools[0].Schema, an.Tools[0].Schema)
	}
}

func TestCountRefusesUnknownNames(t *testing.T) {
	if _, err := Count(nil, "gemini", O200kBase); err == nil || !strings.Contains(err.Error(), "gemini") {
		t.Errorf("format: %v", err)
	}
	if _, err := Count(nil, FormatOpenAI, "p50k_base"); err == nil || !strings.Contains(err.Error(), "p50k_base") {
		t.Errorf("encoding: %v", err)
	}
	r, err := Count(nil, FormatOpenAI, O200kBase)
	if err != nil || r.Total != 0 || r.Tools == nil {
		t.Errorf("no tools: %+v, %v", r, err)
	}
}

// Prompts and resource templates are counted as their MCP JSON, largest
// first, adding up to the total.
func TestCountLists(t *testing.T) {
	c, err := NewCounter(Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	prompts := []protocol.Prompt{{Name: "a"}, {Name: "b", Description: "A prompt with a description of some length."}}
	r, err := c.Prompts(prompts)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := json.Marshal(&prompts[1])
	if len(r.Items) != 2 || r.Items[0].Name != "b" || r.Items[0].Tokens != c.Count(string(enc)) || r.Total != r.Items[0].Tokens+r.Items[1].Tokens {
		t.Errorf("prompts %+v", r)
	}
	tr, err := c.ResourceTemplates([]protocol.ResourceTemplate{{Name: "t", URITemplate: "demo://items/{id}"}})
	if err != nil || len(tr.Items) != 1 || tr.Total != tr.Items[0].Tokens || tr.Total == 0 {
		t.Errorf("templates %+v, %v", tr, err)
	}
}

// Counting is safe from several goroutines (the tap's views count while the
// relay records).
func TestCounterConcurrent(t *testing.T) {
	c, err := NewCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	want := c.Count("antidisestablishmentarianism and more")
	done := make(chan int)
	for range 4 {
		go func() { done <- c.Count("antidisestablishmentarianism and more") }()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Errorf("concurrent count %d, want %d", got, want)
		}
	}
}

// BenchmarkCount counts a list of 50 tools of realistic size (the loading of
// the vocabulary is outside the timing).
func BenchmarkCount(b *testing.B) {
	var tools []protocol.Tool
	for i := range 50 {
		for _, t := range sampleTools() {
			t.Name += strings.Repeat("x", i)
			tools = append(tools, t)
		}
	}
	tools = tools[:50]
	for _, enc := range Encodings {
		b.Run(string(enc), func(b *testing.B) {
			c, err := NewCounter(enc)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Tools(tools, FormatOpenAI); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
