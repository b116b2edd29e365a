package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/otelmcp"
)

// metricsURL returns the Prometheus endpoint a process announced on stderr.
func metricsURL(t *testing.T, logs string) string {
	t.Helper()
	const mark = "metrics for Prometheus on "
	i := strings.Index(logs, mark)
	if i < 0 {
		t.Fatalf("no metrics endpoint announced; stderr:\n%s", logs)
	}
	return strings.Fields(logs[i+len(mark):])[0]
}

// findPrometheus returns the path of the prometheus binary (Debian's package),
// skipping the test without it unless CI=true, where it must be there.
func findPrometheus(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"prometheus", "/usr/bin/prometheus"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("prometheus is not installed (scripts/test.sh installs it)")
	}
	t.Skip("prometheus is not installed")
	return ""
}

// startPrometheus runs a Prometheus that scrapes target (host:port, path
// /metrics) every second, and returns its base URL once it is ready. It is
// stopped (by PID) when the test ends.
func startPrometheus(t *testing.T, ctx context.Context, bin, target string) string {
	t.Helper()
	dir := t.TempDir()
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: mcpkit
    metrics_path: /metrics
    static_configs:
      - targets: [%q]
`, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // by PID: the process this test started
		<-exited
		if t.Failed() {
			t.Logf("prometheus:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	poll(t, ctx, "prometheus to be ready", func() bool {
		select {
		case <-exited:
			t.Fatalf("prometheus exited: %s", logs.String())
		default:
		}
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
}

// poll calls cond every 100 ms until it holds, failing the test when ctx ends
// first: waiting on another process's schedule (a scrape, an export), which
// sends no event.
func poll(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-tick.C:
		}
	}
}

// promQuery runs an instant query and returns its vector's samples' values.
func promQuery(t *testing.T, base, query string) []string {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "success" {
		t.Fatalf("query %s: status %q, %v", query, out.Status, err)
	}
	var vals []string
	for _, r := range out.Data.Result {
		s, _ := r.Value[1].(string)
		vals = append(vals, s)
	}
	return vals
}

// A real Prometheus scrapes `mcpkit gateway --metrics-addr` while a tool is
// called through the gateway: its query API returns the operation-duration
// histogram of that tool, on the gateway's side (server) and toward its
// server (client), and the server's state.
func TestPrometheusScrapesGatewayMetrics(t *testing.T) {
	prom := findPrometheus(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"mcpServers":{"demo":{"command":%q,"args":["serve"]}}}`, mcpkitBin), 0o600); err != nil {
		t.Fatal(err)
	}
	gw := startLogged(t, nil, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	metrics := metricsURL(t, gw.logs())
	target := strings.TrimSuffix(strings.TrimPrefix(metrics, "http://"), "/metrics")

	// The endpoint has the Host check of the MCP endpoints.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, metrics, nil)
	req.Host = "attacker.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("/metrics with a foreign Host: %v %v, want 403", resp, err)
	} else {
		resp.Body.Close()
	}

	base := startPrometheus(t, ctx, prom, target)
	if out, errOut, code := runURL(t, gw.base+"/mcp", "call", "demo__echo", `{"message":"hi"}`); code != 0 || out != "hello hi\n" {
		t.Fatalf("call through the gateway: %q %q %d", out, errOut, code)
	}
	for _, q := range []string{
		`mcp_server_operation_duration_seconds_count{gen_ai_tool_name="demo__echo",mcp_method_name="tools/call",network_transport="tcp",job="mcpkit"}`,
		`mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="demo__echo",le="+Inf"}`,
		`mcp_client_operation_duration_seconds_count{gen_ai_tool_name="echo",mcp_method_name="tools/call"}`,
		`mcpkit_upstream_servers{mcpkit_upstream_name="demo",mcpkit_upstream_state="ready"}`,
	} {
		poll(t, ctx, "prometheus to have "+q, func() bool {
			vals := promQuery(t, base, q)
			return len(vals) == 1 && vals[0] == "1"
		})
	}
}

// serveAndCallEcho starts `mcpkit serve --http` with env added to its
// environment (stopped when the test ends) and calls its echo tool once.
func serveAndCallEcho(t *testing.T, env ...string) {
	t.Helper()
	base, _ := startHTTPForTestEnv(t, env, "serve", "--http", "127.0.0.1:0")
	if out, errOut, code := runURL(t, base+"/mcp", "call", "echo", `{"message":"hi"}`); code != 0 || out != "hello hi\n" {
		t.Fatalf("call: %q %q %d", out, errOut, code)
	}
}

// otlpReceiver is an OTLP/HTTP collector for a test: it decodes the official
// protobufs of each export and hands them over.
type otlpReceiver struct {
	metrics chan *colmetricpb.ExportMetricsServiceRequest
	traces  chan *coltracepb.ExportTraceServiceRequest
}

func newOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	r := &otlpReceiver{metrics: make(chan *colmetricpb.ExportMetricsServiceRequest, 100), traces: make(chan *coltracepb.ExportTraceServiceRequest, 100)}
	mux := http.NewServeMux()
	handle := func(path string, msg func() proto.Message, deliver func(proto.Message)) {
		mux.HandleFunc(path, func(w http.ResponseWriter, req *http.Request) {
			body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
			m := msg()
			if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, m) != nil {
				t.Errorf("%s: an export that is not OTLP protobuf (%s, %v)", path, req.Header.Get("Content-Type"), err)
				http.Error(w, "bad export", http.StatusBadRequest)
				return
			}
			deliver(m)
			w.Header().Set("Content-Type", "application/x-protobuf")
			_, _ = w.Write(nil) // an empty Export*ServiceResponse: all accepted
		})
	}
	handle("/v1/metrics", func() proto.Message { return &colmetricpb.ExportMetricsServiceRequest{} }, func(m proto.Message) {
		select {
		case r.metrics <- m.(*colmetricpb.ExportMetricsServiceRequest):
		default:
		}
	})
	handle("/v1/traces", func() proto.Message { return &coltracepb.ExportTraceServiceRequest{} }, func(m proto.Message) {
		select {
		case r.traces <- m.(*coltracepb.ExportTraceServiceRequest):
		default:
		}
	})
	srv := testkit.NewServer(t, mux)
	return r, srv.URL
}

// attrs flattens OTLP attributes to strings.
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.GetStringValue()
	}
	return m
}

// `mcpkit serve --http` with OTEL_EXPORTER_OTLP_ENDPOINT exports its metrics
// and traces over OTLP/HTTP: the receiver decodes a tools/call's
// mcp.server.operation.duration point and its server span, under the service
// name of OTEL_SERVICE_NAME.
func TestOTLPExportReachesCollector(t *testing.T) {
	recv, endpoint := newOTLPReceiver(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	serveAndCallEcho(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_SERVICE_NAME=otlp-test",
		"OTEL_METRIC_EXPORT_INTERVAL=200", "OTEL_BSP_SCHEDULE_DELAY=100")

	var sawMetric, sawSpan bool
	for !sawMetric || !sawSpan {
		select {
		case <-ctx.Done():
			t.Fatalf("no OTLP export with the tool call (metric %v, span %v)", sawMetric, sawSpan)
		case req := <-recv.metrics:
			for _, rm := range req.ResourceMetrics {
				if attrs(rm.Resource.GetAttributes())["service.name"] != "otlp-test" {
					t.Errorf("metrics resource %v: want service.name otlp-test", rm.Resource)
				}
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						if m.Name != "mcp.server.operation.duration" || m.Unit != "s" {
							continue
						}
						for _, dp := range m.GetHistogram().GetDataPoints() {
							a := attrs(dp.Attributes)
							if a["gen_ai.tool.name"] == "echo" && a["mcp.method.name"] == "tools/call" &&
								a["gen_ai.operation.name"] == "execute_tool" && a["network.transport"] == "tcp" &&
								a["mcp.protocol.version"] != "" && dp.Count >= 1 {
								sawMetric = true
							}
						}
					}
				}
			}
		case req := <-recv.traces:
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						if s.Name == "tools/call echo" && s.Kind == tracepb.Span_SPAN_KIND_SERVER && attrs(s.Attributes)["gen_ai.tool.name"] == "echo" {
							sawSpan = true
						}
					}
				}
			}
		}
	}
}

// An HTTP tap with --metrics-addr counts what it relays.
func TestTapMetrics(t *testing.T) {
	upstream := serveHTTPForTest(t)
	port := testkit.FreePort(t)
	tapURL, stop := startHTTPTapArgs(t, []string{"tap", "--listen", "127.0.0.1:0", "--upstream", upstream + "/mcp",
		"--metrics-addr", "127.0.0.1:" + strconv.Itoa(port)})
	defer stop()
	if out, errOut, code := runURL(t, tapURL, "call", "echo", `{"message":"hi"}`); code != 0 || out != "hello hi\n" {
		t.Fatalf("call through the tap: %q %q %d", out, errOut, code)
	}
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`mcpkit_tap_messages_total{mcpkit_tap_direction="client_to_server"`,
		`mcpkit_tap_jsonrpc_messages_total{jsonrpc_message_type="request"`,
	} {
		i := strings.Index(string(body), want)
		if i < 0 {
			t.Fatalf("no %s in:\n%s", want, body)
		}
		line := string(body[i:])
		line = line[:strings.IndexByte(line, '\n')]
		if v := line[strings.LastIndexByte(line, ' ')+1:]; v == "0" {
			t.Errorf("%s: 0 after a call", line)
		}
	}
}

