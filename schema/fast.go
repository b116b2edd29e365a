package schema

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The fast path validates the raw bytes of an instance against the common
// subset of JSON Schema that tool schemas use (type, properties, required,
// additionalProperties, items, enum of strings/booleans/null, string lengths,
// pattern, format, numeric bounds) without decoding the instance and without
// allocating. It answers only "valid" or "cannot tell": whenever the answer
// is not a certain "valid" (an invalid instance, an unusual construct, a
// number too close to a bound to compare in floating point) the library's
// full validator decides and produces the error messages. So the fast path
// can make validation faster but never changes its outcome, which
// TestFastPathAgrees and FuzzFastPathAgrees check against the library.

// jsonTypes is a set of JSON Schema type names.
type jsonTypes uint8

const (
	typeNull jsonTypes = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]jsonTypes{
	"null": typeNull, "boolean": typeBoolean, "number": typeNumber, "integer": typeInteger,
	"string": typeString, "array": typeArray, "object": typeObject,
}

type boundOp uint8

const (
	opMinimum boundOp = iota
	opMaximum
	opExclusiveMinimum
	opExclusiveMaximum
)

// fastBound is a numeric bound, as the nearest float64 and whether that float
// is the bound exactly.
type fastBound struct {
	op    boundOp
	f     float64
	exact bool
}

// fastEnum is an enum whose values are all strings, booleans or null.
type fastEnum struct {
	strs              []string
	null, true, false bool
}

// fastProp is what an object node knows about one property name.
type fastProp struct {
	n       *fastNode // schema from "properties"; nil if only required
	bit     int8      // index in the required mask, -1 if not required
	inProps bool
}

// fastNode is one compiled subschema.
type fastNode struct {
	any    bool // no constraint: skip the value
	never  bool // the false schema
	types  jsonTypes
	enum   *fastEnum
	format *jsonschema.Format

	minLength, maxLength int // -1 when absent
	re                   *regexp.Regexp
	pattern              jsonschema.Regexp // when the engine is not Go's regexp

	bounds []fastBound

	items              *fastNode
	minItems, maxItems int // -1 when absent

	props    map[string]fastProp
	required uint64 // mask with one bit per required name
	closed   bool   // additionalProperties: false
	extra    *fastNode
}

// compileFast builds the fast-path program for s, or returns nil when s uses
// anything the fast path does not handle.
func compileFast(s *jsonschema.Schema) *fastNode {
	n, ok := buildFast(s, 0)
	if !ok {
		return nil
	}
	return n
}

