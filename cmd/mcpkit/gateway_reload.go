package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/upstream"
)

// maxConfigFile bounds the configuration file the gateway reads again.
const maxConfigFile = 16 << 20

// configWatcher reloads `mcpkit gateway`'s configuration on SIGHUP and when
// the file's content changes. The file is polled (its SHA-256 compared every
// interval): no file-notification library is in the module graph, a poll of
// one small file costs nothing, and it follows an editor's rename-over and a
// Kubernetes ConfigMap's symlink swap alike.
type configWatcher struct {
	path     string
	interval time.Duration // 0: only on SIGHUP
	gw       *gateway.Gateway
	oauth    *upstreamOAuth
	require  []string
	access   *liveAccess        // the --access rules, reloaded with the file (nil: none)
	redactor *upstream.Redactor // the logger's, which follows the configuration
	log      *slog.Logger
	last     [sha256.Size]byte // the content last read
}

// readWatched returns the content of a file the gateway watches, and its hash.
func readWatched(path string) ([]byte, [sha256.Size]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err == nil && len(data) > maxConfigFile {
		err = fmt.Errorf("%s: larger than %d bytes", path, maxConfigFile)
	}
	return data, sha256.Sum256(data), err
}

// readConfig returns the configuration file's content and its hash.
func (w *configWatcher) readConfig() ([]byte, [sha256.Size]byte, error) {
	return readWatched(w.path)
}

// run watches until ctx ends.
func (w *configWatcher) run(ctx context.Context) {
	if _, sum, err := w.readConfig(); err == nil {
		w.last = sum
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var tick <-chan time.Time
	if w.interval > 0 {
		t := time.NewTicker(w.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			w.reload(ctx, "SIGHUP", true)
			w.reloadAccess("SIGHUP", true)
		case <-tick:
			w.reload(ctx, "file changed", false)
			w.reloadAccess("file changed", false)
		}
	}
}

// reloadAccess reads the --access file again; when it changed (or always,
// forced) and is valid, its rules replace the running ones and the clients
// whose view changed hear list_changed. A broken file keeps the running
// rules, said in one line.
func (w *configWatcher) reloadAccess(why string, forced bool) {
	if w.access == nil {
		return
	}
	changed, err := w.access.reload(forced)
	if err != nil {
		w.log.Error("gateway: access rules not reloaded, keeping the running ones", "trigger", why, "error", err)
		return
	}
	if changed {
		w.gw.Server().RefreshVisibility()
		w.log.Info("gateway: access rules reloaded", "trigger", why, "rules", len(w.access.rules.Load().Rules))
	}
}

// reload reads the file and applies it when it changed (or always, forced).
// A file that cannot be read or parsed, or lacks a --require server, keeps
// the running configuration, said in one line.
func (w *configWatcher) reload(ctx context.Context, why string, forced bool) {
	data, sum, err := w.readConfig()
	if err == nil && !forced && sum == w.last {
		return
	}
	w.last = sum
	var cfg *upstream.Config
	if err == nil {
		cfg, err = upstream.Parse(w.path, data, os.LookupEnv)
	}
	if err == nil {
		// Its secrets are redacted from now on, in the lines about it too.
		w.redactor.Add(cfg)
	}
	if err == nil {
		for _, name := range w.require {
			if sc, ok := cfg.Servers[name]; !ok || sc.Disabled {
				err = fmt.Errorf("--require %s: %s has no enabled server of that name", name, w.path)
				break
			}
		}
	}
	if err != nil {
		w.log.Error("gateway: configuration not reloaded, keeping the running one", "trigger", why, "error", err)
		return
	}
	w.oauth.setConfig(cfg)
	change, err := w.gw.Reload(ctx, cfg)
	if err != nil && ctx.Err() == nil {
		w.log.Warn("gateway: configuration reloaded; fetching lists failed", "error", err)
	}
	w.log.Info("gateway: configuration reloaded", "trigger", why,
		"added", serverList(change.Added), "removed", serverList(change.Removed), "changed", serverList(change.Changed))
}

// serverList prints a list of server names for a log line.
func serverList(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return fmt.Sprint(slices.Clip(list))
}

// setConfig makes cfg the configuration client looks servers up in, after a
// reload; a changed or removed server's OAuth client is dropped with it.
func (o *upstreamOAuth) setConfig(cfg *upstream.Config) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for name := range o.clients {
		if sc := cfg.Servers[name]; sc == nil || !upstream.SameServer(sc, o.cfg.Servers[name]) {
			delete(o.clients, name)
		}
	}
	o.cfg = cfg
}
