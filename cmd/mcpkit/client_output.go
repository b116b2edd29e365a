package main

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// listAll prints every item of a list, or its JSON array with --json.
func listAll[T any](g *globalFlags, items iter.Seq2[T, error], print func(*T)) error {
	var all []T
	for it, err := range items {
		if err != nil {
			return err
		}
		if g.json {
			all = append(all, it)
			continue
		}
		print(&it)
	}
	if g.json {
		if all == nil {
			all = []T{}
		}
		return printJSON(all)
	}
	return nil
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printTool(t *protocol.Tool) {
	fmt.Print(toolText(t))
}

// toolText describes a tool: its name and description, then one line per input
// property with its JSON type (a $ref named after its definition, with the
// definition's properties), whether it is required, its description, its
// choices (enum) and its default. Peer strings are escaped for the terminal.
func toolText(t *protocol.Tool) string {
	var b strings.Builder
	b.WriteString(capture.TermSafe(t.Name))
	if t.Description != "" {
		b.WriteString(" — " + capture.TermSafe(t.Description))
	}
	b.WriteString("\n")
	var s struct {
		Properties  map[string]propSchema `json:"properties"`
		Required    []string              `json:"required"`
		Defs        map[string]propSchema `json:"$defs"`
		Definitions map[string]propSchema `json:"definitions"`
	}
	if json.Unmarshal(t.InputSchema, &s) == nil {
		required := make(map[string]bool, len(s.Required)) // the lists come from a peer: no quadratic lookups
		for _, r := range s.Required {
			required[r] = true
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			kind := schemaType(p.Type)
			if ref, def, ok := resolveRef(p.Ref, s.Defs, s.Definitions); ok {
				kind = ref
				if def.Type != nil {
					kind = schemaType(def.Type) + " " + ref
				}
				if len(def.Properties) > 0 {
					kind += " {" + strings.Join(slices.Sorted(maps.Keys(def.Properties)), ", ") + "}"
				}
				if p.Description == "" {
					p.Description = def.Description
				}
				if p.Enum == nil {
					p.Enum = def.Enum
				}
			} else if p.Ref != "" {
				kind = "see " + p.Ref
			}
			if required[name] {
				kind += ", required"
			}
			fmt.Fprintf(&b, "    %s (%s)", capture.TermSafe(name), capture.TermSafe(kind))
			if p.Description != "" {
				b.WriteString(" " + capture.TermSafe(p.Description))
			}
			if len(p.Enum) > 0 {
				b.WriteString(" one of: " + capture.TermSafe(jsonList(p.Enum)))
			}
			if p.Default != nil {
				d, _ := json.Marshal(p.Default)
				b.WriteString(" default: " + capture.TermSafe(string(d)))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// propSchema is what toolText reads of a property's schema.
type propSchema struct {
	Type        any                   `json:"type"`
	Description string                `json:"description"`
	Enum        []any                 `json:"enum"`
	Default     any                   `json:"default"`
	Ref         string                `json:"$ref"`
	Properties  map[string]propSchema `json:"properties"`
}

// resolveRef finds a local $ref ("#/$defs/NAME" or "#/definitions/NAME") and
// returns its name and definition.
func resolveRef(ref string, defs, definitions map[string]propSchema) (string, propSchema, bool) {
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
		d, found := defs[name]
		return name, d, found
	}
	if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
		d, found := definitions[name]
		return name, d, found
	}
	return "", propSchema{}, false
}

// jsonList renders enum values: strings as they are, others as JSON.
func jsonList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok {
			parts[i] = s
			continue
		}
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// schemaType renders a JSON Schema "type": a name, names joined with "|", or "any"
// when the schema gives none (or one mcpkit cannot read).
func schemaType(t any) string {
	switch t := t.(type) {
	case string:
		if t != "" {
			return t
		}
	case []any:
		names := make([]string, 0, len(t))
		for _, n := range t {
			if s, ok := n.(string); ok && s != "" {
				names = append(names, s)
			}
		}
		if len(names) > 0 {
			return strings.Join(names, "|")
		}
	}
	return "any"
}

func printResource(r *protocol.Resource) {
	fmt.Printf("%s  %s", r.URI, r.Name)
	if r.MimeType != "" {
		fmt.Printf(" [%s]", r.MimeType)
	}
	if r.Description != "" {
		fmt.Printf(" — %s", r.Description)
	}
	fmt.Println()
}

func printTemplate(t *protocol.ResourceTemplate) {
	fmt.Printf("%s  %s (template)", t.URITemplate, t.Name)
	if t.Description != "" {
		fmt.Printf(" — %s", t.Description)
	}
	fmt.Println()
}

func printPrompt(p *protocol.Prompt) {
	fmt.Print(p.Name)
	if p.Description != "" {
		fmt.Printf(" — %s", p.Description)
	}
	fmt.Println()
	for _, a := range p.Arguments {
		req := ""
		if a.Required {
			req = " (required)"
		}
		fmt.Printf("    %s%s %s\n", a.Name, req, a.Description)
	}
}

func printToolResult(res *protocol.CallToolResult) {
	for _, c := range res.Content {
		printContent(c)
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		_ = printJSON(res.StructuredContent)
	}
}

func printContent(c protocol.Content) {
	switch c.Type {
	case protocol.ContentTypeText:
		fmt.Println(c.Text)
	case protocol.ContentTypeImage, protocol.ContentTypeAudio:
		fmt.Printf("[%s %s, %d bytes]\n", c.Type, c.MimeType, len(c.Data))
	case protocol.ContentTypeResourceLink:
		fmt.Printf("[link %s %s]\n", c.URI, c.Name)
	case protocol.ContentTypeResource:
		if c.Resource != nil {
			printResourceContents(c.Resource)
		}
	default:
		fmt.Printf("[%s content]\n", c.Type)
	}
}

func printResourceContents(c *protocol.ResourceContents) {
	if c.Blob != nil {
		fmt.Printf("[%s: %s, %d bytes]\n", c.URI, c.MimeType, len(c.Blob))
		return
	}
	fmt.Println(c.Text)
}
