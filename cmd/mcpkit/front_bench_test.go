package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/ratelimit"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
	"github.com/mcpkit/mcpkit/upstream"
)

// BenchmarkGatewayFront measures a tools/call through the gateway over HTTP,
// as `mcpkit gateway --http` serves it, with its inbound options off and on
// (a static token checked by the resource middleware, a per-client limit and
// a per-tool limit, both high enough never to refuse), and with metrics on
// (what --metrics-addr installs: the Prometheus reader, the gateway's server
// and upstream middleware): what authentication, rate limiting and metrics
// add to a call. Besides the wall time it reports the process's CPU time per
// call (the gateway, its in-process server and the client): the figure to
// compare on a shared machine.
func BenchmarkGatewayFront(b *testing.B) {
	for _, c := range []struct {
		name        string
		on, metrics bool
	}{
		{"off", false, false},
		{"auth+limits", true, false},
		{"metrics", false, true},
		{"auth+metrics+limits", true, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			call := frontCaller(b, c.on, c.metrics)
			b.ReportAllocs()
			testkit.LoopCPU(b, call)
		})
	}
}

// BenchmarkGatewayFrontPair runs off and auth+metrics+limits (as in
// BenchmarkGatewayFront) in one process, alternating blocks of calls through
// the two gateways (and which goes first), and reports calls/s of all-on over
// off by wall time and by the process's CPU time: on a loaded machine, load
// that comes and goes then falls on both alike, where separate runs each get
// their own.
func BenchmarkGatewayFrontPair(b *testing.B) {
	off := frontCaller(b, false, false)
	on := frontCaller(b, true, true)
	const block = 25
	timeBlock := func(call func()) (wall, cpu time.Duration) {
		t0, c0 := time.Now(), testkit.ProcessCPU()
		for range block {
			call()
		}
		return time.Since(t0), testkit.ProcessCPU() - c0
	}
	var offWall, offCPU, onWall, onCPU time.Duration
	i := 0
	for b.Loop() {
		first, second := off, on
		if i%2 == 1 {
			first, second = on, off
		}
		w1, c1 := timeBlock(first)
		w2, c2 := timeBlock(second)
		if i%2 == 1 {
			w1, c1, w2, c2 = w2, c2, w1, c1
		}
		offWall, offCPU, onWall, onCPU = offWall+w1, offCPU+c1, onWall+w2, onCPU+c2
		i++
	}
	if onWall > 0 && onCPU > 0 {
		b.ReportMetric(float64(offWall)/float64(onWall), "wall-ratio")
		b.ReportMetric(float64(offCPU)/float64(onCPU), "cpu-ratio")
	}
}

// frontCaller starts a gateway in front of the demo server, with the inbound
// options (on) and metrics as BenchmarkGatewayFront describes, and returns a
// function making one tools/call through it over HTTP.
func frontCaller(b *testing.B, on, metrics bool) func() {
	b.Helper()
	ctx := b.Context()
	srv, err := demo.NewServer(nil)
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(streamable.NewHandler(srv, nil))
	b.Cleanup(up.Close)
	cfg := &upstream.Config{Servers: map[string]*upstream.ServerConfig{"demo": {Name: "demo", Transport: upstream.TransportHTTP, URL: up.URL}}}
	var sopts mcp.ServerOptions
	opts := &mcpkit.HTTPOptions{}
	header := http.Header{}
	if on {
		const tok = "bench-token-0123456789abcdef"
		v, err := resource.NewStaticVerifier([]resource.StaticToken{{Name: "bench", Token: tok}})
		if err != nil {
			b.Fatal(err)
		}
		auth := resource.Middleware(resource.Options{Verifier: v})
		l, _ := ratelimit.ParseLimit("1000000/s")
		limit := ratelimit.Middleware(ratelimit.NewKeyed(l, 0), nil)
		opts.Middleware = func(next http.Handler) http.Handler { return auth(limit(next)) }
		sopts.Middleware = []mcp.Middleware{ratelimit.ToolMiddleware(map[string]*ratelimit.Keyed{"demo__echo": ratelimit.NewKeyed(l, 0)}, nil)}
		header.Set("Authorization", "Bearer "+tok)
	}
	gopts := &gateway.Options{Logger: slog.New(slog.DiscardHandler)}
	if metrics {
		tel := benchTelemetry(b)
		observed, err := tel.middleware(otelmcp.TransportTCP)
		if err != nil {
			b.Fatal(err)
		}
		sopts.Middleware = append(observed, sopts.Middleware...)
		if gopts.UpstreamMiddleware, err = tel.middleware(""); err != nil {
			b.Fatal(err)
		}
	}
	gopts.Server = sopts
	gw := gateway.New(cfg, gopts)
	gw.Start(ctx)
	b.Cleanup(func() { _ = gw.Close() })
	if err := gw.WaitStarted(ctx); err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(mcpkit.NewHTTPHandler(gw.Server(), opts))
	b.Cleanup(front.Close)
	cs, err := mcpkit.ConnectURL(ctx, mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, nil), front.URL+"/mcp", &mcpkit.ConnectOptions{Header: header})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	args := map[string]any{"message": "hi"}
	return func() {
		res, err := cs.CallTool(ctx, "demo__echo", args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// benchTelemetry is the telemetry of --metrics-addr without its listener: a
// meter provider read by the Prometheus exporter on a registry of its own
// (collection happens at scrape time, so the calls pay only for recording).
func benchTelemetry(b *testing.B) *telemetry {
	b.Helper()
	exp, err := otelprom.New(otelprom.WithRegisterer(prometheus.NewRegistry()))
	if err != nil {
		b.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return &telemetry{meters: mp}
}
