package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
)

// telemetryFlags are the telemetry flags of serve, gateway, host and tap. The
// OTLP export is configured by the standard OTEL_* environment variables.
type telemetryFlags struct {
	metricsAddr string // --metrics-addr: a Prometheus scrape endpoint
}

// telemetryHelp is what the commands' help says of telemetry.
const telemetryHelp = `Telemetry: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT,
or OTEL_TRACES_EXPORTER/OTEL_METRICS_EXPORTER=otlp) set, traces and metrics are exported
over OTLP (OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf, the default, or grpc), with the
other OTEL_* variables (headers, service name, resource attributes, export interval,
sampler) as OpenTelemetry defines them; OTEL_SDK_DISABLED=true turns it off.
--metrics-addr ADDR serves the metrics to Prometheus at http://ADDR/metrics.`

func (f *telemetryFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.metricsAddr, "metrics-addr", "", "serve OpenTelemetry metrics (MCP semantic conventions) for Prometheus at http://ADDR/metrics (an address without a host binds to 127.0.0.1)")
}

// telemetry is what a command exports: metrics and traces, each nil when
// nothing exports it (and then nothing is measured).
type telemetry struct {
	meters   *sdkmetric.MeterProvider
	tracers  *sdktrace.TracerProvider
	shutdown []func(context.Context) error
}

// startTelemetry sets up the exports the environment and f ask for, for the
// command named service ("mcpkit gateway"). The Prometheus endpoint, if any,
// serves until ctx ends. close must be called once the command ends (it
// flushes what is left to the OTLP collector).
func startTelemetry(ctx context.Context, f *telemetryFlags, service string) (*telemetry, error) {
	t := &telemetry{}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		if f.metricsAddr != "" {
			return nil, errors.New("--metrics-addr: OTEL_SDK_DISABLED=true turns telemetry off")
		}
		return t, nil
	}
	traceOTLP, err := otlpWanted("TRACES")
	if err != nil {
		return nil, err
	}
	metricOTLP, err := otlpWanted("METRICS")
	if err != nil {
		return nil, err
	}
	if !traceOTLP && !metricOTLP && f.metricsAddr == "" {
		return t, nil
	}
	// Later detectors win: the environment's OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES over the command's name.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service), attribute.String("service.version", clientVersion())),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	if traceOTLP {
		exp, err := newTraceExporter(ctx)
		if err != nil {
			return nil, err
		}
		t.tracers = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.shutdown = append(t.shutdown, t.tracers.Shutdown)
		otel.SetTracerProvider(t.tracers)
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if metricOTLP {
		exp, err := newMetricExporter(ctx)
		if err != nil {
			return nil, errors.Join(err, t.close())
		}
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if f.metricsAddr != "" {
		reader, err := servePrometheus(ctx, f.metricsAddr)
		if err != nil {
			return nil, errors.Join(err, t.close())
		}
		mopts = append(mopts, sdkmetric.WithReader(reader))
	}
	if metricOTLP || f.metricsAddr != "" {
		t.meters = sdkmetric.NewMeterProvider(mopts...)
		t.shutdown = append(t.shutdown, t.meters.Shutdown)
		otel.SetMeterProvider(t.meters)
	}
	return t, nil
}

// otlpWanted reports whether the OTLP export of signal (TRACES or METRICS) is
// asked for: OTEL_<signal>_EXPORTER=otlp, or unset with an OTLP endpoint set.
func otlpWanted(signal string) (bool, error) {
	name := "OTEL_" + signal + "_EXPORTER"
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(name))); v {
	case "otlp":
		return true, nil
	case "none":
		return false, nil
	case "":
		return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("%s=%s: mcpkit exports otlp or none (for Prometheus, --metrics-addr)", name, v)
	}
}

