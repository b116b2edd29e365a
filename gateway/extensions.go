package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"strings"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file carries the servers' extensions (SEP-2133) through the gateway:
// the union of their declarations, declared on the gateway's server with
// mcp.Server.AddExtension; the custom methods of the extensions it knows,
// forwarded to the servers that declared them; and the MCP Apps links
// between a tool and its ui:// view, kept when a view's URI is namespaced.

// ExtensionMethods lists, by extension identifier, the custom request methods
// the gateway forwards to the servers that declare the extension. The
// gateway's own table covers Skills; Options.ExtensionMethods adds others.
var ExtensionMethods = map[string][]string{
	skills.Extension: {skills.MethodList, skills.MethodGet, skills.MethodDirectoryRead},
}

// upstreamExtensions is what the gateway declares to its servers as a
// client: it renders nothing itself, but its clients may, so the servers must
// not hide their views and app tools from it (apps.Middleware does, for a
// client without the extension).
func upstreamExtensions() map[string]map[string]any {
	return map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()}
}

// extensionState is what the gateway declared last: by extension, its
// settings and the servers that declare it (sorted).
type extensionState struct {
	settings map[string]map[string]any
	servers  map[string][]string
	methods  map[string]string // forwarded method → its extension
}

// applyExtensions declares the union of the servers' extensions on the
// gateway's server (the first server's settings, by name, when several
// declare one) and registers the forwarding of their known methods. Called
// under syncMu.
func (g *Gateway) applyExtensions(names []string) {
	next := &extensionState{settings: map[string]map[string]any{}, servers: map[string][]string{}, methods: map[string]string{}}
	for _, n := range names {
		for id, s := range g.upServers()[n].extensions {
			if id == protocol.ExtensionTasks {
				continue // the gateway declares tasks itself (tasks.go)
			}
			if _, ok := next.settings[id]; !ok {
				next.settings[id] = s
			}
			next.servers[id] = append(next.servers[id], n)
		}
	}
	for id := range next.servers {
		for _, m := range g.extMethods[id] {
			if _, taken := next.methods[m]; !taken {
				next.methods[m] = id
			}
		}
	}
	prev := g.ext.Load()
	if prev == nil {
		prev = &extensionState{}
	}
	for id, s := range next.settings {
		if old, ok := prev.settings[id]; !ok || !reflect.DeepEqual(old, s) {
			g.srv.AddExtension(id, s)
		}
	}
	for id := range prev.settings {
		if _, ok := next.settings[id]; !ok {
			g.srv.RemoveExtension(id)
		}
	}
	for m := range next.methods {
		if _, ok := prev.methods[m]; !ok {
			mcp.AddRequestHandler(g.srv, m, g.forwardMethod(m), nil)
		}
	}
	for m := range prev.methods {
		if _, ok := next.methods[m]; !ok {
			g.srv.RemoveMethod(m)
		}
	}
	g.ext.Store(next)
}

// errNoExtensionServer answers a forwarded method no server declares now.
var errNoExtensionServer = errors.New("gateway: no server declares this method's extension now")

// forwardMethod forwards a custom method of an extension. With one server
// declaring the extension, its answer is the answer. With several, a list
// method (…/list) gets every server's items, concatenated; any other goes to
// each server in name order until one answers without an error.
func (g *Gateway) forwardMethod(method string) func(context.Context, *mcp.Request, *json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, req *mcp.Request, params *json.RawMessage) (json.RawMessage, error) {
		st := g.ext.Load()
		var servers []string
		if st != nil {
			servers = st.servers[st.methods[method]]
		}
		if len(servers) == 0 {
			return nil, errNoExtensionServer
		}
		var p any
		if params != nil && len(*params) > 0 {
			p = *params
		}
		list := strings.HasSuffix(method, "/list") && len(servers) > 1
		var answers []json.RawMessage
		var errs []error
		for _, name := range servers {
			u := g.upServers()[name]
			if u == nil {
				continue // removed by a reload since
			}
			raw, err := g.callServer(ctx, u, req, method, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("server %q: %w", name, err))
				continue
			}
			if !list {
				return raw, nil
			}
			answers = append(answers, raw)
		}
		if len(answers) == 0 {
			if len(errs) == 1 {
				var rpcErr *jsonrpc.Error
				if errors.As(errs[0], &rpcErr) {
					return nil, rpcErr // the one server's error, as it sent it
				}
			}
			return nil, errors.Join(errs...)
		}
		return mergeLists(answers)
	}
}

// callServer sends one custom request to u, as begin/end track calls.
func (g *Gateway) callServer(ctx context.Context, u *upServer, req *mcp.Request, method string, params any) (json.RawMessage, error) {
	c, err := g.begin(ctx, u, req, method, "")
	if err != nil {
		return nil, err
	}
	defer c.end()
	var raw json.RawMessage
	if err := c.cs.Call(c.context(), method, params, &raw, c.opts...); err != nil {
		return nil, u.cutOff(ctx, err)
	}
	return raw, nil
}

