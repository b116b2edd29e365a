package gateway

import (
	"context"
	"maps"
	"slices"

	"github.com/mcpkit/mcpkit/upstream"
)

// upServers returns the configured servers by name, as of now.
func (g *Gateway) upServers() map[string]*upServer { return *g.servers.Load() }

// Reload makes cfg the gateway's configuration: added servers start, removed
// ones stop and what they offered is withdrawn, changed ones restart (their
// tools, prompts and resources offered again once they are back), and the
// untouched ones keep their sessions and their calls in flight (see
// upstream.Supervisor.Apply). The clients hear list_changed for every list
// that changed. Reload returns the change once the removed servers' entries
// are gone; the added and changed ones join as they connect, as at start.
//
// The secrets of a new entry are redacted in its server's status and in
// every line logged under the gateway (upstream.Supervisor.Apply adds them to
// the redactor of upstream.Options.Redactor, which the gateway's logger uses).
func (g *Gateway) Reload(ctx context.Context, cfg *upstream.Config) (upstream.Change, error) {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	change := upstream.Diff(g.sup.Config(), cfg)
	if change.Empty() {
		_, err := g.sup.Apply(cfg)
		return change, err
	}
	g.syncMu.Lock()
	next := maps.Clone(g.upServers())
	var gone []*upServer
	for _, name := range change.Removed {
		gone = append(gone, next[name])
		delete(next, name)
	}
	for _, name := range change.Changed {
		gone = append(gone, next[name])
		next[name] = &upServer{name: name, cfg: cfg.Servers[name]}
	}
	for _, name := range change.Added {
		next[name] = &upServer{name: name, cfg: cfg.Servers[name]}
	}
	// What a changed server offered is registered again with its new
	// entry's handlers, even where it looks the same (an empty fingerprint
	// matches nothing); a removed server's is unregistered by apply.
	for _, e := range g.Entries() {
		if slices.Contains(change.Changed, e.Server) {
			key := e.Kind + "\x00" + e.Name
			if r, ok := g.registered[key]; ok {
				r.fp = ""
				g.registered[key] = r
			}
		}
	}
	g.servers.Store(&next)
	g.syncMu.Unlock()
	for _, u := range gone {
		u.mu.Lock()
		if u.list.timer != nil {
			u.list.timer.Stop()
		}
		u.mu.Unlock()
	}
	if _, err := g.sup.Apply(cfg); err != nil {
		return upstream.Change{}, err
	}
	g.mu.Lock()
	for _, names := range [][]string{change.Removed, change.Changed, change.Added} {
		for _, name := range names {
			g.dirty[name] = true
		}
	}
	g.mu.Unlock()
	return change, g.syncDirty(ctx)
}
