package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/h1"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// State is where a supervised server stands.
type State int

// States of a server.
const (
	// StateDisabled: the configuration disables it; it is never started.
	StateDisabled State = iota
	// StateStarting: a connection attempt is under way.
	StateStarting
	// StateReady: connected; Session returns its session.
	StateReady
	// StateBackoff: the last attempt failed or the session ended; the next
	// attempt comes at Status.NextAttempt.
	StateBackoff
	// StateStopped: the supervisor was closed.
	StateStopped
)

// String names the state: "disabled", "starting", "ready", "backoff", "stopped".
func (s State) String() string {
	switch s {
	case StateDisabled:
		return "disabled"
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateBackoff:
		return "backoff"
	case StateStopped:
		return "stopped"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is a snapshot of one server.
type Status struct {
	Name      string
	State     State
	Since     time.Time // when State was entered
	Transport Transport
	// Connects counts the successful connections so far: more than one means
	// the server was restarted or reconnected.
	Connects int
	// Failures counts the failed attempts and ended sessions since the last
	// connection that stayed up.
	Failures int
	// LastError says why the last attempt failed or the last session ended.
	LastError string
	// Stderr holds the last lines a stdio server wrote to its standard error,
	// oldest first: those of the running process, or of the last one while the
	// server is down.
	Stderr []string
	// PID is the process id of a running stdio server (0 otherwise).
	PID int
	// ProtocolVersion and ServerInfo describe the current (or last) session.
	ProtocolVersion string
	ServerInfo      protocol.Implementation
	// NextAttempt is when a server in StateBackoff is tried again.
	NextAttempt time.Time
}

// EventKind says what an Event reports.
type EventKind int

// Kinds of Event.
const (
	// EventState: the server's state changed (Event.Status has the new one).
	EventState EventKind = iota
	// EventConnected: a new session is ready, at start or after a restart;
	// everything the server offers may have changed.
	EventConnected
	// EventToolsChanged, EventPromptsChanged and EventResourcesChanged: the
	// server sent list_changed for its tools, prompts, or resources and
	// templates.
	EventToolsChanged
	EventPromptsChanged
	EventResourcesChanged
	// EventResourceUpdated: the server sent resources/updated for Event.URI.
	EventResourceUpdated
)

// Event is something that happened to a supervised server.
type Event struct {
	Server string
	Kind   EventKind
	// Session is the session concerned (nil for EventState).
	Session *mcp.ClientSession
	// Status is the server's status after the event.
	Status Status
	// URI is the updated resource of EventResourceUpdated.
	URI string
}

// Options configures a Supervisor. The zero value (and nil) is usable.
type Options struct {
	// ClientInfo is how the supervisor's clients introduce themselves. Empty
	// means {Name: "mcpkit-upstream"}.
	ClientInfo protocol.Implementation
	// ClientOptions, when set, returns the options of the client that talks to
	// the server called name: the handlers that answer its sampling,
	// elicitation and roots requests, its log messages, middleware. The
	// supervisor adds its own list_changed and resources/updated handlers after
	// the ones given (which still run), and sets Logger and ProtocolVersion
	// when they are empty.
	ClientOptions func(name string) *mcp.ClientOptions
	// Logger receives the supervisor's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
	// Redactor redacts the configuration's secrets in every line logged under
	// the supervisor; Apply adds each new configuration's to it. Nil means
	// one of its own (NewRedactor). A program passes the one its own logger
	// redacts with, so that its lines follow reloads too.
	Redactor *Redactor
	// HTTPClient sends the requests of HTTP servers. Nil means the
	// supervisor's own transport: mcpkit's synchronous HTTP/1.1 transport for
	// a plain http:// URL that http.ProxyFromEnvironment names no proxy for,
	// net/http's default transport for the rest (https, proxies), as the
	// Streamable HTTP client does by default (streamable.ClientOptions).
	HTTPClient *http.Client
	// HTTPClientFor, when set, gives the client for the HTTP server named name
	// (url is its URL), instead of HTTPClient; nil falls back to HTTPClient.
	// Each server can so have a client of its own: an OAuth transport, which
	// holds one server's token, for one (see auth.Transport).
	HTTPClientFor func(name, url string) *http.Client
	// MaxMessageSize bounds one message from a server, in bytes, on every
	// transport: a larger one is dropped and the request it answers fails
	// saying so. Zero means transport.DefaultClientMaxMessageSize (32 MiB).
	MaxMessageSize int
	// InitialBackoff is the wait before the first reconnection attempt; it
	// doubles after each failure up to MaxBackoff. Zero means 500 ms and 30 s.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// StableAfter is how long a session must last for its end to count as a
	// fresh failure (the backoff starts over). Zero means 30 seconds.
	StableAfter time.Duration
	// ConnectTimeout bounds one connection attempt, handshake included. Zero
	// means 60 seconds (time for npx or uvx to install a server).
	ConnectTimeout time.Duration
	// PingInterval is the time between health checks of a ready server; a
	// negative value disables them. Zero means 30 seconds. PingTimeout bounds
	// each ping (zero: 10 seconds), and PingFailures pings in a row that fail
	// end the session, which is then reconnected (zero: 3).
	PingInterval time.Duration
	PingTimeout  time.Duration
	PingFailures int
	// StopTimeout is how long a stdio server is given to exit once its
	// standard input is closed, and again after SIGTERM, before it is killed.
	// Zero means 2 seconds.
	StopTimeout time.Duration
	// StderrLines is how many stderr lines of each stdio server are kept.
	// Zero means 20.
	StderrLines int
}

// Supervisor keeps a client session open to each enabled server of a Config.
// Its methods are safe for concurrent use.
type Supervisor struct {
	cfg  *Config
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	runners map[string]*runner // replaced, never edited, by Apply
	subs    map[*func(Event)]struct{}
	started bool
	closed  bool
	ctx     context.Context // Start's, for the runners Apply adds
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	applyMu sync.Mutex // one Apply at a time

	plain *h1.Transport // made by plainTransport, closed by Close; guarded by mu
}

// NewSupervisor returns a supervisor of cfg's servers. Nothing starts before
// Start.
func NewSupervisor(cfg *Config, opts *Options) *Supervisor {
	s := &Supervisor{cfg: cfg, runners: map[string]*runner{}, subs: map[*func(Event)]struct{}{}}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.ClientInfo.Name == "" {
		o.ClientInfo = protocol.Implementation{Name: "mcpkit-upstream", Version: "0"}
	}
	s.log = o.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	// Every line logged under the supervisor has the configuration's
	// secrets redacted, whoever writes it.
	if o.Redactor == nil {
		o.Redactor = NewRedactor(cfg)
	} else {
		o.Redactor.Add(cfg)
	}
	s.log = slog.New(o.Redactor.Handler(s.log.Handler()))
	defaultDuration(&o.InitialBackoff, 500*time.Millisecond)
	defaultDuration(&o.MaxBackoff, 30*time.Second)
	defaultDuration(&o.StableAfter, 30*time.Second)
	defaultDuration(&o.ConnectTimeout, 60*time.Second)
	defaultDuration(&o.PingInterval, 30*time.Second)
	defaultDuration(&o.PingTimeout, 10*time.Second)
	defaultDuration(&o.StopTimeout, 2*time.Second)
	if o.PingFailures <= 0 {
		o.PingFailures = 3
	}
	if o.StderrLines <= 0 {
		o.StderrLines = 20
	}
	for name, sc := range cfg.Servers {
		s.runners[name] = newRunner(s, sc)
	}
	return s
}

func defaultDuration(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// Config returns the configuration the supervisor runs (the last one Apply
// was given).
func (s *Supervisor) Config() *Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// state returns the configuration and runners now.
func (s *Supervisor) state() (*Config, map[string]*runner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg, s.runners
}

// runner returns the runner of the server called name.
func (s *Supervisor) runner(name string) (*runner, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runners[name]
	return r, ok
}

// startRunner runs r on a goroutine of its own under ctx; s.mu is held.
func (s *Supervisor) startRunner(ctx context.Context, r *runner) {
	rctx, cancel := context.WithCancel(ctx)
	r.stop = cancel
	r.done = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(r.done)
		r.run(rctx)
	}()
}

// Start starts every enabled server, each on a goroutine of its own, and returns
// at once. They run until Close is called or ctx ends. Start may be called once.
func (s *Supervisor) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	s.ctx = ctx
	for _, name := range s.cfg.Names() {
		r := s.runners[name]
		if r.cfg.Disabled {
			continue
		}
		s.startRunner(ctx, r)
	}
}

// Close stops every server (closing its session, which stops a stdio server's
// process) and waits until they have stopped.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	cancel := s.cancel
	s.started = true // a Start after Close does nothing
	s.closed = true
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
	s.mu.Lock()
	if s.plain != nil {
		s.plain.Close()
	}
	s.mu.Unlock()
	return nil
}

