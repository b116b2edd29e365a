package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

func TestSummarize(t *testing.T) {
	if s := summarize([]float64{3, 1, 2}); s.med != 2 || s.min != 1 || s.max != 3 || s.n != 3 {
		t.Errorf("summarize odd = %+v", s)
	}
	if s := summarize([]float64{4, 1, 2, 3}); s.med != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5", s.med)
	}
	if s := summarize(nil); s.n != 0 {
		t.Errorf("summarize(nil) = %+v", s)
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 29123.6: "29,124", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"-quick", "-repeats", "2", "-impls", "mcpkit,ceiling", "-modes", "stdio-serial"})
	if err != nil {
		t.Fatal(err)
	}
	if o.duration != 500*time.Millisecond || o.repeats != 2 || o.concurrency != 4 || o.sessions != 200 {
		t.Errorf("-quick with -repeats 2 gave %+v", o)
	}
	if strings.Join(o.impls, ",") != "mcpkit,ceiling" || strings.Join(o.modes, ",") != "stdio-serial" {
		t.Errorf("impls %v modes %v", o.impls, o.modes)
	}
	for _, bad := range [][]string{{"-impls", "nope"}, {"-modes", "x"}, {"-repeats", "0"}, {"extra"}, {"-impls", ","}} {
		if _, err := parseOptions(bad); err == nil {
			t.Errorf("parseOptions(%q) accepted", bad)
		}
	}
}

