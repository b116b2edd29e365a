package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

// redisVariant is one configuration of mode redis: where sessions live and how
// many replicas nginx balances over.
type redisVariant struct {
	label    string // the results' impl column
	store    string
	replicas int
}

// redisVariants are run in mode redis: the in-memory store (one replica: its
// sessions cannot be shared) against Redis with one and three replicas, all
// behind the same nginx, and three replicas that check each session in Redis
// on every request (one GETEX per tools/call, the worst case).
var redisVariants = []redisVariant{
	{"mcpkit memory ×1", "memory", 1},
	{"mcpkit redis ×1", "redis", 1},
	{"mcpkit redis ×3", "redis", 3},
	{"mcpkit redis-strict ×3", "redis-strict", 3},
}

// redisLabels are the impl labels of mode redis's results.
func redisLabels() []string {
	var out []string
	for _, v := range redisVariants {
		out = append(out, v.label)
	}
	return out
}

// redisRuns returns the runs of mode redis for one repeat (mcpkit only),
// rotated like the other modes' implementations.
func redisRuns(o *options, bins map[string]string, repeat int) []load.Config {
	if !slices.Contains(o.impls, implMcpkit) {
		return nil
	}
	var plan []load.Config
	for k := range redisVariants {
		v := redisVariants[(k+repeat)%len(redisVariants)]
		cfg := load.Config{
			Impl: v.label, Mode: load.ModeRedis, ServerBin: bins[implMcpkit],
			Store: v.store, Replicas: v.replicas,
			Warmup: o.warmup, Duration: o.duration, Concurrency: o.concurrency,
			RequireSession: true, Verbose: o.verbose,
		}
		if o.pin {
			cfg.PinServerCPU, cfg.ServerGOMAXPROCS = "0", 1
		}
		plan = append(plan, cfg)
	}
	return plan
}

// Figures of mode redis.
var (
	redisPerCall = func(r *load.Result) float64 { return r.RedisCallsPerCall }
	sessionBytes = func(r *load.Result) float64 { return float64(r.SessionKeyBytes) }
)

// printRedis writes mode redis's targets (issue 12): calls/s on Redis against
// the in-memory store, Redis commands per tools/call on a warm session, and a
// session record's footprint.
func printRedis(w io.Writer, gs []*group) {
	mem := find(gs, load.ModeRedis, redisVariants[0].label)
	if mem == nil {
		return
	}
	memRate := mem.figure(callsPerSec).med
	fmt.Fprintln(w, "| target (issue 12), mode redis | goal | measured | met |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	for _, v := range redisVariants[1:] {
		g := find(gs, load.ModeRedis, v.label)
		if g == nil {
			continue
		}
		ratio := 0.0
		if memRate > 0 {
			ratio = g.figure(callsPerSec).med / memRate
		}
		switch {
		case v.store == "redis-strict":
			// Not the default configuration: shown for what a round trip per call costs.
			fmt.Fprintf(w, "| %s / %s calls/s (worst case, no target) | — | %.2f | — |\n", v.label, mem.impl, ratio)
		case v.replicas > 1:
			// The issue asks for 1 vs 3 replicas to be reported, not compared with
			// a goal: on 2 cores three servers, nginx, Redis and the load
			// generator share the CPU a single replica had.
			fmt.Fprintf(w, "| %s / %s calls/s (reported, no target on 2 cores) | — | %.2f | — |\n", v.label, mem.impl, ratio)
		default:
			fmt.Fprintf(w, "| %s / %s calls/s | ≥ 0.70 | %.2f | %s |\n", v.label, mem.impl, ratio, yes(ratio >= 0.7))
		}
		per := g.figure(redisPerCall).med
		// Calls in flight at the window's edges (up to a few per worker) have
		// their command counted but not themselves: 1 % of slack.
		fmt.Fprintf(w, "| %s: Redis commands per tools/call (INFO commandstats, warm sessions) | ≤ 1 | %.3f | %s |\n", v.label, per, yes(per <= 1.01))
		size := g.figure(sessionBytes).med
		fmt.Fprintf(w, "| %s: MEMORY USAGE of a session record, bytes | ≤ 1024 | %.0f | %s |\n", v.label, size, yes(size > 0 && size <= 1024))
		fmt.Fprintf(w, "| %s: errors | 0 | %d | %s |\n", v.label, g.errors(), yes(g.errors() == 0))
	}
	fmt.Fprintf(w, "| %s: errors | 0 | %d | %s |\n", mem.impl, mem.errors(), yes(mem.errors() == 0))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Redis commands over each run's window (first repeat), per configuration:")
	fmt.Fprintln(w)
	for _, v := range redisVariants[1:] {
		if g := find(gs, load.ModeRedis, v.label); g != nil {
			r := g.runs[0]
			names := slices.Sorted(maps.Keys(r.RedisCommands))
			var parts []string
			for _, n := range names {
				parts = append(parts, fmt.Sprintf("%s %d", n, r.RedisCommands[n]))
			}
			if len(parts) == 0 {
				parts = []string{"none"}
			}
			fmt.Fprintf(w, "- %s: %d calls; %s\n", v.label, r.Calls, strings.Join(parts, ", "))
		}
	}
	fmt.Fprintln(w)
}
