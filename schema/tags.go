package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Keywords of the jsonschema tag that describe a scalar value. On a field
// whose schema is an array they apply to the items.
var itemKeywords = map[string]bool{
	"enum": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minLength": true, "maxLength": true, "pattern": true, "format": true,
}

// applyTags applies the description and jsonschema tags of f to its schema n.
// It may change f.required (the "required" and "optional" flags).
func applyTags(n *node, f *field) error {
	descTag, hasDescTag := f.tag.Lookup("description")
	if hasDescTag {
		n.description = descTag
	}
	spec := f.tag.Get("jsonschema")
	if spec == "" {
		return nil
	}
	items := splitEscaped(spec, ',')
	if !slices.ContainsFunc(items, isKeywordItem) {
		// The whole tag is the description, as github.com/modelcontextprotocol/go-sdk writes it.
		if hasDescTag {
			return errors.New(`jsonschema tag: the field also has a description tag; use one`)
		}
		n.description = spec
		return nil
	}
	seen := map[string]bool{}
	for _, item := range items {
		key, value, hasValue := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		if key == "" {
			return fmt.Errorf("jsonschema tag %q: empty item", spec)
		}
		if !isKeyword(key) {
			return fmt.Errorf("jsonschema tag %q: %q is neither key=value nor a flag "+
				"(a description mixed with keywords is written description=...)", spec, strings.TrimSpace(item))
		}
		if seen[key] {
			return fmt.Errorf("jsonschema tag: %s given twice", key)
		}
		seen[key] = true
		if err := applyKeyword(n, f, key, value, hasValue, hasDescTag); err != nil {
			return fmt.Errorf("jsonschema tag: %s: %w", key, err)
		}
	}
	return nil
}

// isKeywordItem reports whether an item of a jsonschema tag is written as
// mcpkit's keywords are: a flag (required, optional, deprecated) or a key made
// of letters and digits followed by "=". A tag with no such item is taken
// whole as a description.
func isKeywordItem(item string) bool {
	key, _, hasValue := strings.Cut(item, "=")
	key = strings.TrimSpace(key)
	if !hasValue {
		return key == "required" || key == "optional" || key == "deprecated"
	}
	return isKeyword(key)
}