// mergeLists joins the answers of several servers to a list method: the
// arrays under the same key are concatenated; the first answer's other
// members are kept, except nextCursor (pages are not merged: each server's
// first page).
func mergeLists(answers []json.RawMessage) (json.RawMessage, error) {
	out := map[string]any{}
	for i, a := range answers {
		var m map[string]any
		if err := json.Unmarshal(a, &m); err != nil {
			return nil, fmt.Errorf("gateway: a server's answer is not a JSON object: %w", err)
		}
		for k, v := range m {
			arr, isArr := v.([]any)
			switch prev, had := out[k]; {
			case isArr && had:
				if p, ok := prev.([]any); ok {
					out[k] = append(p, arr...)
				}
			case !had && (i == 0 || isArr):
				out[k] = v
			}
		}
	}
	delete(out, "nextCursor")
	return json.Marshal(out)
}

// uiURI returns the gateway's URI for a server's ui:// view that another
// server also lists: still a ui:// URI, which hosts require of a view, under
// a host part naming the gateway and the server,
//
//	ui://mcpkit-gateway/<server, percent-encoded>/<the rest of the URI>
//
// e.g. ui://temperature/chart.html of server "a" is
// ui://mcpkit-gateway/a/temperature/chart.html.
func uiURI(server, uri string) string {
	return apps.URIScheme + URIScheme + "/" + url.PathEscape(server) + "/" + strings.TrimPrefix(uri, apps.URIScheme)
}

// namespacedResource returns the gateway's URI of a server's resource that
// must be namespaced: a ui:// view stays a ui:// URI (uiURI).
func namespacedResource(server, uri string) string {
	if strings.HasPrefix(uri, apps.URIScheme) {
		return uiURI(server, uri)
	}
	return namespacedURI(server, uri)
}

// linkView gives a tool's _meta the gateway's URI of its view, when the
// gateway renamed it (in _meta.ui.resourceUri and the older flat
// "ui/resourceUri"). The server's _meta is not changed: a changed one is a
// copy.
func (u *upServer) linkView(t *protocol.Tool) {
	ui, _ := t.Meta["ui"].(map[string]any)
	cur, _ := ui["resourceUri"].(string)
	flat, _ := t.Meta[apps.LegacyResourceURIKey].(string)
	nu, nflat := u.gatewayURI(cur), u.gatewayURI(flat)
	if nu == cur && nflat == flat {
		return
	}
	meta := maps.Clone(t.Meta)
	if cur != "" {
		ui = maps.Clone(ui)
		ui["resourceUri"] = nu
		meta["ui"] = ui
	}
	if flat != "" {
		meta[apps.LegacyResourceURIKey] = nflat
	}
	t.Meta = meta
}

// Naming says how the gateway names its servers' tools and prompts.
type Naming uint8

// The naming modes.
const (
	// NamingPrefixed names every tool and prompt "<server>__<name>"
	// (llm.ToolNames), so a name never changes when another server comes or
	// goes. A call of a tool by its server's own name, when exactly one
	// server has a tool of that name (an MCP App's view calling its own
	// tool), is still routed to that server.
	NamingPrefixed Naming = iota
	// NamingBare keeps a tool's or prompt's own name when no other server
	// has one of that name (and it is a valid model name), and prefixes the
	// others.
	NamingBare
)

// ParseNaming reads "prefixed" or "bare".
func ParseNaming(s string) (Naming, error) {
	switch s {
	case "prefixed":
		return NamingPrefixed, nil
	case "bare":
		return NamingBare, nil
	}
	return 0, fmt.Errorf("gateway: naming %q: want prefixed or bare", s)
}

// setAliases records, for tools/call, the servers' own tool names that
// exactly one server has and that the gateway offers under another name.
// Called under syncMu.
func (g *Gateway) setAliases(tools []named[protocol.Tool]) {
	count := map[string]int{}
	for _, t := range tools {
		count[t.original]++
	}
	offered := make(map[string]bool, len(tools))
	for _, t := range tools {
		offered[t.name] = true
	}
	aliases := map[string]string{}
	for _, t := range tools {
		if count[t.original] == 1 && t.name != t.original && !offered[t.original] {
			aliases[t.original] = t.name
		}
	}
	if len(aliases) == 0 {
		aliases = nil
	}
	g.aliases.Store(&aliases)
}

// aliasCall rewrites a tools/call of a server's own tool name to the
// gateway's name for it; it returns false when the name is not an alias. The
// name is found without decoding the params (no allocation when it is not an
// alias).
func (g *Gateway) aliasCall(call *mcp.Call) bool {
	p := g.aliases.Load()
	if p == nil || len(*p) == 0 {
		return false
	}
	var raw []byte
	jsonscan.EachMember(call.Params, func(key []byte, escaped bool, value []byte) bool {
		if !escaped && string(key) == "name" {
			raw = value
			return false
		}
		return true
	})
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return false // no name, or one with escapes: never an alias (model-valid names are plain)
	}
	to, ok := (*p)[string(raw[1:len(raw)-1])]
	if !ok {
		return false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(call.Params, &params) != nil {
		return false
	}
	params["name"], _ = json.Marshal(to)
	out, err := json.Marshal(params)
	if err != nil {
		return false
	}
	call.Params = out
	return true
}
