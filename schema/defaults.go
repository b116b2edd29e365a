package schema

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// topDefaults lists the "default" values of the root's properties, sorted by
// property name (so that ApplyDefaults adds them in a stable order).
func topDefaults(sch *jsonschema.Schema) []keyValue {
	var out []keyValue
	for name, ps := range sch.Properties {
		if ps.Default == nil {
			continue
		}
		raw, err := json.Marshal(*ps.Default)
		if err != nil {
			continue
		}
		out = append(out, keyValue{key: name, value: raw})
	}
	slices.SortFunc(out, func(a, b keyValue) int { return strings.Compare(a.key, b.key) })
	return out
}

// ApplyDefaults returns instance with the "default" of each top-level
// property of the schema added where the instance lacks that property, so
// that decoding it into a Go struct yields the documented defaults. Call it
// before Validate. Nested defaults are not applied. When nothing is missing,
// when the schema declares no defaults, or when instance is not a JSON
// object, it returns instance itself (without allocating); otherwise a new
// slice, leaving instance unchanged.
func (v *Validator) ApplyDefaults(instance json.RawMessage) json.RawMessage {
	if len(v.defaults) == 0 {
		return instance
	}
	var small uint64
	var large []bool
	if len(v.defaults) > 64 {
		large = make([]bool, len(v.defaults))
	}
	mark := func(name []byte) {
		for i, d := range v.defaults {
			if d.key != string(name) {
				continue
			}
			if large != nil {
				large[i] = true
			} else {
				small |= 1 << i
			}
			return
		}
	}
	s := scanner{jsonscan.Scanner{Data: instance}}
	if s.next() != '{' {
		return instance
	}
	s.Pos++
	members := 0
	if s.next() == '}' {
		s.Pos++
	} else {
		for {
			if s.next() != '"' {
				return instance
			}
			raw, escaped, err := s.String()
			if err != nil {
				return instance
			}
			if escaped {
				name, ok := keyOf(raw)
				if !ok {
					return instance
				}
				mark([]byte(name))
			} else {
				mark(raw)
			}
			if s.next() != ':' {
				return instance
			}
			s.Pos++
			s.SkipSpace()
			if !s.skipValue(1) {
				return instance
			}
			members++
			c := s.next()
			s.Pos++
			if c == '}' {
				break
			}
			if c != ',' {
				return instance
			}
		}
	}
	end := s.Pos - 1 // the closing brace
	if s.SkipSpace(); s.Pos != len(s.Data) {
		return instance // trailing data: leave it to Validate
	}
	missing := func(i int) bool {
		if large != nil {
			return !large[i]
		}
		return small&(1<<i) == 0
	}
	size := 0
	for i, d := range v.defaults {
		if missing(i) {
			size += len(d.key) + len(d.value) + 4
		}
	}
	if size == 0 {
		return instance
	}
	out := make([]byte, 0, end+size+1)
	out = append(out, instance[:end]...)
	for i, d := range v.defaults {
		if !missing(i) {
			continue
		}
		if members > 0 {
			out = append(out, ',')
		}
		members++
		out = appendString(out, d.key)
		out = append(out, ':')
		out = append(out, d.value...)
	}
	return append(out, '}')
}