// isKeyword reports whether key could be a keyword: an ASCII letter followed
// by letters and digits. Text with spaces or punctuation before an "=" is
// prose, not a key.
func isKeyword(key string) bool {
	if key == "" || !isLetter(key[0]) {
		return false
	}
	for i := 1; i < len(key); i++ {
		if !isLetter(key[i]) && (key[i] < '0' || key[i] > '9') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func applyKeyword(n *node, f *field, key, value string, hasValue, hasDescTag bool) error {
	switch key {
	case "required", "optional", "deprecated":
		if hasValue {
			return errors.New("takes no value")
		}
		switch key {
		case "required":
			f.required = true
		case "optional":
			f.required = false
		default:
			n.deprecated = true
		}
		return nil
	}
	if !hasValue {
		return fmt.Errorf("needs a value (%s=...)", key)
	}
	target := n
	if itemKeywords[key] && len(n.types) == 1 && n.types[0] == "array" && n.items != nil {
		target = n.items
	}
	text := unescapeTag(value)
	switch key {
	case "title":
		n.title = text
	case "description":
		if hasDescTag {
			return errors.New(`the field also has a description tag; use one`)
		}
		n.description = text
	case "enum":
		for _, v := range splitEscaped(value, '|') {
			raw, err := valueFor(target, unescapeTag(v))
			if err != nil {
				return err
			}
			target.enum = append(target.enum, raw)
		}
	case "examples":
		for _, v := range splitEscaped(value, '|') {
			raw, err := valueFor(n, unescapeTag(v))
			if err != nil {
				return err
			}
			n.examples = append(n.examples, raw)
		}
	case "default":
		raw, err := valueFor(n, text)
		if err != nil {
			return err
		}
		n.def = raw
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if !target.accepts("number", "integer") {
			return fmt.Errorf("applies to numbers, not %s", target.describe())
		}
		if !validNumber([]byte(text)) {
			return fmt.Errorf("%q is not a JSON number", text)
		}
		if key == "multipleOf" && (strings.HasPrefix(text, "-") || isZeroNumber(text)) {
			return fmt.Errorf("%q is not greater than 0", text)
		}
		switch key {
		case "minimum":
			target.minimum = text
		case "maximum":
			target.maximum = text
		case "exclusiveMinimum":
			target.exclusiveMinimum = text
		case "exclusiveMaximum":
			target.exclusiveMaximum = text
		default:
			target.multipleOf = text
		}
	case "minLength", "maxLength", "pattern", "format":
		if !target.accepts("string") {
			return fmt.Errorf("applies to strings, not %s", target.describe())
		}
		switch key {
		case "pattern":
			if _, err := regexp.Compile(text); err != nil {
				return err
			}
			target.pattern = text
		case "format":
			target.format = text
		default:
			count, err := strconv.ParseUint(text, 10, 31)
			if err != nil {
				return fmt.Errorf("%q is not a non-negative integer", text)
			}
			if key == "minLength" {
				target.minLength = strconv.FormatUint(count, 10)
			} else {
				target.maxLength = strconv.FormatUint(count, 10)
			}
		}
	case "minItems", "maxItems":
		if !n.accepts("array") {
			return fmt.Errorf("applies to arrays, not %s", n.describe())
		}
		count, err := strconv.ParseUint(text, 10, 31)
		if err != nil {
			return fmt.Errorf("%q is not a non-negative integer", text)
		}
		if key == "minItems" {
			n.minItems = strconv.FormatUint(count, 10)
		} else {
			n.maxItems = strconv.FormatUint(count, 10)
		}
	default:
		return errors.New("unknown key (known: title, description, enum, default, examples, minimum, maximum, " +
			"exclusiveMinimum, exclusiveMaximum, multipleOf, minLength, maxLength, pattern, format, minItems, " +
			"maxItems, required, optional, deprecated)")
	}
	return nil
}

// accepts reports whether n admits values of one of the given JSON types
// (a schema without "type" admits all).
func (n *node) accepts(types ...string) bool {
	if len(n.types) == 0 {
		return n.ref == "" && n.anyOf == nil
	}
	for _, t := range types {
		if containsString(n.types, t) {
			return true
		}
	}
	return false
}

// valueFor converts tag text to a JSON value suited to schema n: the text
// itself for strings, a number or boolean for those types, and JSON for
// everything else (text that is not JSON is taken as a string when n does not
// constrain the type). "null" is JSON null except for string schemas.
func valueFor(n *node, text string) (json.RawMessage, error) {
	var types []string
	for _, t := range n.types {
		if t != "null" {
			types = append(types, t)
		}
	}
	if len(types) == 1 {
		switch types[0] {
		case "string":
			return appendString(nil, text), nil
		case "integer":
			if text == "null" {
				return json.RawMessage("null"), nil
			}
			if i, err := strconv.ParseInt(text, 10, 64); err == nil {
				return strconv.AppendInt(nil, i, 10), nil
			}
			if u, err := strconv.ParseUint(text, 10, 64); err == nil {
				return strconv.AppendUint(nil, u, 10), nil
			}
			return nil, fmt.Errorf("%q is not an integer", text)
		case "number":
			if text == "null" {
				return json.RawMessage("null"), nil
			}
			if !validNumber([]byte(text)) {
				return nil, fmt.Errorf("%q is not a JSON number", text)
			}
			return json.RawMessage(text), nil
		case "boolean":
			if text == "true" || text == "false" || text == "null" {
				return json.RawMessage(text), nil
			}
			return nil, fmt.Errorf("%q is not a boolean", text)
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(text)) == nil {
		return buf.Bytes(), nil
	}
	if len(types) == 0 && n.ref == "" && n.anyOf == nil {
		return appendString(nil, text), nil
	}
	return nil, fmt.Errorf("%q is not valid JSON (needed for %s)", text, n.describe())
}

// splitEscaped splits s at each sep not preceded by a backslash, keeping the
// escapes in the pieces (unescapeTag removes them).
func splitEscaped(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unescapeTag replaces \x by x: `\,` is a comma, `\|` a bar, `\\` a
// backslash.
func unescapeTag(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isZeroNumber reports whether a JSON number literal is zero.
func isZeroNumber(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == 0
}