// plainTransport is the transport of the HTTP servers that have no client of
// the caller's (see Options.HTTPClient), one for the supervisor: after Close,
// its connections are closed as their responses end.
func (s *Supervisor) plainTransport() http.RoundTripper {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plain == nil {
		s.plain = h1.New(&h1.Options{Proxy: http.ProxyFromEnvironment})
		if s.closed {
			s.plain.Close()
		}
	}
	return s.plain
}

// Status returns the status of the server called name.
func (s *Supervisor) Status(name string) (Status, bool) {
	r, ok := s.runner(name)
	if !ok {
		return Status{}, false
	}
	return r.snapshot(), true
}

// Statuses returns the status of every configured server, by name.
func (s *Supervisor) Statuses() []Status {
	cfg, runners := s.state()
	out := make([]Status, 0, len(runners))
	for _, name := range cfg.Names() {
		out = append(out, runners[name].snapshot())
	}
	return out
}

// ErrUnknownServer is returned for a name the configuration does not have.
var ErrUnknownServer = errors.New("upstream: no such server in the configuration")

// Session returns the current session of the server called name. While a
// connection attempt is under way it waits for its outcome (or for ctx); a
// server that is down, disabled or stopped gets an error at once that says why
// (its last error and stderr lines).
func (s *Supervisor) Session(ctx context.Context, name string) (*mcp.ClientSession, error) {
	r, ok := s.runner(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return r.currentSession(ctx)
}

// Restart ends the current session of the server called name (a stdio server's
// process is stopped) and connects again at once.
func (s *Supervisor) Restart(name string) error {
	r, ok := s.runner(name)
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	select {
	case r.restart <- struct{}{}:
	default: // one is pending already
	}
	return nil
}

// WaitStarted waits until every enabled server has either connected once or
// failed its first attempt, or ctx ends.
func (s *Supervisor) WaitStarted(ctx context.Context) error {
	cfg, runners := s.state()
	for _, name := range cfg.Names() {
		r := runners[name]
		if r.cfg.Disabled {
			continue
		}
		select {
		case <-r.firstDone:
		case <-ctx.Done():
			return fmt.Errorf("waiting for server %q to start: %w", name, ctx.Err())
		}
	}
	return nil
}

// Subscribe registers f to receive every Event from now on and returns a
// function that unregisters it. f is called from the supervisor's goroutines
// (several may call it at once) and must return promptly.
func (s *Supervisor) Subscribe(f func(Event)) (unsubscribe func()) {
	key := &f
	s.mu.Lock()
	s.subs[key] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.subs, key)
		s.mu.Unlock()
	}
}

// emit passes e to every subscriber.
func (s *Supervisor) emit(e Event) {
	s.mu.Lock()
	fs := make([]func(Event), 0, len(s.subs))
	for f := range s.subs {
		fs = append(fs, *f)
	}
	s.mu.Unlock()
	for _, f := range fs {
		f(e)
	}
}

// Backoff returns the wait before retry n (1 for the first) with the
// supervisor's InitialBackoff and MaxBackoff: the pace at which it tries a
// failed server again, for callers that retry something of a server too (the
// gateway fetching lists that failed).
func (s *Supervisor) Backoff(n int) time.Duration {
	return backoff(s.opts.InitialBackoff, s.opts.MaxBackoff, n)
}

// backoff returns the wait before attempt n (1 for the first retry).
func backoff(initial, max time.Duration, n int) time.Duration {
	d := initial
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}
