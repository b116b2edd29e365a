//go:build unix

package interop

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit"
)

// extStep is one step of gateway_ext_client.mjs's report.
type extStep struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

// TestGatewayExtensionsWithTypeScriptClient runs `mcpkit gateway --http --names bare`
// in front of two copies of examples/apps ("weather", and "backup" with only
// temperature_chart allowed) and mcpkit's skills server, and drives it with the
// TypeScript SDK 2.x client: the gateway declares the Apps and Skills extensions;
// both servers list the view ui://temperature/chart.html, so each one's is renamed
// to ui://mcpkit-gateway/<server>/temperature/chart.html and each temperature_chart
// (prefixed: both servers have it) links to its own; the client reads weather's
// renamed view; temperature_next (the view's tool, on weather only) keeps its bare
// name and answers; skills/list through the gateway gives the skills.
func TestGatewayExtensionsWithTypeScriptClient(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	weather := startAppsExample(t, ctx)
	backup := startAppsExample(t, ctx)

	srv, _ := mcpkitSkillsServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(sctx, ln, srv, nil) }()
	t.Cleanup(func() { scancel(); <-done })

	cfg := map[string]any{"mcpServers": map[string]any{
		"weather": map[string]any{"url": weather},
		"backup":  map[string]any{"url": backup, "allowedTools": []string{"temperature_chart"}},
		"skills":  map[string]any{"url": "http://" + ln.Addr().String() + "/mcp"},
	}}
	data, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "gateway", "--config", cfgPath, "--http", "127.0.0.1:0", "--names", "bare")
	m, _ := startAnnouncedServer(ctx, t, cmd, newEventLog(), gatewayAnnouncement)
	url := "http://" + m[1] + "/mcp"

	const view = "ui://mcpkit-gateway/weather/temperature/chart.html"
	var r struct {
		Fatal                            string   `json:"fatal"`
		Extensions                       []string `json:"extensions"`
		Tools, ReadView, CallApp, Skills extStep
	}
	stderr, waitErr := runNodeReport(t, nil, &r, node, "gateway_ext_client.mjs", url, view, "temperature_next")
	if waitErr != nil || r.Fatal != "" {
		t.Fatalf("gateway_ext_client.mjs: %v %s\n%s", waitErr, r.Fatal, stderr)
	}
	for _, id := range []string{"io.modelcontextprotocol/skills", "io.modelcontextprotocol/ui"} {
		if !slices.Contains(r.Extensions, id) {
			t.Errorf("the gateway declares %v, not %s", r.Extensions, id)
		}
	}
	for name, s := range map[string]extStep{"tools": r.Tools, "readView": r.ReadView, "callApp": r.CallApp, "skills": r.Skills} {
		if !s.OK {
			t.Errorf("%s: %s", name, s.Error)
		}
	}
	var tools map[string]*struct {
		ResourceURI string   `json:"resourceUri"`
		Visibility  []string `json:"visibility"`
	}
	_ = json.Unmarshal(r.Tools.Value, &tools)
	for server, want := range map[string]string{"weather": view, "backup": "ui://mcpkit-gateway/backup/temperature/chart.html"} {
		if tl := tools[server+"__temperature_chart"]; tl == nil || tl.ResourceURI != want {
			t.Errorf("%s__temperature_chart links %+v, want %s (tools %s)", server, tl, want, r.Tools.Value)
		}
	}
	if tl := tools["temperature_next"]; tl == nil || tl.ResourceURI != view || !slices.Equal(tl.Visibility, []string{"app"}) {
		t.Errorf("temperature_next (bare) = %+v (tools %s)", tl, r.Tools.Value)
	}
	var read struct {
		URI, MimeType string
		Bytes         int
	}
	_ = json.Unmarshal(r.ReadView.Value, &read)
	if read.URI != view || read.MimeType != "text/html;profile=mcp-app" || read.Bytes < 100 {
		t.Errorf("reading %s: %+v", view, read)
	}
	var called struct {
		IsError    bool           `json:"isError"`
		Structured map[string]any `json:"structured"`
	}
	_ = json.Unmarshal(r.CallApp.Value, &called)
	if called.IsError || called.Structured == nil {
		t.Errorf("temperature_next by its bare name: %s", r.CallApp.Value)
	}
	var sk struct {
		Supported bool     `json:"supported"`
		URIs      []string `json:"uris"`
	}
	_ = json.Unmarshal(r.Skills.Value, &sk)
	if !sk.Supported || !slices.Contains(sk.URIs, "skill://pdf-processing/SKILL.md") {
		t.Errorf("skills through the gateway: %s", r.Skills.Value)
	}
}
