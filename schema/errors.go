package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Violation is one way in which a JSON value breaks its schema.
type Violation struct {
	// Path is the JSON Pointer (RFC 6901) of the offending value, such as
	// "/items/0/name"; "" is the whole value.
	Path string
	// Message says what is wrong, such as `got string, want integer` or
	// `missing property "message"`.
	Message string
}

// ValidationError is returned by Validator.Validate when an instance does not
// satisfy the schema. It lists every violation found.
type ValidationError struct {
	// Name labels the root of the instance in Error (CompileOptions.Name).
	Name string
	// Violations are sorted by Path; there is at least one.
	Violations []Violation
}

// maxListed bounds how many violations Error spells out.
const maxListed = 10

// Error lists the violations, separated by "; ", each as "path: message";
// violations of the whole instance use Name as their path. For example:
//
//	arguments: missing property "message"; /count: got string, want integer
func (e *ValidationError) Error() string {
	return formatViolations(e.Name, e.Violations)
}

func formatViolations(root string, vs []Violation) string {
	var b strings.Builder
	for i, v := range vs {
		if i == maxListed {
			fmt.Fprintf(&b, "; and %d more", len(vs)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		if v.Path == "" {
			b.WriteString(root)
		} else {
			b.WriteString(v.Path)
		}
		b.WriteString(": ")
		b.WriteString(v.Message)
	}
	return b.String()
}

// SchemaError is returned by Compile for a schema that cannot be used: not
// JSON, not valid against its draft's metaschema (Violations then point into
// the schema), or with an unresolvable reference, a bad regular expression,
// or an unknown "$schema".
type SchemaError struct {
	// Violations say where the schema breaks its metaschema, if it does.
	Violations []Violation
	// Err is the underlying cause otherwise.
	Err error
	// text is Err's message with internal resource names removed.
	text string
}

// Error describes the problem, such as
// `schema: invalid schema: /type: got number, want string or array`.
func (e *SchemaError) Error() string {
	if len(e.Violations) > 0 {
		return "schema: invalid schema: " + formatViolations("(root)", e.Violations)
	}
	return "schema: invalid schema: " + e.text
}

// Unwrap returns the underlying cause.
func (e *SchemaError) Unwrap() error { return e.Err }

var printer = message.NewPrinter(language.English)

// violationsOf flattens the library's error tree into sorted violations.
func violationsOf(e *jsonschema.ValidationError) []Violation {
	vs := collect(e, nil)
	slices.SortStableFunc(vs, func(a, b Violation) int { return strings.Compare(a.Path, b.Path) })
	return slices.Compact(vs)
}

// collect appends the violations in e's tree to out.
func collect(e *jsonschema.ValidationError, out []Violation) []Violation {
	path := pointer(e.InstanceLocation)
	add := func(format string, args ...any) {
		out = append(out, Violation{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			out = collect(c, out)
		}
		if len(e.Causes) == 0 {
			add("%s", k.LocalizedString(printer))
		}
	case *kind.AnyOf:
		add("%s", alternatives(e, path))
	case *kind.OneOf:
		if len(k.Subschemas) < 2 {
			add("%s", alternatives(e, path))
		} else {
			add("matches oneOf alternatives %d and %d, want exactly one", k.Subschemas[0], k.Subschemas[1])
		}
	case *kind.Type:
		add("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
	case *kind.Required:
		for _, name := range k.Missing {
			add("missing property %s", strconv.Quote(name))
		}
	case *kind.AdditionalProperties:
		for _, name := range slices.Sorted(slices.Values(k.Properties)) {
			add("unexpected property %s", strconv.Quote(name))
		}
	case *kind.Enum:
		add("got %s, want one of %s", display(k.Got), displayList(k.Want))
	case *kind.Const:
		add("got %s, want %s", display(k.Got), display(k.Want))
	case *kind.Minimum:
		add("got %s, want at least %s", ratString(k.Got), ratString(k.Want))
	case *kind.Maximum:
		add("got %s, want at most %s", ratString(k.Got), ratString(k.Want))
	case *kind.ExclusiveMinimum:
		add("got %s, want more than %s", ratString(k.Got), ratString(k.Want))
	case *kind.ExclusiveMaximum:
		add("got %s, want less than %s", ratString(k.Got), ratString(k.Want))
	case *kind.MultipleOf:
		add("got %s, want a multiple of %s", ratString(k.Got), ratString(k.Want))
	case *kind.MinLength:
		add("got %d characters, want at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		add("got %d characters, want at most %d", k.Got, k.Want)
	case *kind.MinItems:
		add("got %d items, want at least %d", k.Got, k.Want)
	case *kind.MaxItems:
		add("got %d items, want at most %d", k.Got, k.Want)
	case *kind.MinProperties:
		add("got %d properties, want at least %d", k.Got, k.Want)
	case *kind.MaxProperties:
		add("got %d properties, want at most %d", k.Got, k.Want)
	case *kind.Pattern:
		add("got %s, want a string matching %s", display(k.Got), k.Want)
	case *kind.Format:
		add("got %s, want a valid %s (%v)", display(k.Got), k.Want, k.Err)
	case *kind.FalseSchema:
		add("no value is allowed here")
	case *kind.Not:
		add(`matches the "not" schema, which it must not`)
	case *kind.UniqueItems:
		add("items %d and %d are equal, want unique items", k.Duplicates[0], k.Duplicates[1])
	case *kind.Dependency:
		add("property %s requires %s", strconv.Quote(k.Prop), quoteAll(k.Missing))
	case *kind.DependentRequired:
		add("property %s requires %s", strconv.Quote(k.Prop), quoteAll(k.Missing))
	default:
		add("%s", e.ErrorKind.LocalizedString(printer))
		for _, c := range e.Causes {
			out = collect(c, out)
		}
	}
	return out
}

// alternatives describes an anyOf/oneOf none of whose branches matched. When
// every branch failed only on "type" at this location, it merges them into
// one type message ("got integer, want string or null").
func alternatives(e *jsonschema.ValidationError, path string) string {
	var got string
	var wants []string
	if allTypeErrors(e.Causes, path, &got, &wants) && len(wants) > 0 {
		return fmt.Sprintf("got %s, want %s", got, strings.Join(slices.Compact(wants), " or "))
	}
	var parts []string
	for _, c := range e.Causes {
		for _, v := range collect(c, nil) {
			if v.Path == path {
				parts = append(parts, v.Message)
			} else {
				parts = append(parts, v.Path+": "+v.Message)
			}
		}
	}
	return "matches none of the alternatives (" + strings.Join(parts, "; ") + ")"
}

// allTypeErrors reports whether every leaf under causes is a type mismatch at
// path, gathering the wanted types.
func allTypeErrors(causes []*jsonschema.ValidationError, path string, got *string, wants *[]string) bool {
	for _, c := range causes {
		switch k := c.ErrorKind.(type) {
		case *kind.Type:
			if pointer(c.InstanceLocation) != path {
				return false
			}
			*got = k.Got
			*wants = append(*wants, k.Want...)
		case *kind.Group, *kind.Reference, *kind.AllOf, *kind.Schema:
			if !allTypeErrors(c.Causes, path, got, wants) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// pointer encodes tokens as a JSON Pointer.
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
		}
		b.WriteString(t)
	}
	return b.String()
}

// display renders a JSON value for a message, shortened when long.
func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const limit = 60
	if len(b) > limit {
		cut := limit
		for cut > 0 && b[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func displayList(vs []any) string {
	const limit = 12
	parts := make([]string, 0, min(len(vs), limit)+1)
	for i, v := range vs {
		if i == limit {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-i))
			break
		}
		parts = append(parts, display(v))
	}
	return strings.Join(parts, ", ")
}

func quoteAll(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = strconv.Quote(n)
	}
	return strings.Join(parts, ", ")
}

// ratString renders a number compactly: exactly for integers, as the nearest
// float64 otherwise.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
