package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// runner supervises one server: its goroutine (run) connects, watches the
// session, and reconnects.
type runner struct {
	sup    *Supervisor
	cfg    *ServerConfig
	log    *slog.Logger
	client *mcp.Client
	redact *strings.Replacer // the configuration's secrets (ServerConfig.Redact)

	restart   chan struct{} // Restart asks the running session to end
	trouble   chan struct{} // an HTTP request failed in the transport (trouble.go)
	firstDone chan struct{} // closed after the first attempt's outcome
	firstOnce sync.Once
	// stop ends run and done is closed when it has returned (set when it
	// starts; Supervisor.Apply stops a removed or changed server with them).
	stop context.CancelFunc
	done chan struct{}

	mu      sync.Mutex
	status  Status
	stderr  []string // ring of the last lines of the current process (oldest at errAt)
	errAt   int
	session *mcp.ClientSession
	changed chan struct{} // closed and replaced at every state change
	// troubleWhy says why the last HTTP request that failed in the transport
	// failed (trouble.go).
	troubleWhy string
}

func newRunner(s *Supervisor, sc *ServerConfig) *runner {
	r := &runner{
		sup:       s,
		cfg:       sc,
		log:       s.log.With("server", sc.Name), // redacts sc's secrets (Apply added them)
		restart:   make(chan struct{}, 1),
		trouble:   make(chan struct{}, 1),
		firstDone: make(chan struct{}),
		changed:   make(chan struct{}),
		redact:    sc.redactor(),
	}
	r.status = Status{Name: sc.Name, Transport: sc.Transport, State: StateStarting, Since: time.Now()}
	if sc.Disabled {
		r.status.State = StateDisabled
	}
	r.client = mcp.NewClient(s.opts.ClientInfo, r.clientOptions())
	return r
}

// clientOptions returns the options of the server's client: the consumer's,
// with the supervisor's notification handlers chained after theirs.
func (r *runner) clientOptions() *mcp.ClientOptions {
	var o mcp.ClientOptions
	if f := r.sup.opts.ClientOptions; f != nil {
		if given := f(r.cfg.Name); given != nil {
			o = *given
		}
	}
	if o.Logger == nil {
		o.Logger = r.log
	} else {
		// The secrets of every configuration the supervisor ran, this
		// server's among them (see Apply).
		o.Logger = slog.New(r.sup.opts.Redactor.Handler(o.Logger.Handler()))
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = r.cfg.ProtocolVersion
	}
	if o.ProbeTimeout == 0 && r.cfg.Transport == TransportStdio {
		o.ProbeTimeout = 10 * time.Second // a package runner may install the server first
	}
	chain := func(prev func(context.Context, *mcp.ClientSession), kind EventKind) func(context.Context, *mcp.ClientSession) {
		return func(ctx context.Context, cs *mcp.ClientSession) {
			if prev != nil {
				prev(ctx, cs)
			}
			r.sup.emit(Event{Server: r.cfg.Name, Kind: kind, Session: cs, Status: r.snapshot()})
		}
	}
	o.ToolListChangedHandler = chain(o.ToolListChangedHandler, EventToolsChanged)
	o.PromptListChangedHandler = chain(o.PromptListChangedHandler, EventPromptsChanged)
	o.ResourceListChangedHandler = chain(o.ResourceListChangedHandler, EventResourcesChanged)
	prevUpdated := o.ResourceUpdatedHandler
	o.ResourceUpdatedHandler = func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ResourceUpdatedParams) {
		if prevUpdated != nil {
			prevUpdated(ctx, cs, p)
		}
		r.sup.emit(Event{Server: r.cfg.Name, Kind: EventResourceUpdated, Session: cs, Status: r.snapshot(), URI: p.URI})
	}
	return &o
}

// afterConnected, when set (by tests), runs on the runner's goroutine once a
// session is announced, before watch starts.
var afterConnected func(*runner)

