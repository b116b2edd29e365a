package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/jsonerr"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/transport"
)

// ServerOptions configures a Server. The zero value is ready to use.
type ServerOptions struct {
	// Visible, when set, decides which tools, prompts, resources and
	// templates each client sees and may use (visibility.go): a per-session
	// or per-principal catalogue on one server.
	Visible VisibleFunc
	// Instructions tell the client how to use the server; sent with the
	// initialize result (legacy era) and the server/discover result
	// (stateless era).
	Instructions string
	// InstructionsFunc, when set, computes the instructions for each
	// initialize and server/discover instead of Instructions: for a server
	// whose guidance changes while it runs (a gateway whose servers come and
	// go). ctx is the request's.
	InstructionsFunc func(ctx context.Context) string
	// Capabilities, when set, are declared as they are. Otherwise the server
	// declares what it has: tools, resources and prompts (with listChanged, and
	// subscribe for resources) once any is registered, completions once a
	// completer is registered, and logging always.
	Capabilities *protocol.ServerCapabilities
	// PageSize is the number of items in one page of a list result. Zero means 500.
	PageSize int
	// Middleware wraps every incoming and outgoing method, first element outermost.
	Middleware []Middleware
	// Logger receives the server's own diagnostics (never protocol output).
	// Nil means slog.Default().
	Logger *slog.Logger
	// InitializedHandler, if set, runs when a session's client sends
	// notifications/initialized.
	InitializedHandler func(ctx context.Context, s *ServerSession)
	// RootsListChangedHandler, if set, runs when a client reports that its roots changed.
	RootsListChangedHandler func(ctx context.Context, s *ServerSession)

	// Keyring seals the requestState of stateless (2026-07-28) input-required
	// round trips. Replicas behind one load balancer must share it (build it
	// with requeststate.ParseKeyring from a shared secret). Nil means a random
	// key made at NewServer: right for a single process.
	Keyring *requeststate.Keyring
	// InputStateTTL is how long a client may take to answer an input request
	// before its retry is refused. Zero means 10 minutes.
	InputStateTTL time.Duration
	// StateUse, when set, makes each requestState of a stateless input-required
	// round single-use: a retry that brings a state accepted before is refused
	// with -32602 "requestState already used". Replicas share one register (for
	// example redisstore.NewStateUse). A client that resends a state after losing
	// the answer is refused too, which is why this is opt-in. Nil keeps states
	// reusable until they expire (they stay bound to their request).
	StateUse StateUse
	// Cache sets the ttlMs and cacheScope hints of stateless results.
	Cache CacheOptions
	// Changes carries feature changes (list_changed, resources/updated) to the
	// subscriptions/listen streams. Nil means an in-process feed; replicas share
	// one by backing it with a message bus. When set, legacy sessions hear of
	// changes through it too (a feature changed on another replica reaches
	// the sessions whose streams this one holds): the feed must deliver the
	// changes published here to this server's subscribers as well, as the
	// in-process feed and redisstore.ChangeFeed do.
	Changes ChangeFeed
	// Tasks configures long-running tool calls answered with a task (see
	// TaskOptions). Nil means the defaults, with tasks declared once a tool
	// supports them; set it to declare tasks regardless (for RunAsTask).
	//
	// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
	// extension in 2026-07-28) are still changing, and this API may change with them.
	Tasks *TaskOptions
}

// Server offers tools, resources and prompts to any number of client sessions.
// Its methods are safe for concurrent use; features may be added and removed while
// sessions are connected, and connected clients are told.
//
// Register features with [AddTool], [Server.AddRawTool], [Server.AddResource],
// [Server.AddResourceTemplate] and [Server.AddPrompt]; serve with [Server.Run]
// (one connection, such as stdio) or hand the server, a [transport.Server], to an
// HTTP handler, which calls [Server.Accept] for each session.
type Server struct {
	info protocol.Implementation
	opts ServerOptions
	log  *slog.Logger
	// legacyFeed: legacy sessions hear of changes through opts.Changes (set
	// by the caller), not straight from where they happen.
	legacyFeed bool

	mu          sync.RWMutex
	tools       registry[*serverTool]
	resources   registry[*serverResource]
	templates   registry[*serverTemplate]
	prompts     registry[*serverPrompt]
	completions map[completionKey]CompleteFunc
	sessions    map[*ServerSession]struct{}
	states      sharedStates // what initialize negotiated, shared by sessions (session_state.go)
	methods     map[string]serverMethod
	stateless   map[string]featureFunc
	keyring     *requeststate.Keyring
	listenEnd   chan struct{}   // closed by EndSubscriptions
	infoJSON    json.RawMessage // info, encoded once for every stateless result's _meta
	tasks       *taskManager
	batching    int                       // Batch calls running
	batched     []string                  // list_changed methods held back until they end
	extensions  map[string]map[string]any // declared with AddExtension
	custom      customMethods             // custom methods (extensions.go), read without the lock
	viewSeed    maphash.Seed              // of the clients' view fingerprints (visibility.go)
	viewGen     atomic.Uint64             // RefreshVisibility calls begun
	views       ChangeFeed                // RefreshVisibility tells the listen streams here

	// The server's middleware around its own methods, wrapped once: a
	// request pays for running it, not for building it.
	legacyChain, statelessChain Invoker
}