func buildFast(s *jsonschema.Schema, depth int) (*fastNode, bool) {
	if depth > 100 {
		return nil, false
	}
	n := &fastNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	if s.Bool != nil {
		n.any, n.never = *s.Bool, !*s.Bool
		return n, true
	}
	if s.Ref != nil || s.RecursiveRef != nil || s.DynamicRef != nil || s.Const != nil || s.Not != nil ||
		s.AllOf != nil || s.AnyOf != nil || s.OneOf != nil || s.If != nil || s.Then != nil || s.Else != nil ||
		s.MaxProperties != nil || s.MinProperties != nil || s.PropertyNames != nil || len(s.PatternProperties) > 0 ||
		s.Dependencies != nil || s.DependentRequired != nil || s.DependentSchemas != nil ||
		s.UnevaluatedProperties != nil || s.UniqueItems || s.Contains != nil || s.MinContains != nil ||
		s.MaxContains != nil || s.AdditionalItems != nil || s.PrefixItems != nil || s.UnevaluatedItems != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil || s.MultipleOf != nil ||
		len(s.Extensions) > 0 {
		return nil, false
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			n.types |= typeBits[t]
		}
	}
	if s.Enum != nil {
		n.enum = &fastEnum{}
		for _, v := range s.Enum.Values {
			switch v := v.(type) {
			case string:
				n.enum.strs = append(n.enum.strs, v)
			case bool:
				n.enum.true = n.enum.true || v
				n.enum.false = n.enum.false || !v
			case nil:
				n.enum.null = true
			default:
				return nil, false // numbers, arrays, objects: leave to the library
			}
		}
	}
	n.format = s.Format
	if s.MinLength != nil {
		n.minLength = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLength = *s.MaxLength
	}
	if s.Pattern != nil {
		if re, ok := s.Pattern.(*regexp.Regexp); ok {
			n.re = re
		} else {
			n.pattern = s.Pattern
		}
	}
	for _, b := range []struct {
		op  boundOp
		rat interface{ Float64() (float64, bool) }
		set bool
	}{
		{opMinimum, s.Minimum, s.Minimum != nil},
		{opMaximum, s.Maximum, s.Maximum != nil},
		{opExclusiveMinimum, s.ExclusiveMinimum, s.ExclusiveMinimum != nil},
		{opExclusiveMaximum, s.ExclusiveMaximum, s.ExclusiveMaximum != nil},
	} {
		if !b.set {
			continue
		}
		f, exact := b.rat.Float64()
		if math.IsInf(f, 0) {
			return nil, false
		}
		n.bounds = append(n.bounds, fastBound{op: b.op, f: f, exact: exact})
	}

	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	items := s.Items2020
	switch it := s.Items.(type) {
	case nil:
	case *jsonschema.Schema:
		items = it
	default:
		return nil, false // tuple validation
	}
	if items != nil {
		c, ok := buildFast(items, depth+1)
		if !ok {
			return nil, false
		}
		n.items = c
	}

	if len(s.Properties) > 0 || len(s.Required) > 0 {
		n.props = make(map[string]fastProp, len(s.Properties)+len(s.Required))
	}
	for name, ps := range s.Properties {
		c, ok := buildFast(ps, depth+1)
		if !ok {
			return nil, false
		}
		n.props[name] = fastProp{n: c, bit: -1, inProps: true}
	}
	for _, name := range s.Required {
		p, found := n.props[name]
		if !found {
			p.bit = -1
		}
		if p.bit >= 0 {
			continue // listed twice
		}
		bit := 0
		for n.required&(1<<bit) != 0 {
			bit++
		}
		if bit >= 64 {
			return nil, false
		}
		p.bit = int8(bit)
		n.required |= 1 << bit
		n.props[name] = p
	}
	switch ap := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		n.closed = !ap
	case *jsonschema.Schema:
		c, ok := buildFast(ap, depth+1)
		if !ok {
			return nil, false
		}
		n.extra = c
	default:
		return nil, false
	}

	n.any = n.types == 0 && n.enum == nil && n.format == nil && n.minLength < 0 && n.maxLength < 0 &&
		n.re == nil && n.pattern == nil && n.bounds == nil && n.items == nil && n.minItems < 0 &&
		n.maxItems < 0 && n.props == nil && !n.closed && n.extra == nil
	return n, true
}

// fastValid reports whether data is certainly valid against n. False means
// either invalid or undecided.
func fastValid(n *fastNode, data []byte) bool {
	// The fast path refuses numbers with huge exponents (see Validator.Validate).
	s := scanner{jsonscan.Scanner{Data: data, MaxExponent: maxExponent}}
	if !s.check(n, 0) {
		return false
	}
	s.SkipSpace()
	return s.Pos == len(s.Data)
}

// allows reports whether n admits JSON type t.
func (n *fastNode) allows(t jsonTypes) bool {
	return n.types == 0 || n.types&t != 0
}

// check consumes one value and reports whether it is certainly valid against n.
func (s *scanner) check(n *fastNode, depth int) bool {
	if n.any {
		s.SkipSpace()
		return s.skipValue(depth)
	}
	if n.never || depth > maxScanDepth {
		return false
	}
	switch s.next() {
	case '{':
		return n.allows(typeObject) && n.enum == nil && n.format == nil && s.checkObject(n, depth)
	case '[':
		return n.allows(typeArray) && n.enum == nil && n.format == nil && s.checkArray(n, depth)
	case '"':
		return n.allows(typeString) && s.checkString(n)
	case 't':
		return n.allows(typeBoolean) && (n.enum == nil || n.enum.true) && n.format == nil && s.Literal("true") == nil
	case 'f':
		return n.allows(typeBoolean) && (n.enum == nil || n.enum.false) && n.format == nil && s.Literal("false") == nil
	case 'n':
		return n.allows(typeNull) && (n.enum == nil || n.enum.null) && n.format == nil && s.Literal("null") == nil
	}
	return n.enum == nil && n.format == nil && s.checkNumber(n)
}

