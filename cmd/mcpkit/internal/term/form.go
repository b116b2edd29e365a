package term

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file reads the form of an elicitation/create request (its requestedSchema:
// a flat object of string, number, integer, boolean and enum fields) and checks
// answers against it.

// fieldKind is the type of one form field.
type fieldKind int

const (
	kindText    fieldKind = iota // a string, maybe with a format and length bounds
	kindNumber                   // any number, maybe bounded
	kindInteger                  // a whole number, maybe bounded
	kindBoolean                  // yes or no
	kindChoice                   // one of the options (a string enum)
	kindChoices                  // any number of the options (an array of a string enum)
)

// option is one value of an enum field, with the label to show for it.
type option struct{ value, title string }

// Field is one field of an elicitation form.
type Field struct {
	name        string
	title       string
	description string
	kind        fieldKind
	required    bool
	options     []option // kindChoice, kindChoices
	def         any      // the default, checked against the field; nil for none
	format      string   // kindText: date, date-time, email or uri
	minimum     *float64
	maximum     *float64
	minLength   *int
	maxLength   *int
	minItems    *int
	maxItems    *int
}

// constTitle is one titled enum option on the wire.
type constTitle struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// propertySchema is one property of a requested schema, as the wire has it.
type propertySchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"` // the legacy titled enum
	OneOf       []constTitle    `json:"oneOf"`
	Default     json.RawMessage `json:"default"`
	Format      string          `json:"format"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Items       *struct {
		Type  string       `json:"type"`
		Enum  []string     `json:"enum"`
		AnyOf []constTitle `json:"anyOf"`
	} `json:"items"`
}

// ParseForm reads a requestedSchema into its fields, in the order the server
// listed them. No schema, or one without properties, is a form without fields.
func ParseForm(raw json.RawMessage) ([]Field, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var top struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("the requested schema is not a JSON object: %w", err)
	}
	if top.Type != "" && top.Type != "object" {
		return nil, fmt.Errorf("the requested schema has type %q, want object", top.Type)
	}
	names, props, err := orderedProperties(top.Properties)
	if err != nil {
		return nil, err
	}
	fields := make([]Field, 0, len(names))
	for i, name := range names {
		var ps propertySchema
		if err := json.Unmarshal(props[i], &ps); err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
		f, err := fieldOf(name, &ps)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
		f.required = slices.Contains(top.Required, name)
		fields = append(fields, f)
	}
	return fields, nil
}

// orderedProperties splits a JSON object into its keys and values, in order.
func orderedProperties(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("the requested schema's properties are not a JSON object")
	}
	var names []string
	var values []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("the requested schema's properties: %w", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("the requested schema's properties: %w", err)
		}
		names = append(names, tok.(string))
		values = append(values, v)
	}
	return names, values, nil
}

// fieldOf turns one property schema into a field.
func fieldOf(name string, ps *propertySchema) (Field, error) {
	f := Field{name: name, title: ps.Title, description: ps.Description, format: ps.Format,
		minimum: ps.Minimum, maximum: ps.Maximum, minLength: ps.MinLength, maxLength: ps.MaxLength,
		minItems: ps.MinItems, maxItems: ps.MaxItems}
	switch ps.Type {
	case "string":
		switch {
		case len(ps.OneOf) > 0:
			f.kind, f.options = kindChoice, titledOptions(ps.OneOf)
		case len(ps.Enum) > 0:
			f.kind, f.options = kindChoice, plainOptions(ps.Enum, ps.EnumNames)
		default:
			f.kind = kindText
		}
	case "number":
		f.kind = kindNumber
	case "integer":
		f.kind = kindInteger
	case "boolean":
		f.kind = kindBoolean
	case "array":
		switch {
		case ps.Items == nil:
			return f, errors.New("an array field without items")
		case len(ps.Items.AnyOf) > 0:
			f.kind, f.options = kindChoices, titledOptions(ps.Items.AnyOf)
		case len(ps.Items.Enum) > 0:
			f.kind, f.options = kindChoices, plainOptions(ps.Items.Enum, nil)
		default:
			return f, errors.New("an array field whose items are not an enum")
		}
	default:
		return f, fmt.Errorf("unsupported type %q (a form field is a string, number, integer, boolean or enum)", ps.Type)
	}
	if len(ps.Default) > 0 {
		var d any
		if json.Unmarshal(ps.Default, &d) == nil {
			if v, err := f.check(d); err == nil {
				f.def = v
			}
		}
	}
	return f, nil
}

func titledOptions(list []constTitle) []option {
	out := make([]option, len(list))
	for i, o := range list {
		out[i] = option{value: o.Const, title: o.Title}
	}
	return out
}

func plainOptions(values, titles []string) []option {
	out := make([]option, len(values))
	for i, v := range values {
		out[i] = option{value: v}
		if i < len(titles) {
			out[i].title = titles[i]
		}
	}
	return out
}

// check validates v — a value as encoding/json decodes it — against the field, and
// returns it as it goes into the answer.
func (f *Field) check(v any) (any, error) {
	switch f.kind {
	case kindText:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("want text")
		}
		return s, f.checkText(s)
	case kindNumber, kindInteger:
		n, ok := v.(float64)
		if !ok {
			return nil, errors.New("want a number")
		}
		if f.minimum != nil && n < *f.minimum {
			return nil, fmt.Errorf("%g is below the minimum %g", n, *f.minimum)
		}
		if f.maximum != nil && n > *f.maximum {
			return nil, fmt.Errorf("%g is above the maximum %g", n, *f.maximum)
		}
		if f.kind == kindInteger {
			if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
				return nil, fmt.Errorf("%g is not a whole number", n)
			}
			return int64(n), nil
		}
		return n, nil
	case kindBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("want true or false")
		}
		return b, nil
	case kindChoice:
		s, ok := v.(string)
		if !ok || !f.hasOption(s) {
			return nil, fmt.Errorf("want one of %s", f.optionValues())
		}
		return s, nil
	default: // kindChoices
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list of %s", f.optionValues())
		}
		out := make([]string, 0, len(list))
		for _, it := range list {
			s, ok := it.(string)
			if !ok || !f.hasOption(s) {
				return nil, fmt.Errorf("%v is not one of %s", it, f.optionValues())
			}
			out = append(out, s)
		}
		if f.minItems != nil && len(out) < *f.minItems {
			return nil, fmt.Errorf("choose at least %d", *f.minItems)
		}
		if f.maxItems != nil && len(out) > *f.maxItems {
			return nil, fmt.Errorf("choose at most %d", *f.maxItems)
		}
		return out, nil
	}
}

// checkText checks a text answer's length and format.
func (f *Field) checkText(s string) error {
	n := utf8.RuneCountInString(s)
	if f.minLength != nil && n < *f.minLength {
		return fmt.Errorf("want at least %d characters", *f.minLength)
	}
	if f.maxLength != nil && n > *f.maxLength {
		return fmt.Errorf("want at most %d characters", *f.maxLength)
	}
	var err error
	switch f.format {
	case "email":
		var a *mail.Address
		if a, err = mail.ParseAddress(s); err == nil && a.Address != s {
			err = errors.New("not a bare address")
		}
	case "uri":
		var u *url.URL
		if u, err = url.Parse(s); err == nil && u.Scheme == "" {
			err = errors.New("no scheme")
		}
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	}
	if err != nil {
		return fmt.Errorf("not a valid %s (%s): %w", f.format, formatHint(f.format), err)
	}
	return nil
}

// parseInput reads what the user typed for the field and checks it.
func (f *Field) parseInput(s string) (any, error) {
	switch f.kind {
	case kindNumber, kindInteger:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return f.check(n)
	case kindBoolean:
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, errors.New("answer yes or no")
	case kindChoice:
		return f.check(f.pick(s))
	case kindChoices:
		var picked []any
		for part := range strings.SplitSeq(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				picked = append(picked, f.pick(part))
			}
		}
		return f.check(picked)
	}
	return f.check(s)
}

// pick maps an option's number (1-based) or title to its value; anything else
// is taken as the value itself.
func (f *Field) pick(s string) string {
	if i, err := strconv.Atoi(s); err == nil && i >= 1 && i <= len(f.options) {
		return f.options[i-1].value
	}
	for _, o := range f.options {
		if o.title != "" && strings.EqualFold(o.title, s) {
			return o.value
		}
	}
	return s
}

func (f *Field) hasOption(s string) bool {
	return slices.ContainsFunc(f.options, func(o option) bool { return o.value == s })
}

func (f *Field) optionValues() string {
	vals := make([]string, len(f.options))
	for i, o := range f.options {
		vals[i] = strconv.Quote(o.value)
	}
	return strings.Join(vals, ", ")
}

// formatHint says how to write a value of a string format.
func formatHint(format string) string {
	switch format {
	case "date":
		return "YYYY-MM-DD"
	case "date-time":
		return "YYYY-MM-DDThh:mm:ssZ"
	case "email":
		return "name@example.com"
	case "uri":
		return "scheme:..., e.g. https://example.com"
	}
	return format
}

// AnswersFor fills the form from a file's answers (field name → JSON value):
// every field the file names is checked; a field it does not name takes its
// default, or is left out when optional. Names the form does not have are
// ignored, so one file can answer several forms.
func AnswersFor(fields []Field, answers map[string]json.RawMessage) (map[string]any, error) {
	content := make(map[string]any, len(fields))
	var missing []string
	for i := range fields {
		f := &fields[i]
		raw, ok := answers[f.name]
		if !ok {
			switch {
			case f.def != nil:
				content[f.name] = f.def
			case f.required:
				missing = append(missing, strconv.Quote(f.name))
			}
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.name, err)
		}
		checked, err := f.check(v)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.name, err)
		}
		content[f.name] = checked
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no answer for the required field(s) %s", strings.Join(missing, ", "))
	}
	return content, nil
}
