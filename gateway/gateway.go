package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/upstream"
)

// Options configures a Gateway. The zero value (and nil) is usable.
type Options struct {
	// Info is how the gateway introduces itself to its clients. Empty means
	// {Name: "mcpkit-gateway"}.
	Info protocol.Implementation
	// Server holds options of the gateway's *mcp.Server (Keyring, Cache,
	// PageSize, Middleware...). Its Capabilities, Logger, InstructionsFunc
	// and RootsListChangedHandler are set by the gateway; its Middleware runs
	// inside the gateway's own.
	Server mcp.ServerOptions
	// Supervisor holds the options of the supervisor of the configured
	// servers. Its ClientOptions is set by the gateway, which answers the
	// servers' requests itself.
	Supervisor upstream.Options
	// Logger receives the gateway's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
	// RequiredServers names the servers without which the gateway is not
	// ready (see Ready): by default it is ready whatever its servers' states.
	RequiredServers []string
	// Naming says how tools and prompts are named (NamingPrefixed, the
	// zero value, or NamingBare).
	Naming Naming
	// ExtensionMethods adds, by extension identifier, custom request methods
	// to forward to the servers that declare the extension (the gateway
	// knows those of ExtensionMethods).
	ExtensionMethods map[string][]string
	// UpstreamMiddleware wraps every request and notification between the
	// gateway and its servers (the clients of the supervisor), first element
	// outermost: client-side tracing or metrics of each server, say.
	UpstreamMiddleware []mcp.Middleware
}

// Gateway serves the servers of a configuration as one MCP server. Create it
// with New, call Start, serve Server() over any transport, and Close it.
type Gateway struct {
	sup  *upstream.Supervisor
	srv  *mcp.Server
	log  *slog.Logger
	info protocol.Implementation

	required   []string            // Options.RequiredServers
	upMW       []mcp.Middleware    // Options.UpstreamMiddleware
	naming     Naming              // Options.Naming
	extMethods map[string][]string // ExtensionMethods and Options.ExtensionMethods

	// servers has every configured server; Reload replaces the map (under
	// syncMu), never edits it.
	servers atomic.Pointer[map[string]*upServer]
	subs    subscriptions // to the servers' resources, for the gateway's clients

	syncMu     sync.Mutex // one synchronisation at a time
	reloadMu   sync.Mutex // one Reload at a time
	registered map[string]registration
	entries    atomic.Pointer[[]Entry] // what is offered now, by kind and name
	ext        atomic.Pointer[extensionState]
	aliases    atomic.Pointer[map[string]string] // a server's own tool name → the gateway's (NamingPrefixed)

	mu       sync.Mutex
	dirty    map[string]bool // servers whose lists must be fetched again
	kick     chan struct{}   // buffered 1: the loop has work
	logLevel protocol.LoggingLevel
	cancel   context.CancelFunc
	closed   bool // Close was called
	loopDone chan struct{}
	unsub    func()
}

// Entry is one thing the gateway offers, and where it comes from.
type Entry struct {
	// Kind is "tool", "prompt", "resource" or "template".
	Kind string
	// Name is the gateway's name for it: a tool or prompt name, a resource URI
	// or a URI template.
	Name string
	// Server is the configured server that has it.
	Server string
	// Original is the server's own name, URI or template.
	Original string
}

