package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

// clientRow is one configuration of `mcpbench client`: a client (or the
// hand-written floor) in a mode against a server binary.
type clientRow struct {
	label  string // the table's row
	mode   string
	client string
	server string // "mcpkit" (srv-mcpkit), "gateway" (srv-gateway) or "gateway-floor"
}

// clientRows are the rows of the client table, in order (issue 20).
var clientRows = []clientRow{
	{"HTTP floor: hand-written generator (= direct, for the gateway)", load.ModeClientHTTP, load.ClientFloor, "mcpkit"},
	{"HTTP mcpkit, struct args", load.ModeClientHTTP, load.ClientMcpkitStruct, "mcpkit"},
	{"HTTP mcpkit, map args", load.ModeClientHTTP, load.ClientMcpkitMap, "mcpkit"},
	{"HTTP mcpkit, raw args", load.ModeClientHTTP, load.ClientMcpkitRaw, "mcpkit"},
	{"HTTP mcpkit on net/http (own http.Client), raw args", load.ModeClientHTTP, load.ClientMcpkitRawNetHTTP, "mcpkit"},
	{"HTTP net/http floor: hand-written on http.Client", load.ModeClientHTTP, load.ClientNetHTTP, "mcpkit"},
	{"HTTP go-sdk client", load.ModeClientHTTP, load.ClientGoSDK, "mcpkit"},
	{"HTTP 2026-07-28 floor: hand-written generator", load.ModeClientHTTPStateless, load.ClientFloor, "mcpkit"},
	{"HTTP 2026-07-28 mcpkit, struct args", load.ModeClientHTTPStateless, load.ClientMcpkitStruct, "mcpkit"},
	{"HTTP 2026-07-28 mcpkit, map args", load.ModeClientHTTPStateless, load.ClientMcpkitMap, "mcpkit"},
	{"HTTP 2026-07-28 mcpkit, raw args", load.ModeClientHTTPStateless, load.ClientMcpkitRaw, "mcpkit"},
	{"stdio floor (hand-written, pipelined)", load.ModeClientStdio, load.ClientFloor, "mcpkit"},
	{"stdio mcpkit, struct args", load.ModeClientStdio, load.ClientMcpkitStruct, "mcpkit"},
	{"stdio mcpkit, map args", load.ModeClientStdio, load.ClientMcpkitMap, "mcpkit"},
	{"stdio mcpkit, raw args", load.ModeClientStdio, load.ClientMcpkitRaw, "mcpkit"},
	{"gateway: floor → srv-gateway → srv-mcpkit stdio", load.ModeGateway, "", "gateway"},
	{"gateway floor: floor → srv-gateway-floor (hand-written) → srv-mcpkit stdio", load.ModeGateway, "", gatewayFloor},
}

