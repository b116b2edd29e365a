// Package load is the benchmark's load generator: it starts one server binary,
// talks MCP to it the way a client does (initialize, notifications/initialized,
// then tools/call of the echo tool), checks every reply, and measures throughput,
// latency and the server's memory and CPU time from /proc.
//
// One Run is one configuration (an implementation in a mode) for one duration; the
// mcpbench command repeats and interleaves runs and prints the table.
package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Modes a Run can measure.
const (
	// ModeHTTPStateful: Streamable HTTP with a session per worker (Mcp-Session-Id).
	ModeHTTPStateful = "http-stateful"
	// ModeHTTPSessionless: Streamable HTTP, the server's sessionless mode.
	ModeHTTPSessionless = "http-sessionless"
	// ModeStdioSerial: stdio, one request in flight at a time.
	ModeStdioSerial = "stdio-serial"
	// ModeStdioPipelined: stdio, Config.InFlight requests in flight.
	ModeStdioPipelined = "stdio-pipelined"
	// ModeIdle: open Config.Sessions stateful Streamable HTTP sessions and measure
	// the server's memory growth per session.
	ModeIdle = "idle-sessions"
	// ModeRedis is in cluster.go.
)

// AllModes lists the modes in the order the table shows them.
var AllModes = []string{ModeHTTPStateful, ModeHTTPSessionless, ModeStdioSerial, ModeStdioPipelined, ModeIdle, ModeRedis}

// Config is one run's configuration.
type Config struct {
	Impl      string `json:"impl"`             // a label for the results
	Mode      string `json:"mode"`             // one of the Mode constants
	ServerBin string `json:"serverBin"`        // the server binary (see package serverkit)
	Client    string `json:"client,omitempty"` // the client under test in the client modes (client.go)

	Warmup      time.Duration `json:"warmup"`      // load before measuring
	Duration    time.Duration `json:"duration"`    // the measured window
	Concurrency int           `json:"concurrency"` // HTTP workers, one connection and session each
	InFlight    int           `json:"inFlight"`    // requests in flight in ModeStdioPipelined
	Sessions    int           `json:"sessions"`    // sessions to open in ModeIdle

	// RequireSession fails a stateful handshake that gets no Mcp-Session-Id (every
	// MCP implementation issues one; the ceiling does not).
	RequireSession bool `json:"requireSession"`

	PinServerCPU     string `json:"pinServerCPU"`     // taskset -c list for the server; empty: no pinning
	ServerGOMAXPROCS int    `json:"serverGOMAXPROCS"` // 0: leave alone
	CPUProfile       string `json:"cpuProfile"`       // passed to the server as -cpuprofile
	MemProfile       string `json:"memProfile"`       // passed to the server as -memprofile
	// ClientCPUProfile, in the client modes, is where the load generator (the
	// client under test) writes its own CPU profile of the measured window.
	ClientCPUProfile string `json:"clientCPUProfile,omitempty"`

	// Store ("memory", "redis" or "redis-strict") and Replicas configure ModeRedis.
	Store    string `json:"store,omitempty"`
	Replicas int    `json:"replicas,omitempty"`

	RequestTimeout time.Duration `json:"requestTimeout"` // per exchange; 0 means 10 s
	Verbose        bool          `json:"verbose"`        // copy the server's stderr to ours

	// windowHook, when set, runs as the measured window begins (true) and ends.
	windowHook func(begin bool) error
}

// Result is what one run measured.
type Result struct {
	Impl string `json:"impl"`
	Mode string `json:"mode"`

	Calls       int64   `json:"calls"`  // calls completed and checked in the window (sessions opened, for ModeIdle)
	Errors      int64   `json:"errors"` // failed or wrong replies, in the whole run
	FirstError  string  `json:"firstError,omitempty"`
	Seconds     float64 `json:"seconds"`     // the window's length
	CallsPerSec float64 `json:"callsPerSec"` // Calls / Seconds
	P50Ms       float64 `json:"p50Ms"`
	P99Ms       float64 `json:"p99Ms"`

	RSSBytes     int64   `json:"rssBytes"`     // server VmRSS at the end of the window
	PeakRSSBytes int64   `json:"peakRSSBytes"` // server VmHWM
	CPUSeconds   float64 `json:"cpuSeconds"`   // server user+system CPU time in the window
	CPUPerCallUs float64 `json:"cpuPerCallUs"` // CPUSeconds / Calls, in µs
	// LoadGenCPU is the load generator's own CPU time in the window over the
	// window's length: near 1 with pinning means the generator, not the server, was
	// the bottleneck.
	LoadGenCPU    float64 `json:"loadGenCPU"`
	AllocsPerCall float64 `json:"allocsPerCall"` // server heap allocations per call in the window
	// LoadGenAllocsPerCall is the load generator's own heap allocations per call
	// in the window (the client's, in the client modes).
	LoadGenAllocsPerCall float64 `json:"loadGenAllocsPerCall"`
	// UpstreamCPUSeconds and UpstreamCPUPerCallUs are the CPU time of the server
	// behind a gateway (ModeGateway).
	UpstreamCPUSeconds   float64 `json:"upstreamCPUSeconds,omitempty"`
	UpstreamCPUPerCallUs float64 `json:"upstreamCPUPerCallUs,omitempty"`
	BytesPerCall         float64 `json:"bytesPerCall"` // server bytes allocated per call in the window

	Sessions             int     `json:"sessions,omitempty"` // ModeIdle: sessions opened
	RSSPerSession        float64 `json:"rssPerSession,omitempty"`
	HeapPerSession       float64 `json:"heapPerSession,omitempty"`  // live heap after GC
	StackPerSession      float64 `json:"stackPerSession,omitempty"` // goroutine stacks
	GoroutinesPerSession float64 `json:"goroutinesPerSession,omitempty"`

	// ModeRedis: Redis commands per checked tools/call in the window (every
	// command in INFO commandstats), and MEMORY USAGE of a session record.
	RedisCallsPerCall float64 `json:"redisCallsPerCall,omitempty"`
	SessionKeyBytes   int64   `json:"sessionKeyBytes,omitempty"`
	// RedisCommands counts each command over the window (ModeRedis).
	RedisCommands map[string]int64 `json:"redisCommands,omitempty"`

	ServerError string `json:"serverError,omitempty"` // how the server ended, if badly
}

