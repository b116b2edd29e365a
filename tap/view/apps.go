package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// MaxAppHTML bounds the document of an app's view that the web page
// previews: a larger one is refused, not served.
const MaxAppHTML = 4 << 20

// AppView is an MCP App's view that the capture holds: a ui:// resource of
// type text/html;profile=mcp-app that a resources/read answer carried.
type AppView struct {
	// URI is the view's ui:// URI.
	URI string `json:"uri"`
	// Server names the server that answered (its initialize answer), Session
	// the session.
	Server  string `json:"server,omitempty"`
	Session string `json:"session"`
	// Entry is the resources/read entry whose answer holds the document (the
	// newest of the session).
	Entry string `json:"entry"`
	// Bytes is the document's size.
	Bytes int `json:"bytes"`
	// Tools are the tools of the session's latest tool list that link to it
	// (_meta.ui.resourceUri).
	Tools []string `json:"tools,omitempty"`
	// Declared are the domains the view's _meta.ui.csp asks for, as
	// "connectDomains https://api.example.com": shown, not granted by a preview.
	Declared []string `json:"declared,omitempty"`
}

// AppPreview is what the web page needs to preview an app's view statically:
// the view and, when it was asked for from a tools/call, the call's tool,
// arguments and result (what a host would send it as
// ui/notifications/tool-input and tool-result).
type AppPreview struct {
	View   AppView         `json:"view"`
	Tool   string          `json:"tool,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// viewContents returns the views an answered resources/read entry carries.
func viewContents(e *timeline.Entry) []*protocol.ResourceContents {
	if e.Kind != timeline.KindRequest || e.ServerRequest || e.Method != "resources/read" || e.Response == nil || e.Error {
		return nil
	}
	var res protocol.ReadResourceResult
	if json.Unmarshal(e.Response.Result, &res) != nil {
		return nil
	}
	var out []*protocol.ResourceContents
	for _, c := range res.Contents {
		if apps.IsView(c) {
			out = append(out, c)
		}
	}
	return out
}

// AppDocument returns the document of the view uri that entry e (a
// resources/read) holds, and the domains its _meta.ui.csp declares.
func AppDocument(e *timeline.Entry, uri string) (string, *apps.CSP, error) {
	for _, c := range viewContents(e) {
		if c.URI != uri {
			continue
		}
		doc := c.Text
		if c.Blob != nil {
			doc = string(c.Blob)
		}
		if len(doc) > MaxAppHTML {
			return "", nil, fmt.Errorf("the view %s has %d bytes, more than the %d a preview takes", uri, len(doc), MaxAppHTML)
		}
		return doc, resourceCSP(c), nil
	}
	return "", nil, errors.New("the entry holds no view " + strconv.Quote(uri))
}

// resourceCSP reads contents' _meta.ui.csp (nil when absent or malformed).
func resourceCSP(c *protocol.ResourceContents) *apps.CSP {
	ui, ok := c.Meta["ui"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(ui)
	if err != nil {
		return nil
	}
	var m apps.ResourceMeta
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m.CSP
}

// declared lists the domains csp asks for, each after its directive's name.
func declared(csp *apps.CSP) []string {
	if csp == nil {
		return nil
	}
	var out []string
	for _, d := range []struct {
		name string
		list []string
	}{{"connectDomains", csp.ConnectDomains}, {"resourceDomains", csp.ResourceDomains},
		{"frameDomains", csp.FrameDomains}, {"baseUriDomains", csp.BaseURIDomains}} {
		for _, v := range d.list {
			out = append(out, d.name+" "+v)
		}
	}
	return out
}

// AppsOf returns the views snap holds: per session and URI the newest
// resources/read answer that carried it, with the tools that link to it.
func AppsOf(snap *timeline.Snapshot) []AppView {
	type key struct{ session, uri string }
	found := map[key]int{}
	out := []AppView{}
	for _, e := range snap.Entries {
		if !strings.HasPrefix(e.Target, apps.URIScheme) {
			continue // no view read: not decoded
		}
		for _, c := range viewContents(e) {
			v := viewOf(e, c)
			if i, ok := found[key{e.Session, c.URI}]; ok {
				out[i] = v
				continue
			}
			found[key{e.Session, c.URI}] = len(out)
			out = append(out, v)
		}
	}
	if len(out) > 0 {
		lists := ToolListsOf(snap)
		for i := range out {
			linkTools(&out[i], lists)
		}
	}
	return out
}

// viewOf describes the view c that entry e read.
func viewOf(e *timeline.Entry, c *protocol.ResourceContents) AppView {
	return AppView{URI: c.URI, Session: e.Session, Entry: e.ID.String(), Bytes: len(c.Text) + len(c.Blob),
		Declared: declared(resourceCSP(c))}
}

// linkTools names v's server and the tools of its session's latest list
// that link to it.
func linkTools(v *AppView, lists []ToolList) {
	for _, l := range lists {
		if !slices.Contains(l.Sessions, v.Session) {
			continue
		}
		v.Server = l.Server
		for _, t := range l.Tools {
			if apps.ToolView(&t) == v.URI {
				v.Tools = append(v.Tools, t.Name)
			}
		}
	}
}

// PreviewOf returns what previews the view of entry e: a resources/read
// answer that carried a view (its first), or a tools/call of a tool linked to a
// view the capture read (the newest read of the call's session, else of
// another session of the same server), with the call's arguments and result.
// Other entries are answered at once, without a look at the rest of snap.
func PreviewOf(snap *timeline.Snapshot, e *timeline.Entry) (*AppPreview, bool) {
	if c := viewContents(e); len(c) > 0 {
		v := viewOf(e, c[0])
		linkTools(&v, ToolListsOf(snap))
		return &AppPreview{View: v}, true
	}
	if e.Kind != timeline.KindRequest || e.ServerRequest || e.Method != "tools/call" {
		return nil, false
	}
	// The tool as the session's latest list has it, else any list of the
	// server.
	lists := ToolListsOf(snap)
	uri, name := "", ""
	for _, l := range lists {
		in := slices.Contains(l.Sessions, e.Session)
		if uri != "" && !in {
			continue
		}
		for _, t := range l.Tools {
			if t.Name == e.Target {
				if u := apps.ToolView(&t); u != "" {
					uri, name = u, l.name
				}
			}
		}
		if in && uri != "" {
			break
		}
	}
	if uri == "" {
		return nil, false
	}
	sameServer := map[string]bool{}
	for _, l := range lists {
		if name != "" && l.name == name {
			for _, s := range l.Sessions {
				sameServer[s] = true
			}
		}
	}
	// The newest read of the view: of the session first.
	var pick *timeline.Entry
	var contents *protocol.ResourceContents
	for i := len(snap.Entries) - 1; i >= 0; i-- {
		r := snap.Entries[i]
		if r.Target != uri || (r.Session != e.Session && (pick != nil || !sameServer[r.Session])) {
			continue
		}
		for _, c := range viewContents(r) {
			if c.URI == uri {
				pick, contents = r, c
				break
			}
		}
		if pick != nil && pick.Session == e.Session {
			break
		}
	}
	if pick == nil {
		return nil, false
	}
	v := viewOf(pick, contents)
	linkTools(&v, lists)
	p := &AppPreview{View: v, Tool: e.Target}
	var params struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if e.Message != nil && json.Unmarshal(e.Message.Params, &params) == nil && len(params.Arguments) > 0 {
		p.Input = params.Arguments
	}
	if e.Response != nil && e.Response.Error == nil {
		p.Result = e.Response.Result
	}
	return p, true
}

// DuplicateTool is a tool name that more than one server lists (or one server
// lists twice): a host that connects to them all sees two tools of one name.
type DuplicateTool struct {
	Name string `json:"name"`
	// Servers name the servers that list it, in the order first seen (one
	// server named twice when it lists the name twice).
	Servers []string `json:"servers"`
	// Entries are their tools/list entries (the first page of each list).
	Entries []string `json:"entries"`
	// Text says it for a person.
	Text string `json:"text"`
}

// DuplicatesOf returns the tool names listed by more than one server of snap,
// or twice by one. A server is what a session's initialize answer names
// (serverInfo.name; its version aside, so that a restart on a newer version
// is the same server): every session of one server lists the same tools, so
// sessions count once per server. A session whose initialize the capture
// lacks is a server of its own, named by its session.
func DuplicatesOf(snap *timeline.Snapshot) []DuplicateTool {
	type lister struct{ server, entry string }
	by := map[string][]lister{}
	var names []string
	// One list per server: its sessions' latest (sessions come in the order
	// they began, so a later one replaces an earlier one's).
	var servers []string
	lists := map[string]ToolList{}
	for _, l := range ToolListsOf(snap) {
		server := l.name
		if server == "" {
			server = "the server of session " + strings.Join(l.Sessions, ", ")
		}
		if _, ok := lists[server]; !ok {
			servers = append(servers, server)
		}
		lists[server] = l
	}
	for _, server := range servers {
		l := lists[server]
		entry := ""
		if len(l.Entries) > 0 {
			entry = l.Entries[0]
		}
		for _, t := range l.Tools {
			if by[t.Name] == nil {
				names = append(names, t.Name)
			}
			by[t.Name] = append(by[t.Name], lister{server, entry})
		}
	}
	out := []DuplicateTool{}
	for _, n := range names {
		ls := by[n]
		if len(ls) < 2 {
			continue
		}
		d := DuplicateTool{Name: n}
		for _, l := range ls {
			d.Servers = append(d.Servers, l.server)
			if !slices.Contains(d.Entries, l.entry) {
				d.Entries = append(d.Entries, l.entry)
			}
		}
		if len(d.Entries) == 1 {
			d.Text = fmt.Sprintf("%q is listed %d times by %s", n, len(ls), d.Servers[0])
		} else {
			d.Text = fmt.Sprintf("%q is listed by %s", n, strings.Join(d.Servers, " and "))
		}
		out = append(out, d)
	}
	return out
}

// Catalog is what the servers of a capture offer as the views show it: the
// duplicate tool names and the MCP App views.
type Catalog struct {
	// Version is the Panel's CatalogVersion it was made at.
	Version    string          `json:"version"`
	Duplicates []DuplicateTool `json:"duplicates"`
	Apps       []AppView       `json:"apps"`
}

// CatalogOf returns snap's catalog.
func CatalogOf(snap *timeline.Snapshot) Catalog {
	return Catalog{Version: CatalogVersion(snap), Duplicates: DuplicatesOf(snap), Apps: AppsOf(snap)}
}

// CatalogVersion changes whenever an answer the catalog reads arrives
// (initialize, tools/list, a resources/read of a ui:// URI): the seq of the
// newest one.
func CatalogVersion(snap *timeline.Snapshot) string {
	_, catalog := versions(snap)
	return catalog
}

// versions returns ToolsVersion and CatalogVersion in one pass.
func versions(snap *timeline.Snapshot) (tools, catalog string) {
	var newestTools, newest uint64
	for _, e := range snap.Entries {
		if e.Response == nil {
			continue
		}
		seq := e.Response.Record.Seq
		switch {
		case e.Method == "tools/list":
			newestTools = max(newestTools, seq)
			newest = max(newest, seq)
		case e.Method == "initialize", e.Method == "resources/read" && strings.HasPrefix(e.Target, apps.URIScheme):
			newest = max(newest, seq)
		}
	}
	return strconv.FormatUint(newestTools, 10), strconv.FormatUint(newest, 10)
}
