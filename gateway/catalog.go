package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/upstream"
)

// upServer is the gateway's side of one configured server: what it offers (as
// last fetched) and the gateway's calls to it now in flight.
type upServer struct {
	name string
	cfg  *upstream.ServerConfig

	// Written and read under Gateway.syncMu.
	tools       []protocol.Tool
	prompts     []protocol.Prompt
	resources   []protocol.Resource
	templates   []protocol.ResourceTemplate
	completions bool
	extensions  map[string]map[string]any // the extensions the server declares
	setUp       *mcp.ClientSession        // the session the log level and subscriptions were sent on

	instr   atomic.Pointer[string]
	renames atomic.Pointer[uriRenames]

	mu    sync.Mutex
	calls []*inflight
	seq   uint64
	list  listTrouble // why fetching the lists failed, and when it is tried again
}

// listTrouble is the failure to fetch a server's lists (a tools/list answer
// over the size limit, say) while its session is up: the server is then
// "degraded" in the status, with the reason, and the lists are fetched again
// with the supervisor's backoff until they come.
type listTrouble struct {
	err      string      // redacted; "" when the last fetch succeeded
	failures int         // in a row
	next     time.Time   // the next attempt
	timer    *time.Timer // that marks the server dirty at next
}

func (u *upServer) instructions() string {
	if p := u.instr.Load(); p != nil {
		return *p
	}
	return ""
}

// listTimeout bounds the fetching of one server's lists.
const listTimeout = 30 * time.Second