// clearOTelEnv unsets the variables that turn the OTLP export on.
func clearOTelEnv(t *testing.T) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		t.Setenv(k, "")
	}
}

// Without OTEL_* and --metrics-addr nothing is installed: the server keeps
// the mcp package's path without middleware (nothing is paid when off).
func TestTelemetryOffInstallsNothing(t *testing.T) {
	clearOTelEnv(t)
	tel, err := startTelemetry(t.Context(), &telemetryFlags{}, "mcpkit test")
	if err != nil {
		t.Fatal(err)
	}
	mws, err := tel.middleware(otelmcp.TransportTCP)
	if err != nil || mws != nil || tel.meter() != nil {
		t.Fatalf("telemetry off: %d middleware, meter %v, %v", len(mws), tel.meter(), err)
	}
	if err := tel.observeTap(nil); err != nil {
		t.Fatal(err)
	}
}

// The OTEL_* variables the CLI cannot honour are refused with a message
// naming them, not ignored.
func TestTelemetryEnvErrors(t *testing.T) {
	for _, c := range []struct {
		env   map[string]string
		flags telemetryFlags
		want  string
	}{
		{map[string]string{"OTEL_METRICS_EXPORTER": "console"}, telemetryFlags{}, "OTEL_METRICS_EXPORTER=console"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, telemetryFlags{}, "OTEL_TRACES_EXPORTER=zipkin"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, telemetryFlags{}, `"http/json"`},
		{map[string]string{"OTEL_SDK_DISABLED": "true"}, telemetryFlags{metricsAddr: "127.0.0.1:0"}, "OTEL_SDK_DISABLED"},
	} {
		t.Run(c.want, func(t *testing.T) {
			clearOTelEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			_, err := startTelemetry(t.Context(), &c.flags, "mcpkit test")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want it to name %s", err, c.want)
			}
		})
	}
}

// `mcpkit host` with OTEL_EXPORTER_OTLP_ENDPOINT exports, by the time it
// exits, its tool call to the server (mcp.client.operation.duration, over a
// pipe) and the server's state.
func TestHostExportsClientMetrics(t *testing.T) {
	recv, endpoint := newOTLPReceiver(t)
	llm := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("Adding.", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":2,"b":3}`})},
		llmtest.Reply{Body: llmtest.OpenAI("2 + 3 = 5")})
	env := append(openAIEnv(llm), "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_TRACES_EXPORTER=none")
	if out, errOut, code := runHostCmd(t, env, "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "-p", "add 2 and 3", "--yes"); code != 0 || out != "2 + 3 = 5\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	// The last export was sent before the host exited: every one is here.
	var sawCall, sawState bool
	for len(recv.metrics) > 0 {
		for _, rm := range (<-recv.metrics).ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					switch m.Name {
					case "mcp.client.operation.duration":
						for _, dp := range m.GetHistogram().GetDataPoints() {
							a := attrs(dp.Attributes)
							sawCall = sawCall || (a["gen_ai.tool.name"] == "add" && a["network.transport"] == "pipe" && dp.Count == 1)
						}
					case "mcpkit.upstream.servers":
						for _, dp := range m.GetGauge().GetDataPoints() {
							sawState = sawState || attrs(dp.Attributes)["mcpkit.upstream.name"] != ""
						}
					}
				}
			}
		}
	}
	if !sawCall || !sawState {
		t.Fatalf("exported: the tool call %v, the server's state %v", sawCall, sawState)
	}
	if len(recv.traces) > 0 {
		t.Error("traces exported with OTEL_TRACES_EXPORTER=none")
	}
}

// grpcMetrics is an OTLP/gRPC metrics collector for a test.
type grpcMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
	got chan *colmetricpb.ExportMetricsServiceRequest
}

func (g *grpcMetrics) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	select {
	case g.got <- req:
	default:
	}
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the metrics reach a gRPC collector.
func TestOTLPExportOverGRPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	collector := &grpcMetrics{got: make(chan *colmetricpb.ExportMetricsServiceRequest, 100)}
	gs := grpc.NewServer()
	colmetricpb.RegisterMetricsServiceServer(gs, collector)
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	serveAndCallEcho(t, "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+ln.Addr().String(), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
		"OTEL_TRACES_EXPORTER=none", "OTEL_METRIC_EXPORT_INTERVAL=200")
	for {
		select {
		case <-ctx.Done():
			t.Fatal("no mcp.server.operation.duration of the call reached the gRPC collector")
		case req := <-collector.got:
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						for _, dp := range m.GetHistogram().GetDataPoints() {
							if m.Name == "mcp.server.operation.duration" && attrs(dp.Attributes)["gen_ai.tool.name"] == "echo" {
								return
							}
						}
					}
				}
			}
		}
	}
}