// New returns a gateway for the servers of cfg. Nothing starts before Start.
func New(cfg *upstream.Config, opts *Options) *Gateway {
	var o Options
	if opts != nil {
		o = *opts
	}
	g := &Gateway{
		log:        o.Logger,
		info:       o.Info,
		required:   slices.Clone(o.RequiredServers),
		naming:     o.Naming,
		extMethods: map[string][]string{},
		registered: map[string]registration{},
		dirty:      map[string]bool{},
		kick:       make(chan struct{}, 1),
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	// The gateway's lines, its server's and its supervisor's have the
	// configuration's secrets redacted, the reloaded ones' too (the
	// supervisor's Apply adds them to the redactor).
	red := o.Supervisor.Redactor
	if red == nil {
		red = upstream.NewRedactor(cfg)
	} else {
		red.Add(cfg)
	}
	g.log = slog.New(red.Handler(g.log.Handler()))
	if g.info.Name == "" {
		g.info = protocol.Implementation{Name: "mcpkit-gateway", Version: "0"}
	}
	for id, ms := range ExtensionMethods {
		g.extMethods[id] = slices.Clone(ms)
	}
	for id, ms := range o.ExtensionMethods {
		g.extMethods[id] = append(g.extMethods[id], ms...)
	}
	servers := make(map[string]*upServer, len(cfg.Servers))
	for name, sc := range cfg.Servers {
		servers[name] = &upServer{name: name, cfg: sc}
	}
	g.servers.Store(&servers)
	so := o.Server
	so.Capabilities = &protocol.ServerCapabilities{
		Tools:       &protocol.ToolsCapability{ListChanged: true},
		Prompts:     &protocol.PromptsCapability{ListChanged: true},
		Resources:   &protocol.ResourcesCapability{ListChanged: true, Subscribe: true},
		Logging:     &protocol.Supported{},
		Completions: &protocol.Supported{},
		// Tasks: see tasks.go. Which tools take them is said tool by tool.
		Tasks: &protocol.ServerTasksCapability{
			List:     &protocol.Supported{},
			Cancel:   &protocol.Supported{},
			Requests: &protocol.ServerTaskRequests{Tools: &protocol.ToolsTaskRequests{Call: &protocol.Supported{}}},
		},
		Extensions: map[string]map[string]any{protocol.ExtensionTasks: {}},
	}
	if so.Tasks == nil {
		so.Tasks = &mcp.TaskOptions{}
	}
	if so.Logger == nil {
		so.Logger = g.log
	} else {
		so.Logger = slog.New(red.Handler(so.Logger.Handler()))
	}
	so.RootsListChangedHandler = func(ctx context.Context, _ *mcp.ServerSession) { g.rootsChanged(ctx) }
	so.InstructionsFunc = func(context.Context) string { return g.instructions() }
	// apps.Middleware: the servers show the gateway their views and app
	// tools (it declares the Apps extension to them); a client of the
	// gateway without the extension gets plain tools, as from the server.
	so.Middleware = append([]mcp.Middleware{g.middleware, apps.Middleware()}, so.Middleware...)
	g.srv = mcp.NewServer(g.info, &so)

	sopts := o.Supervisor
	if sopts.ClientInfo.Name == "" {
		sopts.ClientInfo = g.info
	}
	if sopts.Logger == nil {
		sopts.Logger = g.log
	}
	g.upMW = o.UpstreamMiddleware
	sopts.ClientOptions = g.clientOptions
	sopts.Redactor = red
	g.sup = upstream.NewSupervisor(cfg, &sopts)
	return g
}

// Server returns the gateway's MCP server, to serve over stdio or HTTP.
func (g *Gateway) Server() *mcp.Server { return g.srv }

// Supervisor returns the supervisor of the configured servers (their states).
func (g *Gateway) Supervisor() *upstream.Supervisor { return g.sup }

// Start starts the configured servers and the goroutine that keeps the
// gateway's lists in step with theirs, and returns at once. Everything runs
// until Close or the end of ctx. Call WaitStarted to wait for the servers'
// first connection.
func (g *Gateway) Start(ctx context.Context) {
	g.mu.Lock()
	if g.cancel != nil {
		g.mu.Unlock()
		return
	}
	ctx, g.cancel = context.WithCancel(ctx)
	g.loopDone = make(chan struct{})
	g.unsub = g.sup.Subscribe(func(e upstream.Event) { g.event(ctx, e) })
	g.mu.Unlock()
	g.sup.Start(ctx)
	go func() {
		defer close(g.loopDone)
		g.loop(ctx)
	}()
}

// WaitStarted waits until every enabled server has connected or failed its
// first attempt, and the gateway offers what the connected ones have.
func (g *Gateway) WaitStarted(ctx context.Context) error {
	if err := g.sup.WaitStarted(ctx); err != nil {
		return err
	}
	return g.Sync(ctx)
}

// Sync fetches the lists of every connected server and brings the gateway's
// tools, prompts, resources and templates in step with them. The gateway does
// this by itself when a server connects or says a list changed; Sync is for
// callers that want it done now.
func (g *Gateway) Sync(ctx context.Context) error {
	g.mu.Lock()
	for name := range g.upServers() {
		g.dirty[name] = true
	}
	g.mu.Unlock()
	return g.syncDirty(ctx)
}

// Close stops the configured servers and the gateway's goroutines. Sessions of
// the gateway's own clients are left to the transport that serves Server().
func (g *Gateway) Close() error {
	g.mu.Lock()
	cancel, done, unsub := g.cancel, g.loopDone, g.unsub
	g.closed = true
	g.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	unsub()
	// The gateway's tasks end with it (their calls to the servers are
	// cancelled), before the servers stop.
	tctx, tcancel := context.WithTimeout(context.Background(), upstreamTaskCancelTimeout)
	terr := g.srv.ShutdownTasks(tctx)
	tcancel()
	g.closeSubscriptions()
	err := errors.Join(terr, g.sup.Close())
	<-done
	g.stopListRetries()
	return err
}

// Entries returns what the gateway offers now, by kind and name.
func (g *Gateway) Entries() []Entry {
	if p := g.entries.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// ServerOf returns the configured server that has the entry of kind ("tool",
// "prompt", "resource" or "template") the gateway names name, and whether there
// is one. It does not allocate: a per-principal VisibleFunc may call it for
// every entry it is asked about.
func (g *Gateway) ServerOf(kind, name string) (string, bool) {
	p := g.entries.Load()
	if p == nil {
		return "", false
	}
	k := kindOrder(kind)
	i, ok := slices.BinarySearchFunc(*p, name, func(e Entry, name string) int {
		if d := kindOrder(e.Kind) - k; d != 0 {
			return d
		}
		return strings.Compare(e.Name, name)
	})
	if !ok {
		return "", false
	}
	return (*p)[i].Server, true
}

// event reacts to what happens to a configured server.
func (g *Gateway) event(ctx context.Context, e upstream.Event) {
	switch e.Kind {
	case upstream.EventConnected, upstream.EventToolsChanged, upstream.EventPromptsChanged, upstream.EventResourcesChanged:
		g.markDirty(e.Server)
	case upstream.EventResourceUpdated:
		if u := g.upServers()[e.Server]; u != nil {
			g.srv.NotifyResourceUpdated(ctx, u.gatewayURI(e.URI))
		}
	}
}

// markDirty queues a server's lists to be fetched again.
func (g *Gateway) markDirty(name string) {
	g.mu.Lock()
	g.dirty[name] = true
	g.mu.Unlock()
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// loop synchronises the lists whenever a server asks for it, until ctx ends.
func (g *Gateway) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.kick:
		}
		_ = g.syncDirty(ctx) // failures are logged and retried by listResult

	}
}