func TestPlanRunsInterleaves(t *testing.T) {
	o := &options{impls: []string{"mcpkit", "gosdk", "ceiling"}, modes: []string{load.ModeHTTPStateful, load.ModeIdle}, repeats: 2, pin: true}
	plan := planRuns(o, map[string]string{"mcpkit": "/b/m", "gosdk": "/b/g", "ceiling": "/b/c"})
	var got []string
	for _, c := range plan {
		got = append(got, c.Mode[:4]+":"+c.Impl)
		if c.PinServerCPU != "0" || c.ServerGOMAXPROCS != 1 {
			t.Errorf("%s %s not pinned", c.Mode, c.Impl)
		}
		if c.RequireSession != (c.Impl != implCeiling) {
			t.Errorf("%s: RequireSession %v", c.Impl, c.RequireSession)
		}
	}
	want := "http:mcpkit http:gosdk http:ceiling idle:mcpkit idle:gosdk idle:ceiling " + // repeat 1
		"http:gosdk http:ceiling http:mcpkit idle:gosdk idle:ceiling idle:mcpkit" // repeat 2, rotated
	if strings.Join(got, " ") != want {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

func TestPrintTargets(t *testing.T) {
	results := []*load.Result{
		// Three rounds each: the medians are 900/1000/500 calls/s and 40/30/50 µs
		// per call (median 33 for the ceiling); the lowest CPU per call 36/30/47
		// (the least disturbed).
		{Impl: implMcpkit, Mode: load.ModeHTTPStateful, CallsPerSec: 900, P99Ms: 2, CPUPerCallUs: 40},
		{Impl: implMcpkit, Mode: load.ModeHTTPStateful, CallsPerSec: 800, P99Ms: 2, CPUPerCallUs: 36},
		{Impl: implMcpkit, Mode: load.ModeHTTPStateful, CallsPerSec: 950, P99Ms: 2, CPUPerCallUs: 44},
		{Impl: implCeiling, Mode: load.ModeHTTPStateful, CallsPerSec: 1000, P99Ms: 1, CPUPerCallUs: 30},
		{Impl: implCeiling, Mode: load.ModeHTTPStateful, CallsPerSec: 1100, P99Ms: 1, CPUPerCallUs: 33},
		{Impl: implCeiling, Mode: load.ModeHTTPStateful, CallsPerSec: 900, P99Ms: 1, CPUPerCallUs: 34},
		{Impl: implMcpGo, Mode: load.ModeHTTPStateful, CallsPerSec: 500, P99Ms: 1, CPUPerCallUs: 50},
		{Impl: implMcpGo, Mode: load.ModeHTTPStateful, CallsPerSec: 400, P99Ms: 1, CPUPerCallUs: 47},
		{Impl: implMcpGo, Mode: load.ModeHTTPStateful, CallsPerSec: 600, P99Ms: 1, CPUPerCallUs: 55},
		{Impl: implMcpkit, Mode: load.ModeIdle, RSSPerSession: 2048, HeapPerSession: 1536, StackPerSession: 512, Sessions: 10},
		{Impl: implCeiling, Mode: load.ModeIdle, RSSPerSession: 1600, HeapPerSession: 1024, StackPerSession: 768, Sessions: 10},
	}
	var b bytes.Buffer
	printTargets(&b, groupResults(results, load.AllModes, allImpls))
	out := b.String()
	for _, want := range []string{
		"| http-stateful: mcpkit / ceiling calls/s | ≥ 0.80 | 0.90 | yes | 0.82 | yes | 0.83 | yes |",
		"| http-stateful: mcpkit / mcpgo calls/s | ≥ 1.50 | 1.80 | yes | 1.25 | no | 1.31 | no |",
		"| http-stateful: mcpkit / ceiling p99 | ≤ 1.50 | 2.00 | no | | | | |",
		"| http-sessionless: mcpkit / ceiling calls/s | ≥ 0.80 | n/a |  | n/a |  | n/a |  |",
		"| idle: mcpkit KB per legacy session beyond its connection (live, − ceiling) | ≤ 4 | 0.25 | yes | | | | |",
		"| idle (issue 20): mcpkit / ceiling RSS per session | ≤ 1.05 | 1.28 | no | | | | |",
		"| idle (issue 20): mcpkit / ceiling live bytes per session | ≤ 1.05 | 1.14 | no | | | | |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("targets lack %q:\n%s", want, out)
		}
	}
}

// TestFloorRatios checks the client table's "÷ floor": per round, a client
// row's CPU per call over its mode's floor's, and the gateway's calls/s over
// the HTTP floor's; rounds where either failed are left out.
func TestFloorRatios(t *testing.T) {
	cpu := func(us float64) *load.Result { // 1,000 calls in 1 s at us µs each, the server at 60 µs
		return &load.Result{Calls: 1000, Seconds: 1, LoadGenCPU: us * 1000 / 1e6, CallsPerSec: 1e6 / us, CPUPerCallUs: 60}
	}
	failed := &load.Result{Errors: 1}
	rows := []clientRow{
		{"HTTP floor", load.ModeClientHTTP, load.ClientFloor, "mcpkit"},
		{"HTTP mcpkit", load.ModeClientHTTP, load.ClientMcpkitRaw, "mcpkit"},
		{"stdio floor", load.ModeClientStdio, load.ClientFloor, "mcpkit"},
		{"stdio mcpkit", load.ModeClientStdio, load.ClientMcpkitRaw, "mcpkit"},
		{"gateway", load.ModeGateway, "", "gateway"},
	}
	results := map[string][]*load.Result{
		"HTTP floor":   {cpu(50), cpu(40), cpu(60), failed},
		"HTTP mcpkit":  {cpu(55), cpu(48), failed, cpu(10)},
		"stdio floor":  {cpu(10), cpu(10)},
		"stdio mcpkit": {cpu(8), cpu(9)},
		"gateway":      {{CallsPerSec: 5000, CPUPerCallUs: 70, UpstreamCPUPerCallUs: 30}, {CallsPerSec: 15000}, {CallsPerSec: 9000}},
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if s := floorRatios(rows[1], rows, results); s.n != 2 || !near(s.min, 1.1) || !near(s.max, 1.2) {
		t.Errorf("HTTP mcpkit ÷ floor = %+v, want rounds 1.1 and 1.2 only", s)
	}
	if s := floorRatios(rows[3], rows, results); s.n != 2 || !near(s.med, 0.85) {
		t.Errorf("stdio mcpkit ÷ floor = %+v, want median 0.85", s)
	}
	// The HTTP floor's calls/s: 20,000, 25,000, 16,667.
	if s := floorRatios(rows[4], rows, results); s.n != 3 || !near(s.min, 0.25) || !near(s.max, 0.6) || !near(s.med, 0.54) {
		t.Errorf("gateway ÷ direct = %+v, want 0.25, 0.6 and 0.54", s)
	}
	// By CPU: 60 ÷ (70 + 30), in the one round with both figures.
	if s := gatewayCPURatios(rows[4], rows, results); s.n != 1 || !near(s.med, 0.6) {
		t.Errorf("gateway by CPU = %+v, want 0.6 once", s)
	}
	// Least disturbed: each row's lowest over its own successful rounds ÷ its
	// floor's lowest: HTTP 10 (the round whose floor failed counts for the
	// row) ÷ 40, stdio 8 ÷ 10, the gateway 60 ÷ (70 + 30).
	least := leastDisturbed(rows, results)
	want := []string{"HTTP mcpkit 0.25", "stdio mcpkit 0.80", "gateway 0.60"}
	if !slices.Equal(least, want) {
		t.Errorf("least disturbed = %q, want %q", least, want)
	}
	if s := floorRatios(rows[0], rows, results); s.n != 0 {
		t.Errorf("the floor has a ratio to itself: %+v", s)
	}
	var out bytes.Buffer
	printClientReport(&out, rows, results, time.Second, 0, 4, 16, true, "?")
	if !strings.Contains(out.String(), "| HTTP mcpkit | ") || !strings.Contains(out.String(), "| 1.15 (1.10–1.20) |") ||
		!strings.Contains(out.String(), "- gateway, by CPU: the direct server's CPU per call ÷ the gateway's and the server's behind it, per round, 0.60:") {
		t.Errorf("the report does not show the ratio column:\n%s", out.String())
	}
}

// TestGatewayFloorComparison checks the line that reads the gateway against
// the hand-written gateway floor: per round, calls/s ÷ the floor's and the
// floor's CPU (its own and its server's) ÷ the gateway's; the least disturbed
// from each one's lowest; failed rounds left out.
func TestGatewayFloorComparison(t *testing.T) {
	rows := []clientRow{
		{"HTTP floor", load.ModeClientHTTP, load.ClientFloor, "mcpkit"},
		{"gateway", load.ModeGateway, "", "gateway"},
		{"gateway floor", load.ModeGateway, "", gatewayFloor},
	}
	gw := func(calls, cpu, up float64) *load.Result {
		return &load.Result{CallsPerSec: calls, CPUPerCallUs: cpu, UpstreamCPUPerCallUs: up}
	}
	results := map[string][]*load.Result{
		"HTTP floor":    {gw(20000, 50, 0), gw(20000, 50, 0), gw(20000, 50, 0)},
		"gateway":       {gw(8000, 90, 30), gw(9000, 80, 20), gw(1, 1, 1)},
		"gateway floor": {gw(10000, 60, 20), gw(12000, 50, 25), {Errors: 1}},
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	r := vsGatewayFloor(rows[1], rows, results)
	if r.calls.n != 2 || !near(r.calls.min, 0.75) || !near(r.calls.max, 0.8) {
		t.Errorf("calls ÷ floor = %+v, want 0.8 and 0.75 (the third round's floor failed)", r.calls)
	}
	if r.cpu.n != 2 || !near(r.cpu.min, 80.0/120) || !near(r.cpu.max, 0.75) {
		t.Errorf("CPU floor ÷ gateway = %+v, want 80/120 and 75/100", r.cpu)
	}
	if !near(r.least, 0.75) { // lowest 75 ÷ lowest 100
		t.Errorf("least disturbed = %v, want 0.75", r.least)
	}
	if r := vsGatewayFloor(rows[1], rows[:2], results); r.calls.n != 0 {
		t.Errorf("a comparison without a floor row: %+v", r)
	}
	var out bytes.Buffer
	printClientReport(&out, rows, results, time.Second, 0, 3, 16, true, "?")
	want := "- gateway ÷ the hand-written gateway floor (gateway-floor, the same server behind it): calls/s per round 0.78 (0.75–0.80); by CPU per round (the floor's gateway and server ÷ these) 0.71 (0.67–0.75); least disturbed 0.75\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("the report does not compare the gateway with its floor:\n%s", out.String())
	}
	if strings.Contains(out.String(), "- gateway floor ÷ the hand-written") {
		t.Errorf("the floor is compared with itself:\n%s", out.String())
	}
}