// run connects, watches and reconnects until ctx ends.
func (r *runner) run(ctx context.Context) {
	failures := 0
	for {
		r.setState(StateStarting, func(st *Status) { st.NextAttempt = time.Time{} })
		r.mu.Lock()
		r.stderr, r.errAt = r.stderr[:0], 0 // the tail is the current process's
		r.mu.Unlock()
		select {
		case <-r.restart: // asked before this attempt: the attempt is the restart
		default:
		}
		cs, pid, err := r.connect(ctx)
		if err == nil {
			// A transport failure reported while connecting belongs to the
			// attempts before this session: forgotten here, before the
			// session is used. From now on each one is checked by watch,
			// even one that comes before watch has started.
			select {
			case <-r.trouble:
				r.takeTrouble()
			default:
			}
			started := time.Now()
			sub := r.listen(ctx, cs) // before the session is announced: no change may be missed
			r.connected(cs, pid)
			if afterConnected != nil {
				afterConnected(r)
			}
			err = r.watch(ctx, cs, sub)
			_ = cs.Close()
			r.mu.Lock()
			r.session = nil
			r.status.PID = 0
			r.mu.Unlock()
			if time.Since(started) >= r.sup.opts.StableAfter {
				failures = 0
			}
		}
		r.firstOnce.Do(func() { close(r.firstDone) })
		if ctx.Err() != nil {
			r.setState(StateStopped, nil)
			return
		}
		if errors.Is(err, errRestartRequested) {
			r.log.Info("upstream: restarting on request")
			continue
		}
		failures++
		wait := backoff(r.sup.opts.InitialBackoff, r.sup.opts.MaxBackoff, failures)
		msg := r.redact.Replace(describeFailure(err))
		r.setState(StateBackoff, func(st *Status) {
			st.Failures, st.LastError, st.NextAttempt = failures, msg, time.Now().Add(wait)
		})
		r.log.Warn("upstream: server down", "error", msg, "stderr", strings.Join(r.snapshot().Stderr, "\n"), "retry_in", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.restart:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			r.setState(StateStopped, nil)
			return
		}
	}
}

// errRestartRequested ends a session on Restart.
var errRestartRequested = errors.New("restart requested")

// connect starts or dials the server and opens a session, within ConnectTimeout.
func (r *runner) connect(ctx context.Context) (*mcp.ClientSession, int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.sup.opts.ConnectTimeout)
	defer cancel()
	conn, pid, err := r.dial(ctx)
	if err != nil {
		return nil, 0, err
	}
	cs, err := r.client.Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		var exit *stdio.ExitError
		if errors.As(err, &exit) || ctx.Err() == nil {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("no answer to the handshake within %v: %w", r.sup.opts.ConnectTimeout, err)
	}
	return cs, pid, nil
}

// dial opens the transport: the server's Target through mcpkit.Dial, with the
// supervisor's HTTP client (watched for transport failures) and stop timeout.
func (r *runner) dial(ctx context.Context) (transport.Conn, int, error) {
	c := r.cfg
	t, err := c.Target()
	if err != nil {
		return nil, 0, err
	}
	opts := &mcpkit.DialOptions{Logger: r.log, Stderr: r.addStderr, StopTimeout: r.sup.opts.StopTimeout, MaxMessageSize: r.sup.opts.MaxMessageSize}
	if t.URL != "" {
		hc := r.sup.opts.HTTPClient
		if f := r.sup.opts.HTTPClientFor; f != nil {
			if c := f(c.Name, c.URL); c != nil {
				hc = c
			}
		}
		opts.HTTPClient = r.watchedClient(hc)
		opts.OnSessionExpired = func(oldID, newID string, err error) {
			if err == nil {
				// A new session on the server: whatever it offers may differ.
				r.mu.Lock()
				cs := r.session
				r.mu.Unlock()
				r.sup.emit(Event{Server: c.Name, Kind: EventConnected, Session: cs, Status: r.snapshot()})
			}
		}
	}
	conn, err := mcpkit.Dial(ctx, t, opts)
	if err != nil {
		return nil, 0, err
	}
	pid := 0
	if p, ok := conn.(interface{ Pid() int }); ok {
		pid = p.Pid()
	}
	return conn, pid, nil
}

// connected records a new session and reports it.
func (r *runner) connected(cs *mcp.ClientSession, pid int) {
	r.mu.Lock()
	r.session = cs
	r.mu.Unlock()
	r.setState(StateReady, func(st *Status) {
		st.Connects++
		st.PID = pid
		st.ProtocolVersion = cs.ProtocolVersion()
		st.ServerInfo = cs.InitializeResult().ServerInfo
	})
	st := r.snapshot()
	r.log.Info("upstream: server connected", "connects", st.Connects, "protocol", st.ProtocolVersion, "pid", pid)
	r.firstOnce.Do(func() { close(r.firstDone) })
	r.sup.emit(Event{Server: r.cfg.Name, Kind: EventConnected, Session: cs, Status: st})
}