// syncDirty fetches the lists of the servers marked dirty and applies them.
func (g *Gateway) syncDirty(ctx context.Context) error {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()
	g.mu.Lock()
	names := make([]string, 0, len(g.dirty))
	for n := range g.dirty {
		names = append(names, n)
	}
	clear(g.dirty)
	g.mu.Unlock()
	slices.Sort(names)
	var errs []error
	servers := g.upServers()
	for _, name := range names {
		u := servers[name]
		if u == nil {
			continue // removed by Reload: apply drops what it offered
		}
		err := g.refresh(ctx, u)
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() == nil {
			g.listResult(u, err)
		}
	}
	g.apply()
	return errors.Join(errs...)
}

// listResult records how fetching u's lists went. A failure while u's
// session is up makes u "degraded" (Status) and schedules another attempt
// after the supervisor's backoff; a success clears it.
func (g *Gateway) listResult(u *upServer, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.list.timer != nil {
		u.list.timer.Stop()
		u.list.timer = nil
	}
	if st, _ := g.sup.Status(u.name); err == nil || st.State != upstream.StateReady {
		// Fetched, or the session is gone: the supervisor reports and retries that.
		u.list = listTrouble{}
		return
	}
	u.list.failures++
	wait := g.sup.Backoff(u.list.failures)
	u.list.err = u.cfg.Redact(err.Error())
	u.list.next = time.Now().Add(wait)
	g.log.Warn("gateway: fetching a server's lists failed", "server", u.name, "error", u.list.err, "retry_in", wait)
	name := u.name
	u.list.timer = time.AfterFunc(wait, func() { g.markDirty(name) })
}

// stopListRetries stops the timers of listResult.
func (g *Gateway) stopListRetries() {
	for _, u := range g.upServers() {
		u.mu.Lock()
		if u.list.timer != nil {
			u.list.timer.Stop()
		}
		u.mu.Unlock()
	}
}

// instructions describes the gateway and passes on the servers' own
// instructions.
func (g *Gateway) instructions() string {
	var b strings.Builder
	if g.naming == NamingBare {
		b.WriteString("This server is a gateway to several MCP servers. A tool or prompt keeps its server's name when no other server has one " +
			"of that name; the others are named <server>" + llm.ToolNameSeparator + "<name>; a name that would be too long or clash ends with a short hash.")
	} else {
		b.WriteString("This server is a gateway to several MCP servers. Tool and prompt names are " +
			"<server>" + llm.ToolNameSeparator + "<name>; a name that would be too long or clash ends with a short hash.")
	}
	servers := g.upServers()
	for _, name := range sortedServerNames(servers) {
		st, _ := g.sup.Status(name)
		if st.State == upstream.StateDisabled {
			continue
		}
		if text := servers[name].instructions(); text != "" {
			fmt.Fprintf(&b, "\n\n## %s\n%s", name, text)
		}
	}
	return b.String()
}

func sortedServerNames(m map[string]*upServer) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