// Run starts the server, runs one configuration and stops the server. It returns
// an error when the run could not take place at all (the server did not start);
// failed calls are counted in Result.Errors.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.InFlight <= 0 {
		cfg.InFlight = 16
	}
	spec := serverSpec{bin: cfg.ServerBin, pinCPU: cfg.PinServerCPU, gomaxprocs: cfg.ServerGOMAXPROCS, verbose: cfg.Verbose}
	switch cfg.Mode {
	case ModeHTTPStateful, ModeIdle, ModeRedis, ModeClientHTTP, ModeClientHTTPStateless, ModeGateway:
		spec.args = []string{"-transport", "http"}
	case ModeHTTPSessionless:
		spec.args = []string{"-transport", "http", "-sessionless"}
	case ModeStdioSerial, ModeStdioPipelined, ModeClientStdio:
		spec.args = []string{"-transport", "stdio"}
		spec.stdio = true
	default:
		return nil, fmt.Errorf("unknown mode %q", cfg.Mode)
	}
	if cfg.CPUProfile != "" {
		spec.args = append(spec.args, "-cpuprofile", cfg.CPUProfile)
	}
	if cfg.MemProfile != "" {
		spec.args = append(spec.args, "-memprofile", cfg.MemProfile)
	}
	var p *serverProc
	var err error
	var cl *cluster
	target := ""
	if cfg.Mode == ModeRedis {
		cl, p, target, err = startCluster(ctx, cfg, spec)
	} else {
		p, err = startServer(ctx, spec)
	}
	if err != nil {
		return nil, err
	}
	if cl != nil {
		defer cl.stop()
	}
	// Whatever happens, the server is stopped; a stuck run is unblocked by killing it.
	runCtx, cancel := context.WithCancel(ctx)
	watchdog := make(chan struct{})
	go func() {
		defer close(watchdog)
		select {
		case <-runCtx.Done():
			if ctx.Err() != nil {
				_ = p.cmd.Process.Kill()
			}
		case <-p.exited:
		}
	}()
	res := &Result{Impl: cfg.Impl, Mode: cfg.Mode}
	switch cfg.Mode {
	case ModeHTTPStateful, ModeHTTPSessionless:
		err = runHTTP(runCtx, cfg, p, p.addr, res)
	case ModeRedis:
		err = runCluster(runCtx, cfg, cl, p, target, res)
	case ModeStdioSerial, ModeStdioPipelined:
		err = runStdio(runCtx, cfg, p, res)
	case ModeIdle:
		err = runIdle(runCtx, cfg, p, res)
	case ModeClientHTTP, ModeClientHTTPStateless:
		err = runClientHTTP(runCtx, cfg, p, res)
	case ModeClientStdio:
		err = runClientStdio(runCtx, cfg, p, res)
	case ModeGateway:
		err = runGateway(runCtx, cfg, p, res)
	}
	if err != nil {
		res.Errors++
		if res.FirstError == "" {
			res.FirstError = err.Error()
		}
	}
	if stopErr := p.stop(); stopErr != nil {
		res.ServerError = stopErr.Error()
	}
	cancel()
	<-watchdog
	if ctx.Err() != nil {
		return res, fmt.Errorf("run %s %s: %w", cfg.Impl, cfg.Mode, ctx.Err())
	}
	return res, nil
}

// Phases of a throughput run, in order.
const (
	phaseWarmup int32 = iota
	phaseMeasure
	phaseDone
)

// recorder collects one worker's figures. Only its worker writes it until the run
// is over.
type recorder struct {
	latencies []int64 // ns, calls completed in the window
	errors    int64
	firstErr  error
}

// fail counts an error.
func (r *recorder) fail(err error) {
	r.errors++
	if r.firstErr == nil {
		r.firstErr = err
	}
}