// clientMain is `mcpbench client`: the client path's figures (issue 20), each row
// a pinned load generator child whose own CPU time is the client's.
func clientMain(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcpbench client", flag.ContinueOnError)
	d := fs.Duration("d", 5*time.Second, "measured duration of each run")
	warmup := fs.Duration("warmup", time.Second, "load before each measured window")
	repeats := fs.Int("repeats", 3, "runs of each row (interleaved)")
	c := fs.Int("c", 16, "HTTP sessions (one connection each); calls in flight over stdio")
	pin := fs.Bool("pin", true, "pin the server to CPU 0 and the client to CPU 1 (taskset), GOMAXPROCS=1 each")
	binDir := fs.String("bin", "bin", "directory for the built server binaries")
	verbose := fs.Bool("v", false, "copy the servers' standard error to ours")
	profileDir := fs.String("profile", "", "write each server's CPU and allocation profiles, and each client's CPU profile of the measured window, into this directory")
	only := fs.String("rows", "", "run only the rows whose label contains one of these comma-separated words")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pin && !canPin() {
		fmt.Fprintln(os.Stderr, "mcpbench: fewer than 2 CPUs or no taskset: running unpinned")
		*pin = false
	}
	rows := clientRows
	if *only != "" {
		rows = nil
		for _, r := range clientRows {
			for w := range strings.SplitSeq(*only, ",") {
				if w != "" && strings.Contains(r.label, w) {
					rows = append(rows, r)
					break
				}
			}
		}
	}
	// srv-gateway runs srv-mcpkit from its own directory.
	bins, err := buildServers(ctx, *binDir, []string{implMcpkit, "gateway", gatewayFloor})
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if *profileDir != "" {
		if err := os.MkdirAll(*profileDir, 0o755); err != nil {
			return err
		}
	}
	startLoad := loadAverage()
	results := make(map[string][]*load.Result)
	total := *repeats * len(rows)
	n := 0
	for r := range *repeats {
		for k := range rows {
			row := rows[(k+r)%len(rows)]
			cfg := load.Config{
				Impl: row.label, Mode: row.mode, Client: row.client, ServerBin: bins[row.server],
				Warmup: *warmup, Duration: *d, Concurrency: *c, InFlight: *c,
				RequireSession: true, Verbose: *verbose,
			}
			if *pin {
				cfg.PinServerCPU, cfg.ServerGOMAXPROCS = "0", 1
			}
			if *profileDir != "" {
				base := fmt.Sprintf("%s/%s-%s-%s-r%d", *profileDir, row.server, row.mode, row.client, r+1)
				cfg.CPUProfile, cfg.MemProfile = base+".cpu.pprof", base+".alloc.pprof"
				cfg.ClientCPUProfile = base + ".client.cpu.pprof"
			}
			n++
			start := time.Now()
			res, err := runChild(ctx, self, cfg, *pin)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				res = &load.Result{Impl: cfg.Impl, Mode: cfg.Mode, Errors: 1, FirstError: err.Error()}
			}
			results[row.label] = append(results[row.label], res)
			fmt.Fprintf(os.Stderr, "[%d/%d] %-48s %s  client %.1fµs/call (%.0f allocs) (%.1fs)\n", n, total, row.label, summary(res),
				clientCPUPerCall(res), res.LoadGenAllocsPerCall, time.Since(start).Seconds())
		}
	}
	printClientReport(os.Stdout, rows, results, *d, *warmup, *repeats, *c, *pin, startLoad)
	return nil
}

// clientCPUPerCall is the load generator's (the client's) CPU µs per call.
func clientCPUPerCall(r *load.Result) float64 {
	if r.Calls == 0 {
		return 0
	}
	return r.LoadGenCPU * r.Seconds / float64(r.Calls) * 1e6
}

