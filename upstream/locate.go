package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Span is the byte range [Start, End) of a JSON value in a file.
type Span struct{ Start, End int }

// EntrySpan is where one server entry is written in a configuration file, for
// tools that edit the file in place (`mcpkit tap install`) and so keep its
// comments, formatting and other members.
type EntrySpan struct {
	// Name is the server's name; List the member holding it: "mcpServers",
	// "servers", "mcp.mcpServers" or "mcp.servers".
	Name, List string
	// Value is the entry's object, braces included.
	Value Span
	// Members are the values of the entry's own members, by name, and Values
	// the same values with comments removed (ready to decode).
	Members map[string]Span
	Values  map[string]json.RawMessage
}

// LocateServers returns where each server entry of a configuration file is
// written, in file order, from the layouts ServerEntries reads (JSON with
// comments and trailing commas allowed). Offsets are into data.
func LocateServers(path string, data []byte) ([]EntrySpan, error) {
	if _, err := readServerLists(path, data); err != nil {
		return nil, err // the file's errors, said as Parse says them
	}
	p := &locator{b: stripJSONC(data)}
	var out []EntrySpan
	err := p.object(func(key string, at int) error {
		switch key {
		case "mcpServers", "servers":
			return p.entries(key, &out)
		case "mcp":
			if p.peek() != '{' {
				return p.skip()
			}
			return p.object(func(sub string, _ int) error {
				if sub == "mcpServers" || sub == "servers" {
					return p.entries("mcp."+sub, &out)
				}
				return p.skip()
			})
		}
		return p.skip()
	})
	if err != nil {
		return nil, &ConfigError{File: path, Err: err}
	}
	return out, nil
}

// locator walks JSON whose comments were blanked, keeping offsets.
type locator struct {
	b []byte
	i int
}

func (p *locator) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *locator) peek() byte {
	p.ws()
	if p.i >= len(p.b) {
		return 0
	}
	return p.b[p.i]
}

var errSyntax = errors.New("malformed JSON")

// object walks an object, calling member with each key, positioned at its value;
// member must consume the value.
func (p *locator) object(member func(key string, at int) error) error {
	if p.peek() != '{' {
		return errSyntax
	}
	p.i++
	for {
		switch p.peek() {
		case '}':
			p.i++
			return nil
		case ',':
			p.i++
			continue
		case '"':
		default:
			return fmt.Errorf("%w at offset %d", errSyntax, p.i)
		}
		start := p.i
		if err := p.skip(); err != nil {
			return err
		}
		key, err := unquote(p.b[start:p.i])
		if err != nil {
			return err
		}
		if p.peek() != ':' {
			return fmt.Errorf("%w at offset %d", errSyntax, p.i)
		}
		p.i++
		p.ws()
		if err := member(key, p.i); err != nil {
			return err
		}
	}
}

// entries walks an object of servers.
func (p *locator) entries(list string, out *[]EntrySpan) error {
	if p.peek() != '{' {
		return p.skip()
	}
	return p.object(func(name string, at int) error {
		e := EntrySpan{Name: name, List: list, Members: map[string]Span{}, Values: map[string]json.RawMessage{}}
		if p.peek() != '{' {
			return p.skip()
		}
		e.Value.Start = p.i
		err := p.object(func(key string, at int) error {
			if err := p.skip(); err != nil {
				return err
			}
			e.Members[key] = Span{at, p.i}
			e.Values[key] = p.b[at:p.i]
			return nil
		})
		e.Value.End = p.i
		*out = append(*out, e)
		return err
	})
}

// skip moves past one value.
func (p *locator) skip() error {
	switch c := p.peek(); c {
	case '{', '[':
		depth := 0
		for ; p.i < len(p.b); p.i++ {
			switch p.b[p.i] {
			case '"':
				if err := p.str(); err != nil {
					return err
				}
				p.i--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.i++
					return nil
				}
			}
		}
		return errSyntax
	case '"':
		return p.str()
	case 0:
		return errSyntax
	default: // a number, true, false, null
		for p.i < len(p.b) && !isDelim(p.b[p.i]) {
			p.i++
		}
		return nil
	}
}

// str moves past a string starting at p.i.
func (p *locator) str() error {
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return nil
		}
	}
	return errSyntax
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// unquote decodes a JSON string.
func unquote(b []byte) (string, error) {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", err
	}
	return s, nil
}
