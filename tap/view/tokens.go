package view

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/llm/tokens"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// ToolList is what a server listed: the latest tools/list answer of a session,
// all its pages, shared by every session that listed the same tools.
type ToolList struct {
	// Server names the server as its initialize answer did ("" when the
	// capture lacks it).
	Server string `json:"server,omitempty"`
	// Sessions are the sessions whose latest list this is.
	Sessions []string `json:"sessions"`
	// Entries are the tools/list entries (pages) of the first of them.
	Entries []string `json:"entries"`
	// Tools are the tools, in the order listed.
	Tools []protocol.Tool `json:"-"`
	// name is the server's name alone (DuplicatesOf).
	name string
}

// ToolsVersion changes whenever a tools/list answer arrives: the seq of the
// newest one.
func ToolsVersion(snap *timeline.Snapshot) string {
	tools, _ := versions(snap)
	return tools
}

// ToolListsOf returns the tool lists of snap: per session the latest complete
// tools/list answer (a request without a cursor starts a list, its pages follow
// with cursors), sessions that listed the same tools together.
func ToolListsOf(snap *timeline.Snapshot) []ToolList {
	type list struct {
		entries []string
		tools   []protocol.Tool
	}
	cur := map[string]*list{}
	server, name := map[string]string{}, map[string]string{}
	var order []string
	for _, e := range snap.Entries {
		if e.Kind != timeline.KindRequest || e.ServerRequest || e.Response == nil || e.Error {
			continue
		}
		switch e.Method {
		case "initialize":
			var r protocol.InitializeResult
			if json.Unmarshal(e.Response.Result, &r) == nil && r.ServerInfo.Name != "" {
				server[e.Session] = strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
				name[e.Session] = r.ServerInfo.Name
			}
		case "tools/list":
			var res protocol.ListToolsResult
			if json.Unmarshal(e.Response.Result, &res) != nil {
				continue
			}
			var params protocol.ListToolsParams
			_ = json.Unmarshal(e.Message.Params, &params) // no params: the first page
			l := cur[e.Session]
			if l == nil {
				order = append(order, e.Session)
			}
			if l == nil || params.Cursor == "" {
				l = &list{}
				cur[e.Session] = l
			}
			l.entries = append(l.entries, e.ID.String())
			l.tools = append(l.tools, res.Tools...)
		}
	}
	var out []ToolList
	byKey := map[string]int{}
	for _, s := range order {
		l := cur[s]
		key, err := json.Marshal(l.tools)
		if err != nil {
			continue
		}
		if i, ok := byKey[string(key)]; ok && out[i].Server == server[s] {
			out[i].Sessions = append(out[i].Sessions, s)
			continue
		}
		byKey[string(key)] = len(out)
		out = append(out, ToolList{Server: server[s], name: name[s], Sessions: []string{s}, Entries: l.entries, Tools: l.tools})
	}
	return out
}

// TokenPanel is what the servers' tool lists of a capture cost in a model's
// context, in one request format and encoding.
type TokenPanel struct {
	Format   tokens.Format   `json:"format"`
	Encoding tokens.Encoding `json:"encoding"`
	// Formats and Encodings are the choices a view offers.
	Formats   []tokens.Format   `json:"formats"`
	Encodings []tokens.Encoding `json:"encodings"`
	// Lists are the tool lists, each with its tools largest first.
	Lists []TokenList `json:"lists"`
	// Note says what is counted.
	Note string `json:"note"`
	// ToolsVersion is the Panel.ToolsVersion it was counted at.
	ToolsVersion string `json:"toolsVersion"`
}

// TokenList is one tool list's cost.
type TokenList struct {
	ToolList
	// Title names the list for a person: server, sessions, tools, total.
	Title string `json:"title"`
	// Total is the sum of Tools' tokens.
	Total int `json:"total"`
	// Counts are the tools, largest first.
	Counts []tokens.ToolCount `json:"tools"`
}

// TokensOf counts what snap's tool lists (ToolListsOf) cost as format's tool
// definitions in encoding enc (empty: the defaults). The first call loads the
// encoding's vocabulary (a fraction of a second): a view calls it off its event
// loop.
func TokensOf(snap *timeline.Snapshot, format tokens.Format, enc tokens.Encoding) (TokenPanel, error) {
	if format == "" {
		format = tokens.Formats[0]
	}
	if enc == "" {
		enc = tokens.Encodings[0]
	}
	if !slices.Contains(tokens.Formats, format) || !slices.Contains(tokens.Encodings, enc) {
		return TokenPanel{}, fmt.Errorf("token panel: format %q, encoding %q: want one of %v and %v", format, enc, tokens.Formats, tokens.Encodings)
	}
	p := TokenPanel{Format: format, Encoding: enc, Formats: tokens.Formats, Encodings: tokens.Encodings,
		Lists: []TokenList{}, Note: tokens.Note, ToolsVersion: ToolsVersion(snap)}
	lists := ToolListsOf(snap)
	if len(lists) == 0 {
		return p, nil
	}
	c, err := tokens.NewCounter(enc)
	if err != nil {
		return p, fmt.Errorf("token panel: %w", err)
	}
	for _, l := range lists {
		rep, err := c.Tools(l.Tools, format)
		if err != nil {
			return p, fmt.Errorf("token panel: %w", err)
		}
		name := l.Server
		if name == "" {
			name = "server"
		}
		title := fmt.Sprintf("%s (session %s): %d tools, %d tokens", name, strings.Join(l.Sessions, ", "), len(l.Tools), rep.Total)
		p.Lists = append(p.Lists, TokenList{ToolList: l, Title: title, Total: rep.Total, Counts: rep.Tools})
	}
	return p, nil
}