// refresh fetches the lists of a connected server. A server that is not
// connected keeps the lists it had: its tools stay listed while it restarts,
// and calls to them fail at once saying why.
func (g *Gateway) refresh(ctx context.Context, u *upServer) error {
	if st, _ := g.sup.Status(u.name); st.State != upstream.StateReady {
		return nil
	}
	timeout := listTimeout
	if u.cfg.Timeout > 0 {
		timeout = u.cfg.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, err := g.sup.Session(ctx, u.name)
	if err != nil {
		return err
	}
	init := cs.InitializeResult()
	caps := init.Capabilities
	var tools []protocol.Tool
	var prompts []protocol.Prompt
	var resources []protocol.Resource
	var templates []protocol.ResourceTemplate
	if caps.Tools != nil {
		if tools, err = collect(cs.Tools(ctx)); err != nil {
			return fmt.Errorf("server %q: tools/list: %w", u.name, err)
		}
		tools = slices.DeleteFunc(tools, func(t protocol.Tool) bool { return !u.cfg.ToolAllowed(t.Name) })
	}
	if caps.Prompts != nil {
		if prompts, err = collect(cs.Prompts(ctx)); err != nil {
			return fmt.Errorf("server %q: prompts/list: %w", u.name, err)
		}
	}
	if caps.Resources != nil {
		if resources, err = collect(cs.Resources(ctx)); err != nil {
			return fmt.Errorf("server %q: resources/list: %w", u.name, err)
		}
		if templates, err = collect(cs.ResourceTemplates(ctx)); err != nil {
			return fmt.Errorf("server %q: resources/templates/list: %w", u.name, err)
		}
	}
	u.tools, u.prompts, u.resources, u.templates = tools, prompts, resources, templates
	u.completions = caps.Completions != nil
	u.extensions = caps.Extensions
	instr := init.Instructions
	u.instr.Store(&instr)
	if u.setUp != cs {
		u.setUp = cs
		g.setUpSession(ctx, u, cs)
	}
	return nil
}

// setUpSession gives a new session what the gateway's clients asked for
// earlier: the log level and the resource subscriptions.
func (g *Gateway) setUpSession(ctx context.Context, u *upServer, cs *mcp.ClientSession) {
	g.mu.Lock()
	level := g.logLevel
	g.mu.Unlock()
	if level != "" {
		if err := cs.SetLogLevel(ctx, level); err != nil {
			g.log.Debug("gateway: logging/setLevel", "server", u.name, "error", err)
		}
	}
	g.resubscribe(ctx, u, cs)
}

// collect gathers every item of a paginated list.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// registration is one feature registered on the gateway's server.
type registration struct {
	kind string // "tool", "prompt", "resource", "template"
	name string // its name, URI or template on the gateway
	fp   string // what it was registered as: a change means registering again
}

// wanted is a feature the servers' lists call for.
type wanted struct {
	registration
	entry Entry
	add   func() error
}

// apply registers what the servers offer, under the gateway's names, and
// unregisters what they no longer offer; connected clients hear one
// list_changed per kind of list that changed.
func (g *Gateway) apply() {
	names := sortedServerNames(g.upServers())
	var want []wanted
	// Resources first: their renames are what the tools' views link to.
	want = append(want, g.wantResources(names)...)
	want = append(want, g.wantTools(names)...)
	want = append(want, g.wantPrompts(names)...)
	g.applyExtensions(names)

	keep := make(map[string]bool, len(want))
	entries := make([]Entry, 0, len(want))
	g.srv.Batch(func() {
		for _, w := range want {
			key := w.kind + "\x00" + w.name
			keep[key] = true
			if old, ok := g.registered[key]; ok && old.fp == w.fp {
				entries = append(entries, w.entry)
				continue
			}
			if err := w.add(); err != nil {
				g.log.Warn("gateway: cannot offer", "kind", w.kind, "name", w.entry.Original, "server", w.entry.Server, "error", err)
				delete(g.registered, key)
				continue
			}
			g.registered[key] = w.registration
			entries = append(entries, w.entry)
		}
		for key, r := range g.registered {
			if keep[key] {
				continue
			}
			switch r.kind {
			case "tool":
				g.srv.RemoveTools(r.name)
			case "prompt":
				g.srv.RemovePrompts(r.name)
			default:
				g.srv.RemoveResources(r.name)
			}
			delete(g.registered, key)
		}
	})
	slices.SortFunc(entries, func(a, b Entry) int {
		if a.Kind != b.Kind {
			return kindOrder(a.Kind) - kindOrder(b.Kind)
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	g.entries.Store(&entries)
}

func kindOrder(kind string) int {
	return slices.Index([]string{"tool", "prompt", "resource", "template"}, kind)
}

// fingerprint identifies what a feature is registered as.
func fingerprint(server, original string, v any, extra ...string) string {
	b, _ := json.Marshal(v) // protocol types: cannot fail
	fp := server + "\x00" + original + "\x00" + string(b)
	for _, e := range extra {
		fp += "\x00" + e
	}
	return fp
}

// named is one item of a server's list with its name on the gateway.
type named[T any] struct {
	u        *upServer
	item     T
	original string
	name     string
}

// nameAll gives every item of every server's list (items picks the list, name
// the item's name) its name on the gateway, in server then list order. A
// server that lists a name twice has the first one counted.
func nameAll[T any](g *Gateway, names []string, items func(*upServer) []T, name func(T) string) []named[T] {
	var refs []llm.ToolRef
	for _, n := range names {
		for _, it := range items(g.upServers()[n]) {
			refs = append(refs, llm.ToolRef{Server: n, Name: name(it)})
		}
	}
	assigned := llm.ToolNames(refs)
	if g.naming == NamingBare {
		bareNames(refs, assigned)
	}
	var out []named[T]
	for _, n := range names {
		u := g.upServers()[n]
		seen := map[string]bool{}
		for _, it := range items(u) {
			original := name(it)
			if !seen[original] {
				seen[original] = true
				out = append(out, named[T]{u, it, original, assigned[llm.ToolRef{Server: n, Name: original}]})
			}
		}
	}
	return out
}

// bareNames gives back their own names to the refs no other server shares
// (NamingBare), when valid for models and not the prefixed name of another.
func bareNames(refs []llm.ToolRef, assigned map[llm.ToolRef]string) {
	servers := map[string]map[string]bool{}
	for _, r := range refs {
		if servers[r.Name] == nil {
			servers[r.Name] = map[string]bool{}
		}
		servers[r.Name][r.Server] = true
	}
	bare := func(r llm.ToolRef) bool { return len(servers[r.Name]) == 1 && llm.ValidToolName(r.Name) }
	prefixed := map[string]bool{}
	for _, r := range refs {
		if !bare(r) {
			prefixed[assigned[r]] = true
		}
	}
	for _, r := range refs {
		if bare(r) && !prefixed[r.Name] {
			assigned[r] = r.Name
		}
	}
}

// wantTools names every server's tools and says how to register them.
func (g *Gateway) wantTools(names []string) []wanted {
	var out []wanted
	all := nameAll(g, names, func(u *upServer) []protocol.Tool { return u.tools }, func(t protocol.Tool) string { return t.Name })
	g.setAliases(all)
	for _, t := range all {
		u, original, tool := t.u, t.original, t.item
		tool.Name = t.name
		u.linkView(&tool)                              // after wantResources: its view's URI on the gateway
		tool.Execution = taskSupport(u.setUp, &t.item) // see tasks.go
		out = append(out, wanted{
			registration: registration{kind: "tool", name: tool.Name, fp: fingerprint(u.name, original, &tool)},
			entry:        Entry{Kind: "tool", Name: tool.Name, Server: u.name, Original: original},
			add: func() error {
				// The schema is the server's, advertised as it is; the server
				// checks the arguments itself.
				return g.srv.AddForwardedTool(&tool, g.toolHandler(u, original))
			},
		})
	}
	return out
}

// wantPrompts names every server's prompts and says how to register them.
func (g *Gateway) wantPrompts(names []string) []wanted {
	var out []wanted
	for _, p := range nameAll(g, names, func(u *upServer) []protocol.Prompt { return u.prompts }, func(p protocol.Prompt) string { return p.Name }) {
		u, original, prompt := p.u, p.original, p.item
		prompt.Name = p.name
		completions := u.completions
		out = append(out, wanted{
			registration: registration{kind: "prompt", name: prompt.Name, fp: fingerprint(u.name, original, &prompt, fmt.Sprint(completions))},
			entry:        Entry{Kind: "prompt", Name: prompt.Name, Server: u.name, Original: original},
			add: func() error {
				if err := g.srv.AddPrompt(&prompt, g.promptHandler(u, original)); err != nil {
					return err
				}
				if completions {
					for _, a := range prompt.Arguments {
						g.srv.AddPromptCompletion(prompt.Name, a.Name, g.completer(u, protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: original}))
					}
				}
				return nil
			},
		})
	}
	return out
}

// wantResources gives every server's resources and templates their URIs on
// the gateway (see URIScheme) and says how to register them.
func (g *Gateway) wantResources(names []string) []wanted {
	claims := map[string]int{}
	tclaims := map[string]int{}
	for _, n := range names {
		u := g.upServers()[n]
		seen := map[string]bool{}
		for _, r := range u.resources {
			if !seen[r.URI] {
				seen[r.URI] = true
				claims[r.URI]++
			}
		}
		for _, t := range u.templates {
			if !seen["\x00"+t.URITemplate] {
				seen["\x00"+t.URITemplate] = true
				tclaims[t.URITemplate]++
			}
		}
	}
	shared := func(uri string, n int) bool { return n > 1 || strings.HasPrefix(uri, schemePrefix) }
	var out []wanted
	for _, n := range names {
		u := g.upServers()[n]
		renames := &uriRenames{prefix: namespacedURI(n, ""), static: map[string]string{}}
		seen := map[string]bool{}
		for _, r := range u.resources {
			if seen[r.URI] {
				continue
			}
			seen[r.URI] = true
			res := r
			original := r.URI
			if shared(original, claims[original]) {
				res.URI = namespacedResource(n, original)
				renames.static[original] = res.URI
			}
			if res.Name == "" {
				res.Name = original
			}
			out = append(out, wanted{
				registration: registration{kind: "resource", name: res.URI, fp: fingerprint(n, original, &res)},
				entry:        Entry{Kind: "resource", Name: res.URI, Server: n, Original: original},
				add:          func() error { return g.srv.AddResource(&res, g.resourceHandler(u, original)) },
			})
		}
		for _, t := range u.templates {
			if seen["\x00"+t.URITemplate] {
				continue
			}
			seen["\x00"+t.URITemplate] = true
			tmpl := t
			original := t.URITemplate
			if shared(original, tclaims[original]) {
				tmpl.URITemplate = namespacedURI(n, original)
				if parsed, err := uritemplate.New(original); err == nil {
					renames.templates = append(renames.templates, parsed)
				}
			}
			if tmpl.Name == "" {
				tmpl.Name = original
			}
			completions := u.completions
			out = append(out, wanted{
				registration: registration{kind: "template", name: tmpl.URITemplate, fp: fingerprint(n, original, &tmpl, fmt.Sprint(completions))},
				entry:        Entry{Kind: "template", Name: tmpl.URITemplate, Server: n, Original: original},
				add: func() error {
					if err := g.srv.AddResourceTemplate(&tmpl, g.resourceHandler(u, "")); err != nil {
						return err
					}
					if parsed, err := uritemplate.New(original); err == nil && completions {
						for _, v := range parsed.Varnames() {
							g.srv.AddTemplateCompletion(tmpl.URITemplate, v, g.completer(u, protocol.CompleteReference{Type: protocol.RefTypeResource, URI: original}))
						}
					}
					return nil
				},
			})
		}
		if len(renames.static) == 0 && len(renames.templates) == 0 {
			renames = nil
		}
		u.renames.Store(renames)
	}
	return out
}
