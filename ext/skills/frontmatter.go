package skills

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits of what ParseFrontmatter accepts.
const (
	// MaxSkillFileSize bounds a SKILL.md (1 MiB): the Agent Skills format asks
	// for far less, and a larger one is refused rather than parsed.
	MaxSkillFileSize = 1 << 20
	// MaxFrontmatterSize bounds the YAML frontmatter block (64 KiB).
	MaxFrontmatterSize = 64 << 10
	// maxDepth bounds the nesting of frontmatter values.
	maxDepth = 32
)

// ErrNoFrontmatter is returned for a SKILL.md that does not begin with a
// "---" delimited YAML block.
var ErrNoFrontmatter = errors.New("SKILL.md does not begin with YAML frontmatter (a block between --- lines)")

// ParseFrontmatter reads the YAML frontmatter at the start of a SKILL.md and
// returns it as a JSON-compatible object (strings, float64 or int64 numbers,
// booleans, nil, []any and map[string]any; timestamps stay strings, as YAML
// 1.2's core schema reads them). It refuses, with an error saying why: a file
// larger than MaxSkillFileSize, one that is not UTF-8 text (binary), one
// without frontmatter, frontmatter that is not a mapping, uses aliases, repeats
// a key or nests deeper than 32 levels, and frontmatter without a non-empty
// string name and description, or whose name breaks the Agent Skills naming
// rules (CheckName).
func ParseFrontmatter(data []byte) (map[string]any, error) {
	block, err := frontmatterBlock(data)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter is not valid YAML: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("SKILL.md frontmatter is not a YAML mapping")
	}
	v, err := convert(doc.Content[0], 0)
	if err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter: %w", err)
	}
	fm := v.(map[string]any)
	for _, field := range []string{"name", "description"} {
		if s, ok := fm[field].(string); !ok || s == "" {
			return nil, fmt.Errorf("SKILL.md frontmatter has no %s (a non-empty string)", field)
		}
	}
	if err := CheckName(fm["name"].(string)); err != nil {
		return nil, err
	}
	return fm, nil
}

// frontmatterBlock returns the YAML between the opening and closing ---
// lines of a SKILL.md.
func frontmatterBlock(data []byte) ([]byte, error) {
	if len(data) > MaxSkillFileSize {
		return nil, fmt.Errorf("SKILL.md is %d bytes, more than the %d accepted", len(data), MaxSkillFileSize)
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, errors.New("SKILL.md is not UTF-8 text (binary content)")
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rest, ok := cutLine(data, "---")
	if !ok {
		return nil, ErrNoFrontmatter
	}
	for off := 0; off < len(rest); {
		line := rest[off:]
		end := bytes.IndexByte(line, '\n')
		if end < 0 {
			end = len(line)
		}
		if string(bytes.TrimRight(bytes.TrimSuffix(line[:end], []byte("\r")), " \t")) == "---" {
			block := rest[:off]
			if len(block) > MaxFrontmatterSize {
				return nil, fmt.Errorf("SKILL.md frontmatter is %d bytes, more than the %d accepted", len(block), MaxFrontmatterSize)
			}
			return block, nil
		}
		off += end + 1
	}
	return nil, ErrNoFrontmatter
}

// cutLine reports whether data's first line is exactly line (before \n or
// \r\n), and returns what follows it.
func cutLine(data []byte, line string) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(line))
	if !ok {
		return nil, false
	}
	rest = bytes.TrimPrefix(rest, []byte("\r"))
	return bytes.CutPrefix(rest, []byte("\n"))
}

// convert turns a YAML node into a JSON-compatible value.
func convert(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key is not a scalar", k.Line)
			}
			if _, dup := out[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q repeated", k.Line, k.Value)
			}
			v, err := convert(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := convert(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.AliasNode:
		return nil, fmt.Errorf("line %d: aliases are not accepted", n.Line)
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// scalar converts a scalar by its resolved tag.
func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: integer %q out of range", n.Line, n.Value)
		}
		return f, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("line %d: %q has no JSON form", n.Line, n.Value)
		}
		return f, nil
	}
	return n.Value, nil // strings, timestamps, binary: their text
}

// CheckName reports whether name follows the Agent Skills naming rules: 1 to
// 64 characters, lowercase letters, digits and hyphens, with no hyphen at
// either end and no two in a row.
func CheckName(name string) error {
	bad := len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-'
	for i := 0; !bad && i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			bad = name[i+1] == '-'
		default:
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("skill name %q breaks the naming rules (1-64 of a-z, 0-9 and '-', no leading, trailing or double '-')", name)
	}
	return nil
}
