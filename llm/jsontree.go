package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// This file holds a JSON tree that keeps the order of object members, so that
// a mapped schema lists properties in the order the server wrote them (models
// tend to write arguments in schema order).

// object is a JSON object with its members in order. Values are object,
// []any, json.Number, string, bool or nil.
type object []member

type member struct {
	key string
	val any
}

// get returns the value of key.
func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces the value of key, or appends the member.
func (o *object) set(key string, val any) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].val = val
			return
		}
	}
	*o = append(*o, member{key, val})
}

// del removes key.
func (o *object) del(key string) {
	*o = slices.DeleteFunc(*o, func(m member) bool { return m.key == key })
}

// maxDepth is the deepest nesting parseTree accepts (encoding/json's own
// limit).
const maxDepth = 10_000

// errTooDeep is parseTree's error for a value nested deeper than maxDepth.
var errTooDeep = fmt.Errorf("nests deeper than %d levels", maxDepth)

// parseTree decodes JSON text into a tree. size is what the tree costs to
// walk (see cost).
func parseTree(data []byte) (v any, size int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := parser{dec: dec}
	v, err = p.value(0)
	if err != nil {
		return nil, 0, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, errors.New("unexpected data after the JSON value")
	}
	return v, p.size, nil
}

// parser reads a tree from a decoder, counting its cost.
type parser struct {
	dec  *json.Decoder
	size int
}

func (p *parser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	dec := p.dec
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	p.size += cost(tok)
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := object{}
			var index map[string]int // of a large object's keys, to find a repeated key in constant time
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				p.size += cost(k)
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				key := k.(string)
				// A repeated key keeps its last value, as encoding/json does.
				if index == nil && len(o) < 16 {
					o.set(key, v)
					continue
				}
				if index == nil {
					index = make(map[string]int, 2*len(o))
					for i, mem := range o {
						index[mem.key] = i
					}
				}
				if i, ok := index[key]; ok {
					o[i].val = v
				} else {
					index[key] = len(o)
					o = append(o, member{key, v})
				}
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// appendTree appends v's JSON encoding to b.
func appendTree(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case object:
		b = append(b, '{')
		for i, m := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = appendJSONString(b, m.key)
			b = append(b, ':')
			var err error
			if b, err = appendTree(b, m.val); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendTree(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendJSONString(b, t)
	case json.Number:
		return append(b, t...), nil
	case bool:
		if t {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case nil:
		return append(b, "null"...), nil
	}
	return b, fmt.Errorf("llm: cannot encode %T", v)
}

func appendJSONString(b []byte, s string) ([]byte, error) {
	enc, err := json.Marshal(s)
	return append(b, enc...), err
}

// clone copies a tree deeply.
func clone(v any) any {
	switch t := v.(type) {
	case object:
		c := make(object, len(t))
		for i, m := range t {
			c[i] = member{m.key, clone(m.val)}
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = clone(e)
		}
		return c
	}
	return v
}
