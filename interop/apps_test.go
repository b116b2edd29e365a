package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file proves mcpkit's MCP Apps against @modelcontextprotocol/ext-apps
// (pinned in package.json): what examples/apps serves is checked against the
// package's published schemas and constants (apps_check.mjs), and its view is
// loaded by the package's App class in headless Chromium, against the host
// bridge of apps_host.html (apps_chromium_test.go).

// appsViewURI is the view of examples/apps.
const appsViewURI = "ui://temperature/chart.html"

// startAppsExample builds and starts examples/apps on a free port, stopped at
// cleanup, and returns its MCP endpoint.
func startAppsExample(t *testing.T, ctx context.Context) string {
	t.Helper()
	bin := buildProgram(t, "github.com/mcpkit/mcpkit/examples/apps")
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	return testkit.StartAnnounced(t, ctx, cmd, stdout, "serving MCP Apps at ")
}

// connectAsHost connects to url as a host that renders views, at version ("" lets
// the client detect the era).
func connectAsHost(t *testing.T, ctx context.Context, url, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(protocol.Implementation{Name: "apps-interop", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		Extensions:      map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()},
	})
	cs, err := mcpkit.ConnectURL(ctx, client, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// appsWire is what the check script reads: what the server sent, as JSON.
type appsWire struct {
	Tools          []json.RawMessage `json:"tools"`
	Resources      []json.RawMessage `json:"resources"`
	Contents       []json.RawMessage `json:"contents"`
	ToolResult     json.RawMessage   `json:"toolResult"`
	ClientSettings map[string]any    `json:"clientSettings"`
}

// appsReport is what apps_check.mjs prints.
type appsReport struct {
	Checks    int               `json:"checks"`
	Problems  []string          `json:"problems"`
	Constants map[string]string `json:"constants"`
}

// fetchAppsWire lists, reads and calls as a host would, keeping the server's JSON.
func fetchAppsWire(t *testing.T, ctx context.Context, cs *mcp.ClientSession) appsWire {
	t.Helper()
	w := appsWire{ClientSettings: apps.ClientSettings()}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		w.Tools = append(w.Tools, mustJSON(t, tool))
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		w.Resources = append(w.Resources, mustJSON(t, r))
	}
	read, err := cs.ReadResource(ctx, appsViewURI)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range read.Contents {
		w.Contents = append(w.Contents, mustJSON(t, c))
	}
	w.ToolResult, err = cs.CallToolRaw(ctx, &protocol.CallToolParams{Name: "temperature_chart", Arguments: json.RawMessage(`{"city":"Lyon","points":12}`)})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAppsWire runs apps_check.mjs on w.
func checkAppsWire(t *testing.T, node string, w appsWire) appsReport {
	t.Helper()
	file := filepath.Join(t.TempDir(), "wire.json")
	if err := os.WriteFile(file, mustJSON(t, w), 0o600); err != nil {
		t.Fatal(err)
	}
	var report appsReport
	stderr, err := runNodeReport(t, nil, &report, node, "apps_check.mjs", file)
	if err != nil {
		t.Fatalf("apps_check.mjs: %v\n%s", err, stderr)
	}
	return report
}

// TestAppsMatchExtAppsTypes checks what examples/apps serves, in both eras,
// against the schemas and constants of @modelcontextprotocol/ext-apps; and,
// to show the check can fail, a copy with the mistakes a server could make.
func TestAppsMatchExtAppsTypes(t *testing.T) {
	node := requirePeers(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	url := startAppsExample(t, ctx)
	for _, version := range []string{legacyVersions[0], protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			cs := connectAsHost(t, ctx, url, version)
			if cs.ProtocolVersion() != version {
				t.Fatalf("negotiated %s", cs.ProtocolVersion())
			}
			w := fetchAppsWire(t, ctx, cs)
			report := checkAppsWire(t, node, w)
			if len(report.Problems) > 0 || report.Checks < 15 {
				t.Errorf("%d checks, problems:\n\t%s", report.Checks, strings.Join(report.Problems, "\n\t"))
			}
			want := map[string]string{"EXTENSION_ID": apps.ExtensionID, "RESOURCE_MIME_TYPE": apps.MIMEType, "RESOURCE_URI_META_KEY": apps.LegacyResourceURIKey}
			for k, v := range want {
				if report.Constants[k] != v {
					t.Errorf("ext-apps %s = %q, mcpkit has %q", k, report.Constants[k], v)
				}
			}
		})
	}

	t.Run("broken", func(t *testing.T) {
		cs := connectAsHost(t, ctx, url, "")
		w := fetchAppsWire(t, ctx, cs)
		w.Tools = []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://temperature/chart.html","visibility":["user"],"colour":"red"}}}`)}
		w.Contents = []json.RawMessage{json.RawMessage(`{"uri":"ui://temperature/chart.html","mimeType":"text/html","text":"<p>hi</p>","_meta":{"ui":{"prefersBorder":"yes","csp":{"scriptDomains":["x"]}}}}`)}
		w.ClientSettings = map[string]any{"mimeTypes": []string{"text/html"}}
		report := checkAppsWire(t, node, w)
		for _, want := range []string{
			`tool t _meta.ui: [`,                                   // visibility "user"
			`tool t _meta.ui: key "colour"`,                        // not in McpUiToolMeta
			`_meta["ui/resourceUri"] = undefined`,                  // the flat key missing
			`mimeType "text/html", want text/html;profile=mcp-app`, // wrong type
			`_meta.ui: [`,                                 // prefersBorder not a boolean
			`_meta.ui.csp: key "scriptDomains"`,           // not in McpUiResourceCsp
			`is not an HTML5 document`,                    //
			`getUiCapability of mcpkit's client settings`, //
		} {
			if !slices.ContainsFunc(report.Problems, func(p string) bool { return strings.Contains(p, want) }) {
				t.Errorf("no problem mentions %q; problems:\n\t%s", want, strings.Join(report.Problems, "\n\t"))
			}
		}
	})
}