// window measures the server over the measured part of a run.
type window struct {
	p     *serverProc
	start time.Time
	cpu0  float64
	self0 float64 // the load generator's CPU time
	mal0  uint64  // and its heap allocations
	mal1  uint64
	ms0   memStats
	ms1   memStats // filled by end
}

// beginWindow reads the server's counters at the start of the window.
func beginWindow(p *serverProc) (*window, error) {
	ms, err := p.memStats(false)
	if err != nil {
		return nil, err
	}
	cpu, err := procCPU(p.pid)
	if err != nil {
		return nil, err
	}
	self, err := procCPU(os.Getpid())
	if err != nil {
		return nil, err
	}
	return &window{p: p, start: time.Now(), cpu0: cpu, self0: self, mal0: selfMallocs(), ms0: ms}, nil
}

// end reads the counters again and fills the server's figures of res.
func (w *window) end(res *Result) error {
	res.Seconds = time.Since(w.start).Seconds()
	cpu, err := procCPU(w.p.pid)
	if err != nil {
		return err
	}
	res.CPUSeconds = cpu - w.cpu0
	self, err := procCPU(os.Getpid())
	if err != nil {
		return err
	}
	res.LoadGenCPU = (self - w.self0) / res.Seconds
	w.mal1 = selfMallocs()
	if res.RSSBytes, err = procRSS(w.p.pid); err != nil {
		return err
	}
	if res.PeakRSSBytes, err = procPeakRSS(w.p.pid); err != nil {
		return err
	}
	ms, err := w.p.memStats(false)
	if err != nil {
		return err
	}
	w.ms1 = ms
	return nil
}

// finish computes the per-call figures of res from the recorders and the window.
func finish(res *Result, recs []*recorder, w *window) {
	var all []int64
	for _, r := range recs {
		all = append(all, r.latencies...)
		res.Errors += r.errors
		if res.FirstError == "" && r.firstErr != nil {
			res.FirstError = r.firstErr.Error()
		}
	}
	res.Calls = int64(len(all))
	if res.Seconds > 0 {
		res.CallsPerSec = float64(res.Calls) / res.Seconds
	}
	res.P50Ms = percentile(all, 0.50) / 1e6
	res.P99Ms = percentile(all, 0.99) / 1e6
	if res.Calls > 0 {
		res.CPUPerCallUs = res.CPUSeconds / float64(res.Calls) * 1e6
		res.AllocsPerCall = float64(w.ms1.Mallocs-w.ms0.Mallocs) / float64(res.Calls)
		res.BytesPerCall = float64(w.ms1.TotalAlloc-w.ms0.TotalAlloc) / float64(res.Calls)
		res.LoadGenAllocsPerCall = float64(w.mal1-w.mal0) / float64(res.Calls)
	}
}

// percentile returns the q-quantile of ns (nearest rank), sorting ns.
func percentile(ns []int64, q float64) float64 {
	if len(ns) == 0 {
		return 0
	}
	slices.Sort(ns)
	i := int(q*float64(len(ns))+0.5) - 1
	i = max(0, min(i, len(ns)-1))
	return float64(ns[i])
}

// drive runs the warm-up and the measured window around workers already started:
// it moves phase along and returns once the window is over (the workers stop on
// their own when they see phaseDone).
func drive(ctx context.Context, cfg Config, p *serverProc, phase *atomic.Int32, res *Result) (*window, error) {
	if !sleepCtx(ctx, cfg.Warmup) {
		phase.Store(phaseDone)
		return nil, ctx.Err()
	}
	w, err := beginWindow(p)
	if err != nil {
		phase.Store(phaseDone)
		return nil, err
	}
	if cfg.windowHook != nil {
		if err := cfg.windowHook(true); err != nil {
			phase.Store(phaseDone)
			return nil, err
		}
	}
	phase.Store(phaseMeasure)
	ok := sleepCtx(ctx, cfg.Duration)
	phase.Store(phaseDone)
	if !ok {
		return nil, ctx.Err()
	}
	if cfg.windowHook != nil {
		if err := cfg.windowHook(false); err != nil {
			return nil, err
		}
	}
	if err := w.end(res); err != nil {
		return nil, err
	}
	return w, nil
}

// sleepCtx waits for d or until ctx ends; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// runWorkers starts n workers, drives the run, waits for the workers and fills res.
func runWorkers(ctx context.Context, cfg Config, p *serverProc, res *Result, n int,
	work func(ctx context.Context, i int, phase *atomic.Int32, rec *recorder)) error {
	var phase atomic.Int32
	recs := make([]*recorder, n)
	var wg sync.WaitGroup
	for i := range n {
		recs[i] = &recorder{latencies: make([]int64, 0, 1<<14)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(ctx, i, &phase, recs[i])
		}()
	}
	w, err := drive(ctx, cfg, p, &phase, res)
	wg.Wait()
	if err != nil {
		return err
	}
	finish(res, recs, w)
	if res.Calls == 0 && res.Errors == 0 {
		return errors.New("no call completed in the window")
	}
	return nil
}

// selfMallocs returns the load generator's heap allocations so far.
func selfMallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}
