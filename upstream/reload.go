package upstream

import (
	"errors"
	"reflect"
	"slices"
)

// Change says how one configuration differs from another, by server name
// (each list sorted): servers Added, Removed, and Changed (any field of their
// entry differs, "disabled" included). The others are untouched.
type Change struct {
	Added, Removed, Changed []string
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool {
	return len(c.Added) == 0 && len(c.Removed) == 0 && len(c.Changed) == 0
}

// Diff returns how next differs from prev.
func Diff(prev, next *Config) Change {
	var c Change
	for _, name := range next.Names() {
		old, ok := prev.Servers[name]
		switch {
		case !ok:
			c.Added = append(c.Added, name)
		case !SameServer(old, next.Servers[name]):
			c.Changed = append(c.Changed, name)
		}
	}
	for _, name := range prev.Names() {
		if _, ok := next.Servers[name]; !ok {
			c.Removed = append(c.Removed, name)
		}
	}
	return c
}

// SameServer reports whether a and b configure a server the same way (the
// values substituted for variables included): a server whose entry is the
// same is left running when a configuration is applied.
func SameServer(a, b *ServerConfig) bool {
	return reflect.DeepEqual(a, b)
}

// ErrClosed is returned by Apply once the supervisor is closed.
var ErrClosed = errors.New("upstream: the supervisor is closed")

// Apply makes cfg the supervisor's configuration, touching only what changed
// (see Diff): a removed server is stopped (its session closed, a stdio
// server's process ended); a changed one is stopped and started again with its
// new entry; an added one is started. The untouched servers keep their
// sessions, and the calls in flight on them go on. Apply returns once the
// stopped servers have stopped and the new ones are starting (before Start,
// they start with Start). Events of the new runners go to the same
// subscribers; the caller updates what it built on the removed servers.
func (s *Supervisor) Apply(cfg *Config) (Change, error) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	// From now on, every line logged under the supervisor (and through the
	// redactor, the program's) has the new configuration's secrets redacted.
	s.opts.Redactor.Add(cfg)
	prevCfg, prev := s.state()
	change := Diff(prevCfg, cfg)
	if change.Empty() {
		s.mu.Lock()
		s.cfg = cfg // the same servers; the path may differ
		s.mu.Unlock()
		return change, nil
	}
	next := make(map[string]*runner, len(cfg.Servers))
	var fresh, stop []*runner
	for name, sc := range cfg.Servers {
		r, ok := prev[name]
		if !ok || slices.Contains(change.Changed, name) {
			r = newRunner(s, sc)
			fresh = append(fresh, r)
		}
		next[name] = r
	}
	for name, r := range prev {
		if nr := next[name]; nr != r {
			stop = append(stop, r)
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Change{}, ErrClosed
	}
	s.cfg, s.runners = cfg, next
	s.mu.Unlock()
	// The old runners stop first: a changed stdio server's old process is
	// gone before its new one starts.
	for _, r := range stop {
		if r.stop != nil {
			r.stop()
			<-r.done
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started && !s.closed {
		for _, r := range fresh {
			if !r.cfg.Disabled {
				s.startRunner(s.ctx, r)
			}
		}
	}
	return change, nil
}