// printClientReport writes the client table: medians over the repeats, (min–max).
func printClientReport(w io.Writer, rows []clientRow, results map[string][]*load.Result,
	d, warmup time.Duration, repeats, c int, pin bool, startLoad string) {
	fmt.Fprintf(w, "## mcpbench client results\n\n")
	fmt.Fprintf(w, "- machine: %d CPUs, %s, %s; load average (1, 5, 15 min) %s at the start, %s at the end\n",
		runtime.NumCPU(), cpuModel(), runtime.Version(), startLoad, loadAverage())
	p := "server on CPU 0 (a gateway and its server both), client on CPU 1, GOMAXPROCS=1 each"
	if !pin {
		p = "not pinned"
	}
	fmt.Fprintf(w, "- settings: %s measured after %s warm-up, %d repeats interleaved, C=%d; %s\n", d, warmup, repeats, c, p)
	fmt.Fprintf(w, "- figures are medians over the repeats; (min–max) in parentheses\n")
	fmt.Fprintf(w, "- ÷ floor: a client row's CPU per call ÷ its mode's floor's, the gateway's calls/s ÷ the HTTP floor's (direct), each of the same round; median of the rounds' ratios\n\n")
	fmt.Fprintln(w, "| row | calls/s | client CPU µs/call | client allocs/call | ÷ floor | server CPU µs/call | server allocs/call | behind the gateway: CPU µs/call | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, row := range rows {
		g := &group{impl: row.label, mode: row.mode, runs: results[row.label]}
		if len(g.runs) == 0 {
			continue
		}
		up := "—"
		if row.mode == load.ModeGateway {
			up = fmtStat(g.figure(func(r *load.Result) float64 { return r.UpstreamCPUPerCallUs }), 1)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", row.label,
			fmtStat(g.figure(callsPerSec), 0), fmtStat(g.figure(clientCPUPerCall), 1),
			fmtStat(g.figure(func(r *load.Result) float64 { return r.LoadGenAllocsPerCall }), 1),
			fmtStat(floorRatios(row, rows, results), 2),
			fmtStat(g.figure(cpuPerCall), 1), fmtStat(g.figure(allocsPerCall), 1), up, g.errors())
		if e := g.firstError(); e != "" {
			fmt.Fprintf(w, "|  ↳ first error: %s ||||||||\n", e)
		}
	}
	if least := leastDisturbed(rows, results); len(least) > 0 {
		fmt.Fprintf(w, "\n- least disturbed: each row's lowest CPU per call over the rounds ÷ its floor's lowest (on a shared machine, other work only adds CPU time to a call; for the gateway, the direct server's ÷ the gateway's plus the server's behind it): %s\n",
			strings.Join(least, "; "))
	}
	for _, row := range rows {
		if row.mode != load.ModeGateway {
			continue
		}
		if s := gatewayCPURatios(row, rows, results); s.n > 0 {
			fmt.Fprintf(w, "\n- %s, by CPU: the direct server's CPU per call ÷ the gateway's and the server's behind it, per round, %s: the ÷ floor the core they share would give saturated, with nothing else on it\n",
				row.label, fmtStat(s, 2))
		}
	}
	for _, row := range rows {
		if row.mode != load.ModeGateway || row.server == gatewayFloor {
			continue
		}
		if r := vsGatewayFloor(row, rows, results); r.calls.n > 0 {
			fmt.Fprintf(w, "\n- %s ÷ the hand-written gateway floor (%s, the same server behind it): calls/s per round %s; by CPU per round (the floor's gateway and server ÷ these) %s; least disturbed %.2f\n",
				row.label, gatewayFloor, fmtStat(r.calls, 2), fmtStat(r.cpu, 2), r.least)
		}
	}
}

// gatewayFloor is the server of the hand-written gateway's row
// (cmd/srv-gateway-floor): what forwarding a call from HTTP to the same stdio
// server costs with no MCP library.
const gatewayFloor = "gateway-floor"

// floorComparison is a gateway row against the hand-written gateway floor.
type floorComparison struct {
	calls stat    // calls/s ÷ the floor's, per round
	cpu   stat    // the floor's CPU per call (gateway and server behind) ÷ the row's, per round
	least float64 // the same from each one's lowest over its rounds
}

// vsGatewayFloor compares a gateway row with the gateway floor's row, round by
// round (a round where either failed is left out); calls.n is 0 without one.
func vsGatewayFloor(row clientRow, rows []clientRow, results map[string][]*load.Result) floorComparison {
	var floor []*load.Result
	for _, f := range rows {
		if f.server == gatewayFloor {
			floor = results[f.label]
		}
	}
	both := func(r *load.Result) float64 { return r.CPUPerCallUs + r.UpstreamCPUPerCallUs }
	var calls, cpu []float64
	lowestRow, lowestFloor := math.Inf(1), math.Inf(1)
	for i, r := range results[row.label] {
		if i >= len(floor) || r.Errors > 0 || floor[i].Errors > 0 || floor[i].CallsPerSec <= 0 || both(r) <= 0 {
			continue
		}
		calls = append(calls, r.CallsPerSec/floor[i].CallsPerSec)
		cpu = append(cpu, both(floor[i])/both(r))
		lowestRow, lowestFloor = min(lowestRow, both(r)), min(lowestFloor, both(floor[i]))
	}
	if len(calls) == 0 {
		return floorComparison{}
	}
	return floorComparison{calls: summarize(calls), cpu: summarize(cpu), least: lowestFloor / lowestRow}
}

