// Command mcpbench is mcpkit's cross-SDK benchmark: it builds one server binary per
// implementation (mcpkit, the official go-sdk, mark3labs/mcp-go, and a plain
// net/http + encoding/json ceiling), all serving the same echo tool, loads each in
// each mode with a load generator that speaks MCP and checks every reply, and prints
// a table of medians over interleaved repeats.
//
// Run it from the bench module:
//
//	cd bench && go run ./cmd/mcpbench            # the full run
//	cd bench && go run ./cmd/mcpbench -quick     # a smoke run, a few seconds per mode
//
// The server runs pinned to CPU 0 and the load generator to CPU 1 (taskset),
// GOMAXPROCS=1 each. See README.md for the flags and how to read the table.
//
// "mcpbench client" measures clients instead (issue 20): mcpkit's client with
// struct, map and raw arguments and go-sdk's against the hand-written generator,
// over HTTP and stdio, and the gateway's hop (see client.go).
//
// "mcpbench load -config JSON" is the load generator itself, which mcpbench runs
// as a pinned child process for every run; it prints the run's result as JSON.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "load" {
		if err := loadMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench load:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == "client" {
		if err := clientMain(ctx, os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench client:", err)
			os.Exit(1)
		}
		return
	}
	if err := benchMain(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

// loadMain is the load generator child: one run, its result as JSON on stdout.
func loadMain(args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	config := fs.String("config", "", "the run's load.Config as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var cfg load.Config
	if err := json.Unmarshal([]byte(*config), &cfg); err != nil {
		return fmt.Errorf("-config: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, runTimeout(cfg))
	defer cancel()
	res, err := load.Run(ctx, cfg)
	if err != nil && res == nil {
		return err
	}
	if err != nil && res.FirstError == "" {
		res.FirstError = err.Error()
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// runTimeout bounds one run: its warm-up and window, plus time to start, open
// sessions and stop.
func runTimeout(cfg load.Config) time.Duration {
	return cfg.Warmup + cfg.Duration + 2*time.Minute
}

// options are mcpbench's flags.
type options struct {
	impls       []string
	modes       []string
	duration    time.Duration
	warmup      time.Duration
	repeats     int
	concurrency int
	inFlight    int
	sessions    int
	pin         bool
	profileDir  string
	jsonOut     string
	binDir      string
	verbose     bool
	startLoad   string // the load average when the runs began
}

// parseOptions reads the command line.
func parseOptions(args []string) (*options, error) {
	fs := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	o := &options{}
	impls := fs.String("impls", strings.Join(allImpls, ","), "implementations to run, comma-separated: "+strings.Join(allImpls, ", "))
	modes := fs.String("modes", strings.Join(load.AllModes, ","), "modes to run, comma-separated: "+strings.Join(load.AllModes, ", "))
	fs.DurationVar(&o.duration, "d", 5*time.Second, "measured duration of each run")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "load before each measured window")
	fs.IntVar(&o.repeats, "repeats", 3, "runs of each configuration (interleaved across implementations)")
	fs.IntVar(&o.concurrency, "c", 16, "HTTP workers (keep-alive connections, one session each)")
	fs.IntVar(&o.inFlight, "inflight", 16, "requests in flight in mode "+load.ModeStdioPipelined)
	fs.IntVar(&o.sessions, "sessions", 2000, "sessions to open in mode "+load.ModeIdle+" (each on a keep-alive connection of its own)")
	fs.BoolVar(&o.pin, "pin", true, "pin the server to CPU 0 and the load generator to CPU 1 (taskset), GOMAXPROCS=1 each")
	fs.StringVar(&o.profileDir, "profile", "", "write each server's CPU and allocation profiles into this directory")
	fs.StringVar(&o.jsonOut, "json", "", "also write every run's raw result to this file (JSON)")
	fs.StringVar(&o.binDir, "bin", "bin", "directory for the built server binaries")
	fs.BoolVar(&o.verbose, "v", false, "copy the servers' standard error to ours")
	quick := fs.Bool("quick", false, "smoke run: -d 500ms -warmup 200ms -repeats 1 -c 4 -sessions 200 (explicit flags still win)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		quickDefaults := map[string]func(){
			"d":        func() { o.duration = 500 * time.Millisecond },
			"warmup":   func() { o.warmup = 200 * time.Millisecond },
			"repeats":  func() { o.repeats = 1 },
			"c":        func() { o.concurrency = 4 },
			"sessions": func() { o.sessions = 200 },
		}
		for name, apply := range quickDefaults {
			if !set[name] {
				apply()
			}
		}
	}
	var err error
	if o.impls, err = pickList(*impls, allImpls, "impl"); err != nil {
		return nil, err
	}
	if o.modes, err = pickList(*modes, load.AllModes, "mode"); err != nil {
		return nil, err
	}
	if o.repeats < 1 || o.concurrency < 1 || o.inFlight < 1 || o.sessions < 1 || o.duration <= 0 {
		return nil, fmt.Errorf("-repeats, -c, -inflight, -sessions and -d must be positive")
	}
	return o, nil
}

// pickList splits a comma-separated list and checks every element is known.
func pickList(s string, known []string, what string) ([]string, error) {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		found := false
		for _, k := range known {
			found = found || k == v
		}
		if !found {
			return nil, fmt.Errorf("unknown %s %q (known: %s)", what, v, strings.Join(known, ", "))
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s selected", what)
	}
	return out, nil
}

// benchMain builds the servers, runs every configuration and prints the table.
func benchMain(ctx context.Context, args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	if o.pin && !canPin() {
		fmt.Fprintln(os.Stderr, "mcpbench: fewer than 2 CPUs or no taskset: running unpinned")
		o.pin = false
	}
	fmt.Fprintf(os.Stderr, "mcpbench: building %s into %s\n", strings.Join(o.impls, ", "), o.binDir)
	bins, err := buildServers(ctx, o.binDir, o.impls)
	if err != nil {
		return err
	}
	if o.profileDir != "" {
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	plan := planRuns(o, bins)
	o.startLoad = loadAverage()
	var results []*load.Result
	for i, cfg := range plan {
		start := time.Now()
		res, err := runChild(ctx, self, cfg, o.pin)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			res = &load.Result{Impl: cfg.Impl, Mode: cfg.Mode, Errors: 1, FirstError: err.Error()}
		}
		results = append(results, res)
		fmt.Fprintf(os.Stderr, "[%d/%d] %-16s %-8s %s (%.1fs)\n", i+1, len(plan), cfg.Mode, cfg.Impl, summary(res), time.Since(start).Seconds())
	}
	if o.jsonOut != "" {
		b, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	printReport(os.Stdout, o, results)
	return nil
}

// planRuns lists every run: repeats outermost, then modes, then implementations in
// an order rotated at every repeat, so that no implementation always runs first
// or right after another.
func planRuns(o *options, bins map[string]string) []load.Config {
	var plan []load.Config
	for r := range o.repeats {
		for _, mode := range o.modes {
			if mode == load.ModeRedis {
				plan = append(plan, redisRuns(o, bins, r)...)
				continue
			}
			for k := range o.impls {
				impl := o.impls[(k+r)%len(o.impls)]
				cfg := load.Config{
					Impl: impl, Mode: mode, ServerBin: bins[impl],
					Warmup: o.warmup, Duration: o.duration,
					Concurrency: o.concurrency, InFlight: o.inFlight, Sessions: o.sessions,
					RequireSession: impl != implCeiling,
					Verbose:        o.verbose,
				}
				if o.pin {
					cfg.PinServerCPU, cfg.ServerGOMAXPROCS = "0", 1
				}
				if o.profileDir != "" {
					base := fmt.Sprintf("%s/%s-%s-r%d", o.profileDir, impl, mode, r+1)
					cfg.CPUProfile, cfg.MemProfile = base+".cpu.pprof", base+".alloc.pprof"
				}
				plan = append(plan, cfg)
			}
		}
	}
	return plan
}

// summary is one run's progress line.
func summary(r *load.Result) string {
	s := ""
	if r.Mode == load.ModeIdle {
		s = fmt.Sprintf("%d sessions, %.1f KB RSS/session, %.1f KB heap/session", r.Sessions, r.RSSPerSession/1024, r.HeapPerSession/1024)
	} else {
		s = fmt.Sprintf("%8.0f calls/s  p50 %.3fms  p99 %.3fms  cpu %.1fµs/call", r.CallsPerSec, r.P50Ms, r.P99Ms, r.CPUPerCallUs)
	}
	if r.Errors > 0 {
		s += fmt.Sprintf("  ERRORS %d: %s", r.Errors, firstLine(r.FirstError))
	}
	if r.ServerError != "" {
		s += "  server: " + firstLine(r.ServerError)
	}
	return s
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
