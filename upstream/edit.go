package upstream

import (
	"encoding/json"
	"io/fs"
	"slices"
	"sort"

	"github.com/mcpkit/mcpkit/internal/safefile"
)

// Editing a configuration file in place (`mcpkit tap install`): LocateServers
// says where each entry is written; the methods below make the edits that
// point an entry elsewhere, keeping the rest of the file (comments, formatting,
// other members) as it is; WriteConfig replaces the file safely.

// Edit replaces the bytes of Span with Text.
type Edit struct {
	Span Span
	Text string
}

// ApplyEdits returns a copy of data with the edits made. Their spans must not
// overlap.
func ApplyEdits(data []byte, edits []Edit) []byte {
	edits = slices.Clone(edits)
	sort.Slice(edits, func(i, j int) bool { return edits[i].Span.Start > edits[j].Span.Start })
	out := slices.Clone(data)
	for _, e := range edits {
		out = slices.Concat(out[:e.Span.Start], []byte(e.Text), out[e.Span.End:])
	}
	return out
}

// Launch returns what the entry runs: its command and args (a stdio server),
// or its url (serverUrl in Windsurf's files). Members that are missing or of
// the wrong type are left empty.
func (e *EntrySpan) Launch() (command string, args []string, rawURL string) {
	value := func(member string, v any) bool {
		raw, ok := e.Values[member]
		return ok && json.Unmarshal(raw, v) == nil
	}
	value("command", &command)
	value("args", &args)
	if !value("url", &rawURL) {
		value("serverUrl", &rawURL)
	}
	return command, args, rawURL
}

// CommandEdits returns the edits that make the entry run command with args:
// its command replaced, and its args replaced or, when it has none, added
// after the command. The entry must have a command.
func (e *EntrySpan) CommandEdits(command string, args []string) []Edit {
	edits := []Edit{{e.Members["command"], jsonText(command)}}
	if s, ok := e.Members["args"]; ok {
		return append(edits, Edit{s, jsonText(args)})
	}
	at := e.Members["command"].End
	return append(edits, Edit{Span{Start: at, End: at}, `, "args": ` + jsonText(args)})
}

// URLEdit returns the edit that points the entry at rawURL: its url member
// (or serverUrl) replaced. The entry must have one.
func (e *EntrySpan) URLEdit(rawURL string) Edit {
	key := "url"
	if _, ok := e.Members["url"]; !ok {
		key = "serverUrl"
	}
	return Edit{e.Members[key], jsonText(rawURL)}
}

// Edited returns the entry's text (data[e.Value]) with edits, made to data,
// applied: how the entry reads after ApplyEdits(data, edits).
func (e *EntrySpan) Edited(data []byte, edits []Edit) string {
	local := make([]Edit, len(edits))
	for i, ed := range edits {
		local[i] = Edit{Span{Start: ed.Span.Start - e.Value.Start, End: ed.Span.End - e.Value.Start}, ed.Text}
	}
	return string(ApplyEdits(data[e.Value.Start:e.Value.End], local))
}

// jsonText is v in JSON.
func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// WriteConfig replaces the configuration file at path with data, atomically
// and without following a symlink planted where a temporary file goes: a new
// file with a random name is created exclusively beside the file, synced and
// renamed over it. A configuration that is a symlink (dotfiles) stays one: the
// file it points to is replaced. The file keeps its permissions (0600 when new).
func WriteConfig(path string, data []byte) error {
	return safefile.Replace(path, data, 0o600)
}

// WriteBeside writes a file of the editing program's own kept beside a
// configuration (a backup, a record of the edit), with permissions 0600: a
// symlink at path is replaced, never written through.
func WriteBeside(path string, data []byte) error {
	return safefile.WriteOwn(path, data, fs.FileMode(0o600))
}

// ReadBeside reads a file written by WriteBeside, refusing a symlink (planted
// in its place, it would make the program read what it points to).
func ReadBeside(path string) ([]byte, error) {
	return safefile.ReadOwn(path)
}