// floorRatios compares row with the floor of its mode in each round (the
// floor itself, and a row whose floor did not run, have none): client CPU per
// call ÷ the floor's, or, for the gateway, calls/s ÷ the HTTP floor's, which
// is the same server served directly. A round where either failed is left out.
func floorRatios(row clientRow, rows []clientRow, results map[string][]*load.Result) stat {
	if row.mode == load.ModeGateway {
		return roundRatios(row, rows, results, func(r, floor *load.Result) float64 { return r.CallsPerSec / floor.CallsPerSec })
	}
	return roundRatios(row, rows, results, func(r, floor *load.Result) float64 { return clientCPUPerCall(r) / clientCPUPerCall(floor) })
}

// leastDisturbed gives, for each row that has a floor, the ratio of the lowest
// CPU per call over the successful rounds (row ÷ floor; for the gateway, the
// direct server's ÷ the gateway's plus its server's), as "label ratio".
func leastDisturbed(rows []clientRow, results map[string][]*load.Result) []string {
	lowest := func(label string, f func(*load.Result) float64) float64 {
		m := math.Inf(1)
		for _, r := range results[label] {
			if v := f(r); r.Errors == 0 && v > 0 {
				m = min(m, v)
			}
		}
		return m
	}
	var out []string
	for _, row := range rows {
		if row.client == load.ClientFloor {
			continue
		}
		mode := row.mode
		if mode == load.ModeGateway {
			mode = load.ModeClientHTTP
		}
		floor := ""
		for _, f := range rows {
			if f.mode == mode && f.client == load.ClientFloor {
				floor = f.label
			}
		}
		if floor == "" {
			continue
		}
		var v float64
		if row.mode == load.ModeGateway {
			v = lowest(floor, cpuPerCall) / (lowest(row.label, cpuPerCall) + lowest(row.label, func(r *load.Result) float64 { return r.UpstreamCPUPerCallUs }))
		} else {
			v = lowest(row.label, clientCPUPerCall) / lowest(floor, clientCPUPerCall)
		}
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			out = append(out, fmt.Sprintf("%s %.2f", row.label, v))
		}
	}
	return out
}

// gatewayCPURatios is, for the gateway row, what its calls/s ÷ direct would be
// with the core they share saturated and nothing else on it: the direct
// server's CPU per call ÷ the gateway's and the server's behind it, per round.
func gatewayCPURatios(row clientRow, rows []clientRow, results map[string][]*load.Result) stat {
	return roundRatios(row, rows, results, func(r, floor *load.Result) float64 {
		return floor.CPUPerCallUs / (r.CPUPerCallUs + r.UpstreamCPUPerCallUs)
	})
}

// roundRatios applies ratio to row's result and its mode's floor's (the HTTP
// floor's for the gateway) of each round where both succeeded and it is a
// number.
func roundRatios(row clientRow, rows []clientRow, results map[string][]*load.Result, ratio func(r, floor *load.Result) float64) stat {
	mode := row.mode
	if mode == load.ModeGateway {
		mode = load.ModeClientHTTP
	}
	var floor []*load.Result
	for _, f := range rows {
		if f.mode == mode && f.client == load.ClientFloor && f != row {
			floor = results[f.label]
		}
	}
	var vs []float64
	for i, r := range results[row.label] {
		if i >= len(floor) || r.Errors > 0 || floor[i].Errors > 0 {
			continue
		}
		if v := ratio(r, floor[i]); v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return stat{}
	}
	return summarize(vs)
}

// fmtStat formats a median with its range.
func fmtStat(s stat, prec int) string {
	if s.n == 0 {
		return "—"
	}
	if s.n == 1 {
		return fmt.Sprintf("%.*f", prec, s.med)
	}
	return fmt.Sprintf("%.*f (%.*f–%.*f)", prec, s.med, prec, s.min, prec, s.max)
}