func (s *scanner) checkObject(n *fastNode, depth int) bool {
	s.Pos++ // '{'
	var seen uint64
	if s.next() == '}' {
		s.Pos++
		return n.required == 0
	}
	for {
		if s.next() != '"' {
			return false
		}
		raw, escaped, err := s.String()
		if err != nil {
			return false
		}
		if s.next() != ':' {
			return false
		}
		s.Pos++
		var p fastProp
		var found bool
		if escaped {
			name, ok := keyOf(raw)
			if !ok {
				return false
			}
			p, found = n.props[name]
		} else {
			p, found = n.props[string(raw)]
		}
		if found && p.bit >= 0 {
			seen |= 1 << p.bit
		}
		var ok bool
		switch {
		case found && p.inProps:
			ok = s.check(p.n, depth+1)
		case n.closed:
			return false
		case n.extra != nil:
			ok = s.check(n.extra, depth+1)
		default:
			s.SkipSpace()
			ok = s.skipValue(depth + 1)
		}
		if !ok {
			return false
		}
		switch s.next() {
		case ',':
			s.Pos++
		case '}':
			s.Pos++
			return seen == n.required
		default:
			return false
		}
	}
}

// keyOf decodes an escaped property name.
func keyOf(raw []byte) (string, bool) {
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	var name string
	return name, json.Unmarshal(quoted, &name) == nil
}

func (s *scanner) checkArray(n *fastNode, depth int) bool {
	s.Pos++ // '['
	count := 0
	if s.next() == ']' {
		s.Pos++
	} else {
		for {
			var ok bool
			if n.items != nil {
				ok = s.check(n.items, depth+1)
			} else {
				s.SkipSpace()
				ok = s.skipValue(depth + 1)
			}
			if !ok {
				return false
			}
			count++
			c := s.next()
			s.Pos++
			if c == ']' {
				break
			}
			if c != ',' {
				return false
			}
		}
	}
	return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}

func (s *scanner) checkString(n *fastNode) bool {
	start := s.Pos
	raw, escaped, err := s.String()
	if err != nil {
		return false
	}
	if n.enum == nil && n.format == nil && n.minLength < 0 && n.maxLength < 0 && n.re == nil && n.pattern == nil {
		return true
	}
	str := raw
	if escaped || !utf8.Valid(raw) {
		// Rare: decode exactly as the library's decoder (encoding/json) does.
		var decoded string
		if json.Unmarshal(s.Data[start:s.Pos], &decoded) != nil {
			return false
		}
		str = []byte(decoded)
	}
	if n.enum != nil {
		found := false
		for _, v := range n.enum.strs {
			if string(str) == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		length := utf8.RuneCount(str)
		if n.minLength >= 0 && length < n.minLength || n.maxLength >= 0 && length > n.maxLength {
			return false
		}
	}
	if n.re != nil && !n.re.Match(str) || n.pattern != nil && !n.pattern.MatchString(string(str)) {
		return false
	}
	return n.format == nil || n.format.Validate(string(str)) == nil
}

func (s *scanner) checkNumber(n *fastNode) bool {
	lit, err := s.Number()
	if err != nil {
		return false
	}
	if n.types != 0 && n.types&typeNumber == 0 {
		if n.types&typeInteger == 0 || !numberIsInteger(lit) {
			return false
		}
	}
	if len(n.bounds) == 0 {
		return true
	}
	f, exact, ok := parseNumber(lit)
	if !ok {
		return false
	}
	for _, b := range n.bounds {
		// Rounding to float64 is monotonic, so a strict float comparison
		// decides; equal floats decide only when both are exact.
		var c int
		switch {
		case f < b.f:
			c = -1
		case f > b.f:
			c = 1
		case exact && b.exact:
			c = 0
		default:
			return false
		}
		switch b.op {
		case opMinimum:
			ok = c >= 0
		case opMaximum:
			ok = c <= 0
		case opExclusiveMinimum:
			ok = c > 0
		case opExclusiveMaximum:
			ok = c < 0
		}
		if !ok {
			return false
		}
	}
	return true
}

// parseNumber converts a JSON number literal to the nearest float64 and
// reports whether the conversion is certainly exact (it is for integers of
// magnitude up to 2^53; other exact cases are reported as inexact, which only
// sends them to the library).
func parseNumber(lit []byte) (f float64, exact, ok bool) {
	digits := lit
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		digits = lit[1:]
	}
	if len(digits) <= 15 {
		var v int64
		plain := true
		for _, c := range digits {
			if !isDigit(c) {
				plain = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if plain {
			f = float64(v)
			if neg {
				f = -f
			}
			return f, true, true
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return 0, false, false
	}
	// An integer of magnitude at most 2^53 is a float64 exactly, and
	// ParseFloat rounds correctly, so it found that float.
	exact = f <= 1<<53 && f >= -(1<<53) && numberIsInteger(lit)
	return f, exact, true
}
