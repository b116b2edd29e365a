// Package argdecode decodes the arguments of a typed tool in one pass over the
// JSON, for the usual input types, with encoding/json's outcome.
package argdecode

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// The arguments of a typed tool (mcp.AddTool) are decoded on every call. For the
// usual input type — a struct of strings, numbers and booleans, or pointers to
// them — Decoder does it in one pass over the JSON without encoding/json's
// reflection walk. It gives up on anything it does not handle exactly as
// encoding/json would (escaped or non-ASCII keys, a key that matches a field
// only up to case, a value of the wrong type, a number out of range, a syntax
// error), and the caller then decodes with encoding/json from scratch, so the
// outcome, value or error, is always encoding/json's.

// Decoder decodes JSON objects into one struct type.
type Decoder struct {
	fields []argField
	names  []string // the fields' JSON names, for the case-folding check
}

// argField is one struct field the decoder fills.
type argField struct {
	name  string
	index int
	kind  reflect.Kind // of the field, or of what it points to when ptr
	ptr   bool         // the field is a pointer (nil until a non-null value)
	elem  reflect.Type // what a pointer field points to
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// For returns a decoder for t, or nil when t is not a struct made
// only of fields it handles: exported, not embedded, of a string, bool,
// integer or floating-point kind (or a pointer to one), with no custom
// decoding (json.Number included), no ",string" option and unambiguous names.
func For(t reflect.Type) *Decoder {
	if t.Kind() != reflect.Struct || customDecoding(t) {
		return nil
	}
	d := &Decoder{}
	seen := make(map[string]bool)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // encoding/json's embedding rules are not worth copying
		}
		if !sf.IsExported() {
			continue
		}
		name := sf.Name
		if tag, ok := sf.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			tagName, opts, _ := strings.Cut(tag, ",")
			if hasOption(opts, "string") {
				return nil
			}
			if tagName != "" {
				if !simpleJSONName(tagName) {
					return nil
				}
				name = tagName
			}
		}
		if seen[name] {
			return nil // encoding/json's conflict rules are not worth copying
		}
		seen[name] = true
		f := argField{name: name, index: i}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			if customDecoding(ft) {
				return nil
			}
			f.ptr, f.elem, ft = true, ft.Elem(), ft.Elem()
		}
		if !scalarKind(ft.Kind()) || customDecoding(ft) || ft == jsonNumberType {
			return nil // json.Number: encoding/json reads numbers into it, and checks strings
		}
		f.kind = ft.Kind()
		d.fields = append(d.fields, f)
		d.names = append(d.names, name)
	}
	return d
}

// customDecoding reports whether encoding/json would decode t (or *t) with
// its own UnmarshalJSON or UnmarshalText.
func customDecoding(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || pt.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || pt.Implements(textUnmarshalerType)
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// simpleJSONName reports whether a tag name is made of ASCII letters, digits
// and the punctuation encoding/json accepts in names, so it is used as
// written (encoding/json falls back to the Go name for some others).
func simpleJSONName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// Decode fills v (an addressable struct of the decoder's type) from the JSON
// object data. It reports false when encoding/json must decode instead; v
// may then be partly written, and the caller resets it.
func (d *Decoder) Decode(data []byte, v reflect.Value) bool {
	return jsonscan.EachMember(data, func(key []byte, escaped bool, value []byte) bool {
		if escaped {
			return false
		}
		f := d.field(key)
		if f == nil {
			return unknownKeyIgnored(key, d.names)
		}
		vs := jsonscan.Scanner{Data: value}
		return f.decode(&vs, v.Field(f.index)) && vs.Pos == len(value)
	})
}

// field returns the field named exactly key, or nil.
func (d *Decoder) field(key []byte) *argField {
	for i := range d.fields {
		if d.fields[i].name == string(key) {
			return &d.fields[i]
		}
	}
	return nil
}

// unknownKeyIgnored reports whether encoding/json would skip a key that names
// no field exactly: one that matches no field up to case (ASCII only; other
// keys are left to encoding/json, whose Unicode folding is its own).
func unknownKeyIgnored(key []byte, names []string) bool {
	return jsonscan.IsASCII(key) && !jsonscan.FoldsToAny(key, names)
}

// decode reads one value at s into fv.
func (f *argField) decode(s *jsonscan.Scanner, fv reflect.Value) bool {
	if s.Peek() == 'n' {
		if s.Literal("null") != nil {
			return false
		}
		if f.ptr {
			fv.SetZero() // encoding/json sets a pointer to nil; other kinds keep their value
		}
		return true
	}
	if f.ptr {
		if fv.IsNil() {
			fv.Set(reflect.New(f.elem))
		}
		fv = fv.Elem()
	}
	switch f.kind {
	case reflect.String:
		if s.Peek() != '"' {
			return false
		}
		raw, escaped, err := s.String()
		if err != nil {
			return false
		}
		if !escaped && utf8.Valid(raw) {
			fv.SetString(string(raw))
			return true
		}
		str, ok := unquoteJSON(raw)
		if !ok {
			return false
		}
		fv.SetString(str)
	case reflect.Bool:
		switch {
		case s.Literal("true") == nil:
			fv.SetBool(true)
		case s.Literal("false") == nil:
			fv.SetBool(false)
		default:
			return false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lit, err := number(s)
		if err != nil {
			return false
		}
		n, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return false
		}
		fv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		lit, err := number(s)
		if err != nil {
			return false
		}
		n, err := strconv.ParseUint(string(lit), 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return false
		}
		fv.SetUint(n)
	case reflect.Float32, reflect.Float64:
		lit, err := number(s)
		if err != nil {
			return false
		}
		n, err := strconv.ParseFloat(string(lit), fv.Type().Bits())
		if err != nil || fv.OverflowFloat(n) {
			return false
		}
		fv.SetFloat(n)
	default:
		return false
	}
	return true
}

// number reads a JSON number literal at s.
func number(s *jsonscan.Scanner) ([]byte, error) {
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		return nil, jsonscan.ErrSyntax
	}
	return s.Number()
}

// unquoteJSON decodes the contents of a JSON string (without its quotes) as
// encoding/json does: escapes resolved, a \u escape of a lone surrogate and
// every byte that is not valid UTF-8 replaced by U+FFFD. raw has passed the
// scanner, so its escapes are well formed.
func unquoteJSON(raw []byte) (string, bool) {
	b := make([]byte, 0, len(raw)+2*utf8.UTFMax)
	for r := 0; r < len(raw); {
		c := raw[r]
		switch {
		case c == '\\':
			if r+1 >= len(raw) {
				return "", false
			}
			switch e := raw[r+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				r += 2
			case 'b':
				b = append(b, '\b')
				r += 2
			case 'f':
				b = append(b, '\f')
				r += 2
			case 'n':
				b = append(b, '\n')
				r += 2
			case 'r':
				b = append(b, '\r')
				r += 2
			case 't':
				b = append(b, '\t')
				r += 2
			case 'u':
				rr := hex4(raw[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, hex4(raw[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", false
			}
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(raw[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), true
}

// hex4 decodes the \uXXXX escape at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 + rune(c)
	}
	return r
}

// Into decodes a typed tool's arguments into in: with d when it can (nil
// means it never can), with encoding/json otherwise, so the outcome, value or
// error, is always encoding/json's.
func Into[T any](d *Decoder, args json.RawMessage, in *T) error {
	if d != nil && d.Decode(args, reflect.ValueOf(in).Elem()) {
		return nil
	}
	var zero T
	*in = zero // what the fast decoder wrote does not count
	return json.Unmarshal(args, in)
}