// watch returns when the session ends, pings fail PingFailures times in a row,
// a request of an HTTP server fails in the transport and a ping right after it
// fails too, a restart is requested, or ctx ends. A stateless session has no
// unsolicited notifications: watch keeps a subscriptions/listen stream open on
// it for the list changes.
func (r *runner) watch(ctx context.Context, cs *mcp.ClientSession, sub *mcp.Subscription) error {
	o := &r.sup.opts
	var tick <-chan time.Time
	if o.PingInterval > 0 {
		t := time.NewTicker(o.PingInterval)
		defer t.Stop()
		tick = t.C
	}
	var subDone <-chan struct{}
	if sub != nil {
		subDone = sub.Done()
	}
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	failed := 0
	for {
		select {
		case <-cs.Done():
			if err := cs.Err(); err != nil {
				return err
			}
			return errors.New("the server ended the connection")
		case <-r.restart:
			return errRestartRequested
		case <-ctx.Done():
			return ctx.Err()
		case <-subDone:
			sub, subDone = nil, nil // opened again at the next tick
		case <-r.trouble:
			// A request failed in the transport: check now, not at the next
			// tick. One that succeeds was a blip.
			pctx, cancel := context.WithTimeout(ctx, o.PingTimeout)
			err := cs.Ping(pctx)
			cancel()
			why := r.takeTrouble()
			if err == nil {
				r.log.Info("upstream: a request failed in the transport, but the server answers a ping", "error", r.redact.Replace(why))
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("a request failed (%s), and a ping right after failed too: %w", why, err)
		case <-tick:
			pctx, cancel := context.WithTimeout(ctx, o.PingTimeout)
			err := cs.Ping(pctx)
			cancel()
			if err == nil {
				failed = 0
				if sub == nil && cs.IsStateless() {
					if sub = r.listen(ctx, cs); sub != nil {
						subDone = sub.Done()
					}
				}
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failed++
			r.log.Warn("upstream: ping failed", "error", r.redact.Replace(err.Error()), "failures", failed)
			if failed >= o.PingFailures {
				return fmt.Errorf("%d pings in a row failed, the last with: %w", failed, err)
			}
		}
	}
}

// listen opens, on a stateless session, the subscriptions/listen stream that
// brings the server's list changes (nil on a legacy session, or when the
// server refuses).
func (r *runner) listen(ctx context.Context, cs *mcp.ClientSession) *mcp.Subscription {
	if !cs.IsStateless() {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, r.sup.opts.PingTimeout)
	defer cancel()
	sub, err := cs.Listen(lctx, protocol.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true})
	if err != nil {
		r.log.Debug("upstream: subscriptions/listen failed", "error", err)
		return nil
	}
	return sub
}

// currentSession returns the session, waiting while a connection attempt is
// under way.
func (r *runner) currentSession(ctx context.Context) (*mcp.ClientSession, error) {
	for {
		r.mu.Lock()
		st, cs, changed := r.status.State, r.session, r.changed
		r.mu.Unlock()
		switch st {
		case StateReady:
			if cs != nil {
				return cs, nil
			}
		case StateStarting:
		default:
			return nil, r.unavailable()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("server %q: waiting for it to connect: %w", r.cfg.Name, ctx.Err())
		}
	}
}

// unavailable says why the server has no session.
func (r *runner) unavailable() error {
	st := r.snapshot()
	var b strings.Builder
	switch st.State {
	case StateBackoff:
		fmt.Fprintf(&b, "server %q is down, restarting in %v", st.Name, time.Until(st.NextAttempt).Round(10*time.Millisecond))
	default:
		fmt.Fprintf(&b, "server %q is %s", st.Name, st.State)
	}
	if st.LastError != "" {
		b.WriteString(" (")
		b.WriteString(st.LastError)
		b.WriteString(")")
	}
	return errors.New(b.String())
}

// setState moves to state, applying edit to the status under the lock, and
// reports the change.
func (r *runner) setState(state State, edit func(*Status)) {
	r.mu.Lock()
	prev := r.status.State
	if prev == StateStopped {
		r.mu.Unlock()
		return
	}
	if prev != state {
		r.status.State, r.status.Since = state, time.Now()
	}
	if edit != nil {
		edit(&r.status)
	}
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	if prev != state {
		r.sup.emit(Event{Server: r.cfg.Name, Kind: EventState, Status: r.snapshot()})
	}
}

// snapshot returns a copy of the status with the stderr tail.
func (r *runner) snapshot() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.status
	n := len(r.stderr)
	st.Stderr = make([]string, 0, n)
	for i := range n {
		st.Stderr = append(st.Stderr, r.stderr[(r.errAt+i)%n])
	}
	return st
}

// addStderr keeps one stderr line of a stdio server, its secrets redacted.
func (r *runner) addStderr(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	line = r.redact.Replace(line)
	r.log.Debug("upstream: server stderr", "line", line)
	r.mu.Lock()
	defer r.mu.Unlock()
	if max := r.sup.opts.StderrLines; len(r.stderr) < max {
		r.stderr = append(r.stderr, line)
		return
	}
	r.stderr[r.errAt] = line
	r.errAt = (r.errAt + 1) % len(r.stderr)
}

// describeFailure turns a connection failure into one line for the status.
func describeFailure(err error) string {
	if err == nil {
		return "the connection ended"
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // the stderr lines are kept in Status.Stderr
	}
	return msg
}
