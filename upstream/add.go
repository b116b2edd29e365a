package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrServerExists is returned by AddServer when the list already has a server
// of that name and replace is not set.
var ErrServerExists = errors.New("a server of that name is already configured")

// AddServer returns data with a server entry added under list ("mcpServers"
// for Claude Desktop, Cursor and the gateway, "servers" for VS Code's
// mcp.json), keeping the rest of the file (comments, formatting, other
// members) as written: `mcpkit config add`. The list is created when the file
// has none; empty data is a new file. An entry of the same name is replaced
// when replace is set, else ErrServerExists. entry is the entry's JSON object.
func AddServer(path string, data []byte, list, name string, entry any, replace bool) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	var top0 map[string]json.RawMessage
	if clean := stripJSONC(data); json.Unmarshal(clean, &top0) != nil {
		var v any
		err := json.Unmarshal(clean, &v)
		if err == nil {
			err = fmt.Errorf("want an object, got %s", jsonKind(clean))
		} else {
			err = syntaxMessage(clean, err)
		}
		return nil, &ConfigError{File: path, Err: err}
	}
	// A file the reader refuses (an "mcp" that is not an object, a list of
	// servers that is not one) is refused here too: the server added would
	// not be read.
	if _, err := serverLists(path, top0); err != nil && !errors.Is(err, errNoServers) {
		return nil, err
	}
	p := &locator{b: stripJSONC(data)}
	var top, listSpan Span
	found := false
	p.peek()
	top.Start = p.i // the top object's brace
	err := p.object(func(key string, at int) error {
		if key != list {
			return p.skip()
		}
		if p.peek() != '{' {
			return fmt.Errorf("%q is not an object of servers", list)
		}
		found = true
		listSpan.Start = p.i
		err := p.skip()
		listSpan.End = p.i
		return err
	})
	if err != nil {
		return nil, &ConfigError{File: path, Err: err}
	}
	top.End = p.i
	var existing []EntrySpan
	if found {
		q := &locator{b: p.b, i: listSpan.Start}
		if err := q.entries(list, &existing); err != nil {
			return nil, &ConfigError{File: path, Err: err}
		}
	}
	indent := "    "
	for _, e := range existing {
		if e.Name != name {
			continue
		}
		if !replace {
			return nil, &ConfigError{File: path, Server: name, Err: ErrServerExists}
		}
		return ApplyEdits(data, []Edit{{e.Value, marshalEntry(entry, lineIndent(data, e.Value.Start))}}), nil
	}
	member := func(indent string) string {
		return jsonText(name) + ": " + marshalEntry(entry, indent)
	}
	switch {
	case len(existing) > 0:
		last := existing[len(existing)-1]
		indent = lineIndent(data, last.Value.Start)
		at := last.Value.End
		return ApplyEdits(data, []Edit{{Span{at, at}, ",\n" + indent + member(indent)}}), nil
	case found:
		outer := lineIndent(data, listSpan.Start)
		indent = outer + "  "
		at := listSpan.Start + 1
		inner := bytes.TrimSpace(p.b[at : listSpan.End-1])
		if len(inner) > 0 { // members that are not server objects: keep them after
			return ApplyEdits(data, []Edit{{Span{at, at}, "\n" + indent + member(indent) + ","}}), nil
		}
		return ApplyEdits(data, []Edit{{Span{at, listSpan.End - 1}, "\n" + indent + member(indent) + "\n" + outer}}), nil
	default:
		at := top.Start + 1
		rest := bytes.TrimSpace(p.b[at : top.End-1])
		text := "\n  " + jsonText(list) + ": {\n    " + member("    ") + "\n  }"
		if len(rest) > 0 {
			text += ","
		} else {
			return ApplyEdits(data, []Edit{{Span{at, top.End - 1}, text + "\n"}}), nil
		}
		return ApplyEdits(data, []Edit{{Span{at, at}, text}}), nil
	}
}

// marshalEntry is entry as indented JSON whose continuation lines start with
// indent.
func marshalEntry(entry any, indent string) string {
	b, err := json.MarshalIndent(entry, indent, "  ")
	if err != nil {
		panic(fmt.Sprintf("upstream: a server entry that does not marshal: %v", err))
	}
	return string(b)
}

// lineIndent is the blanks that begin the line holding offset at.
func lineIndent(data []byte, at int) string {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	line := data[start:at]
	n := len(line) - len(bytes.TrimLeft(line, " \t"))
	return strings.Clone(string(line[:n]))
}