// NewServer returns a server that introduces itself as info, configured by opts
// (nil for the defaults; see [ServerOptions]).
func NewServer(info protocol.Implementation, opts *ServerOptions) *Server {
	s := &Server{info: info, sessions: make(map[*ServerSession]struct{}), completions: make(map[completionKey]CompleteFunc)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 500
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	s.methods = serverMethods()
	s.stateless = statelessMethods()
	s.infoJSON, _ = json.Marshal(s.info.ForVersion(protocol.Version20260728)) // plain strings and slices: cannot fail
	if s.opts.InputStateTTL <= 0 {
		s.opts.InputStateTTL = 10 * time.Minute
	}
	s.keyring = s.opts.Keyring
	if s.keyring == nil {
		s.keyring = newRandomKeyring()
	}
	if s.opts.Changes == nil {
		s.opts.Changes = NewMemoryChangeFeed()
	} else {
		s.legacyFeed = true
		s.opts.Changes.Subscribe(s.legacyChange) // for the server's life
	}
	s.tasks = newTaskManager(s, s.opts.Tasks)
	s.viewSeed, s.views = maphash.MakeSeed(), NewMemoryChangeFeed()
	s.legacyChain = chain(s.opts.Middleware, invokeLegacy)
	s.statelessChain = chain(s.opts.Middleware, invokeStateless)
	return s
}

// newRandomKeyring returns a keyring with one fresh random key. crypto/rand
// does not fail on supported platforms; if it ever did, the server could not
// protect request state, so it refuses to start.
func newRandomKeyring() *requeststate.Keyring {
	k, err := requeststate.GenerateKey()
	if err != nil {
		panic(fmt.Sprintf("mcp: generating a requestState key: %v", err))
	}
	kr, err := requeststate.NewKeyring(k)
	if err != nil {
		panic(fmt.Sprintf("mcp: generating a requestState key: %v", err))
	}
	return kr
}

// Connect starts a session over conn and returns at once. The session runs until the
// client disconnects, ctx ends, or the session is closed ([ServerSession.Close]).
//
// A conn that implements [transport.SessionlessConn] (sessionless HTTP) is served as
// if it had already completed initialize at its protocol version. A conn that
// implements [transport.PushConn] is bound ([transport.PushConn.Bind]): its
// transport hands each message to the session on the goroutine it arrived on,
// and the session keeps no goroutine reading. A conn that implements
// [transport.StatefulConn] and returns a RestoredState is served as the session
// that state describes (initialized, with its client, log level and
// subscriptions); the session's state is saved through it whenever it changes.
func (s *Server) Connect(ctx context.Context, conn transport.Conn) (*ServerSession, error) {
	ss := newServerSession(s, conn)
	if sc, ok := conn.(transport.SessionlessConn); ok {
		// A legacy version means sessionless HTTP: served as if initialize
		// had negotiated it. Otherwise (no version, or a stateless one) each
		// request declares itself in _meta.
		v := sc.ProtocolVersion()
		if st := presetState(v); st != nil {
			ss.state.Store(st) // shared: no allocation of its own
			ss.ready.Store(true)
		} else if v != "" && !isStatelessVersion(v) {
			return nil, fmt.Errorf("mcp: sessionless connection with unsupported protocol version %q", v)
		}
	}
	if sc, ok := conn.(transport.StatefulConn); ok {
		if st := sc.RestoredState(); st != nil {
			if err := ss.restore(st); err != nil {
				return nil, err
			}
		}
	}
	// A connection that carries one request (sessionless, or a stateless
	// request) is not registered: no notification can reach it after its
	// answer, and the registry would only cost a lock on every request.
	if _, oneShot := conn.(transport.SessionlessConn); !oneShot {
		ss.tracked = true
		s.mu.Lock()
		s.sessions[ss] = struct{}{}
		s.mu.Unlock()
	}
	// The session is forgotten when its connection ends (ConnOptions.OnDone).
	if pc, ok := conn.(transport.PushConn); ok {
		// The transport hands each message over on its own goroutine: no read
		// loop. ctx still ends the session, if it can end at all.
		if ctx.Done() != nil {
			ss.stopCtx = context.AfterFunc(ctx, func() { _ = ss.conn.Close() })
		}
		ss.conn.StartPush()
		pc.Bind(&ss.conn)
		return ss, nil
	}
	ss.conn.Start(ctx)
	return ss, nil
}

// forget removes a session whose connection has ended.
func (s *Server) forget(ss *ServerSession) {
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
}

// Accept implements [transport.Server]: it starts a session over conn, as
// [Server.Connect] does. HTTP transports call it for each new session.
func (s *Server) Accept(ctx context.Context, conn transport.Conn) error {
	_, err := s.Connect(ctx, conn)
	return err
}

// Run serves one session over conn and returns when it ends: when the client
// disconnects (nil) or ctx is cancelled (ctx's error). It is how a stdio server
// runs, over the [transport.Conn] of package transport/stdio's NewProcessServerConn.
func (s *Server) Run(ctx context.Context, conn transport.Conn) error {
	ss, err := s.Connect(ctx, conn)
	if err != nil {
		return err
	}
	select {
	case <-ss.conn.Done():
		return ss.conn.Err()
	case <-ctx.Done():
		_ = ss.Close()
		return ctx.Err()
	}
}

// Sessions returns the sessions connected now.
func (s *Server) Sessions() []*ServerSession {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// capabilities returns what the server declares, before it is adapted to a
// version (capabilitiesFor).
func (s *Server) capabilities() protocol.ServerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.opts.Capabilities != nil {
		caps := *s.opts.Capabilities
		s.declareExtensionsLocked(&caps)
		return caps
	}
	caps := protocol.ServerCapabilities{Logging: &protocol.Supported{}}
	if s.tools.len() > 0 {
		caps.Tools = &protocol.ToolsCapability{ListChanged: true}
	}
	if s.resources.len() > 0 || s.templates.len() > 0 {
		caps.Resources = &protocol.ResourcesCapability{ListChanged: true, Subscribe: true}
	}
	if s.prompts.len() > 0 {
		caps.Prompts = &protocol.PromptsCapability{ListChanged: true}
	}
	if len(s.completions) > 0 {
		caps.Completions = &protocol.Supported{}
	}
	s.declareTasksLocked(&caps)
	s.declareExtensionsLocked(&caps)
	return caps
}

// notifyAll publishes a list change to the listen streams and sends the
// notification to every initialized legacy session. Failures are logged:
// one broken session does not stop the others from hearing it.
func (s *Server) notifyAll(method string, params any) {
	if s.deferNotification(method) {
		return
	}
	switch method {
	case protocol.NotificationToolsListChanged:
		s.publish(Change{Kind: ToolsChanged})
	case protocol.NotificationPromptsListChanged:
		s.publish(Change{Kind: PromptsChanged})
	case protocol.NotificationResourcesListChanged:
		s.publish(Change{Kind: ResourcesChanged})
	}
	if !s.legacyFeed {
		s.notifyLegacy(method, params)
	}
}

// legacyChange tells the legacy sessions of a change the feed delivered.
func (s *Server) legacyChange(c Change) {
	switch c.Kind {
	case ToolsChanged:
		s.notifyLegacy(protocol.NotificationToolsListChanged, nil)
	case PromptsChanged:
		s.notifyLegacy(protocol.NotificationPromptsListChanged, nil)
	case ResourcesChanged:
		s.notifyLegacy(protocol.NotificationResourcesListChanged, nil)
	case ResourceUpdated:
		s.resourceUpdatedLegacy(context.Background(), c.URI)
	}
}

// notifyLegacy sends a notification to every initialized legacy session.
func (s *Server) notifyLegacy(method string, params any) {
	for _, ss := range s.Sessions() {
		if !ss.initialized() {
			continue
		}
		if s.opts.Visible != nil {
			ss.forgetView(method)
		}
		if err := ss.notify(context.Background(), method, params); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
			s.log.Debug("mcp: notification failed", "method", method, "error", err)
		}
	}
}

// errorf returns a JSON-RPC error with the given code. An error among args that
// encoding/json produced is described by JSON member, not Go field (see jsonerr).
func errorf(code int64, format string, args ...any) *jsonrpc.Error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = jsonerr.Message(err)
		}
	}
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// instructions returns what initialize and server/discover answer with (see
// ServerOptions.InstructionsFunc).
func (s *Server) instructions(ctx context.Context) string {
	if f := s.opts.InstructionsFunc; f != nil {
		return f(ctx)
	}
	return s.opts.Instructions
}