// otlpProtocol returns the OTLP protocol of signal: grpc or http/protobuf.
func otlpProtocol(signal string) (grpc bool, err error) {
	v := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if v == "" {
		v = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(v) {
	case "", "http/protobuf":
		return false, nil
	case "grpc":
		return true, nil
	}
	return false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: mcpkit speaks http/protobuf and grpc", v)
}

// newTraceExporter and newMetricExporter make the OTLP exporters; each reads
// its endpoint, headers, timeout, compression and certificates from OTEL_*.
func newTraceExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	grpc, err := otlpProtocol("TRACES")
	if err != nil {
		return nil, err
	}
	if grpc {
		return otlptracegrpc.New(ctx)
	}
	return otlptracehttp.New(ctx)
}

func newMetricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	grpc, err := otlpProtocol("METRICS")
	if err != nil {
		return nil, err
	}
	if grpc {
		return otlpmetricgrpc.New(ctx)
	}
	return otlpmetrichttp.New(ctx)
}

// metricsPath is where --metrics-addr serves the metrics.
const metricsPath = "/metrics"

// servePrometheus serves the metrics (and the Go runtime's and the process's)
// at http://addr/metrics until ctx ends, behind the Host and Origin checks of
// the MCP endpoints, and returns the reader that feeds it.
func servePrometheus(ctx context.Context, addr string) (sdkmetric.Reader, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exp, err := otelprom.New(otelprom.WithRegisterer(reg),
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	ln, err := mcpkit.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	var policy httpguard.Policy
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	mux := http.NewServeMux()
	mux.HandleFunc(metricsPath, func(w http.ResponseWriter, r *http.Request) {
		if err := policy.Check(r); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		metrics.ServeHTTP(w, r)
	})
	srv := mcpkit.NewHTTPServer("", mux)
	go func() { _ = srv.Serve(ln) }() // returns once Close below closes the listener
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	// "on", not "at": the tests find the MCP endpoint by "at http://".
	fmt.Fprintf(os.Stderr, "mcpkit: metrics for Prometheus on http://%s%s\n", ln.Addr(), metricsPath)
	return exp, nil
}

// middleware returns the middleware that traces and measures a server or a
// client on transport (otelmcp.TransportPipe or TransportTCP), outermost
// first; nil when nothing is exported, so that the mcp package keeps its
// path without middleware.
func (t *telemetry) middleware(transport string) ([]mcp.Middleware, error) {
	var mws []mcp.Middleware
	if t.tracers != nil {
		mws = append(mws, otelmcp.Middleware(&otelmcp.Options{TracerProvider: t.tracers}))
	}
	if t.meters != nil {
		o := &otelmcp.MetricsOptions{MeterProvider: t.meters, Transport: transport}
		if transport == otelmcp.TransportTCP {
			o.NetworkProtocol = "http"
		}
		mw, err := otelmcp.Metrics(o)
		if err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
		mws = append(mws, mw)
	}
	return mws, nil
}

// meter returns the meter of the command's own metrics, or nil when metrics
// are off.
func (t *telemetry) meter() metric.Meter {
	if t.meters == nil {
		return nil
	}
	return t.meters.Meter("github.com/mcpkit/mcpkit/cmd/mcpkit")
}

// close flushes and stops the exports, within 5 seconds.
func (t *telemetry) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	t.shutdown = nil
	return errors.Join(errs...)
}

// closeLogged is close for a deferred call: a failure (the collector
// unreachable) is logged, not made the command's.
func (t *telemetry) closeLogged(logger *slog.Logger) {
	if err := t.close(); err != nil {
		logger.Warn("telemetry: the last export failed", "error", err)
	}
}

// startTelemetry starts the telemetry of serve or gateway and returns the
// middleware their server puts first (nil when nothing is exported).
func (f *serveFlags) startTelemetry(ctx context.Context, service string) (*telemetry, []mcp.Middleware, error) {
	tel, err := startTelemetry(ctx, &f.telemetry, service)
	if err != nil {
		return nil, nil, err
	}
	transport := otelmcp.TransportPipe
	if f.http != "" {
		transport = otelmcp.TransportTCP
	}
	observed, err := tel.middleware(transport)
	if err != nil {
		return nil, nil, errors.Join(err, tel.close())
	}
	return tel, observed, nil
}
