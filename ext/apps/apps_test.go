package apps_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

type cityIn struct {
	City string `json:"city"`
}

type reading struct {
	City    string    `json:"city"`
	Celsius []float64 `json:"celsius"`
}

func (r reading) TextFallback() string { return fmt.Sprintf("%s: %v °C", r.City, r.Celsius) }

const page = `<!DOCTYPE html><html><head><title>t</title></head><body>chart</body></html>`

// newServer registers a view, a tool linked to it and a view-only tool.
func newServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "apps", Version: "1"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Middleware()}})
	border := true
	must(t, apps.AddResource(srv, &apps.Resource{URI: "ui://weather/chart.html", Name: "chart", HTML: page,
		Meta: apps.ResourceMeta{CSP: &apps.CSP{ResourceDomains: []string{"https://cdn.example.com"}}, Permissions: &apps.Permissions{ClipboardWrite: true}, Domain: "chart.example.com", PrefersBorder: &border}}))
	must(t, srv.AddResource(&protocol.Resource{URI: "file:///notes.txt", Name: "notes"}, func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{protocol.NewTextResourceContents("file:///notes.txt", "text/plain", "n")}}, nil
	}))
	must(t, apps.AddTool(srv, &protocol.Tool{Name: "weather", Description: "Temperatures of a city", Meta: protocol.Meta{"keep": "me"}},
		apps.ToolMeta{ResourceURI: "ui://weather/chart.html"},
		func(ctx context.Context, req *mcp.ToolRequest, in cityIn) (reading, error) {
			return reading{City: in.City, Celsius: []float64{12, 14.5}}, nil
		}))
	must(t, apps.AddTool(srv, &protocol.Tool{Name: "poll"}, apps.ToolMeta{ResourceURI: "ui://weather/chart.html", Visibility: []apps.Visibility{apps.App}},
		func(ctx context.Context, req *mcp.ToolRequest, in cityIn) (map[string]any, error) {
			return map[string]any{"next": 15.0}, nil
		}))
	must(t, srv.AddRawTool(&protocol.Tool{Name: "plain"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText("p"), nil
	}))
	return srv
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var eras = []string{protocol.LatestLegacy, protocol.Version20260728}

func connect(t *testing.T, srv *mcp.Server, version string, ui bool) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{ProtocolVersion: version}
	if ui {
		opts.Extensions = map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()}
	}
	cs, _, err := mcptest.TryConnect(t, srv, mcptest.NewClient(opts), nil)
	must(t, err)
	return cs
}

func listTools(t *testing.T, cs *mcp.ClientSession) map[string]protocol.Tool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	must(t, err)
	m := map[string]protocol.Tool{}
	for _, tool := range res.Tools {
		m[tool.Name] = tool
	}
	return m
}

func TestClientWithTheExtensionSeesViews(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, newServer(t), version, true)
			ctx := t.Context()
			if settings, ok := cs.ServerExtension(apps.ExtensionID); !ok || len(settings) != 0 {
				t.Errorf("the server declares %v, %v; want the extension, with no settings", settings, ok)
			}
			tools := listTools(t, cs)
			if len(tools) != 3 {
				t.Fatalf("tools = %v, want weather, poll and plain", tools)
			}
			w, _ := json.Marshal(tools["weather"].Meta)
			if string(w) != `{"keep":"me","ui":{"resourceUri":"ui://weather/chart.html"},"ui/resourceUri":"ui://weather/chart.html"}` {
				t.Errorf("weather _meta = %s", w)
			}
			p, _ := json.Marshal(tools["poll"].Meta)
			if string(p) != `{"ui":{"resourceUri":"ui://weather/chart.html","visibility":["app"]},"ui/resourceUri":"ui://weather/chart.html"}` {
				t.Errorf("poll _meta = %s", p)
			}
			if !strings.Contains(string(tools["weather"].OutputSchema), `"celsius"`) {
				t.Errorf("weather outputSchema = %s, want one inferred from the output type", tools["weather"].OutputSchema)
			}

			res, err := cs.ListResources(ctx, nil)
			must(t, err)
			if len(res.Resources) != 2 || res.Resources[1].URI != "ui://weather/chart.html" || res.Resources[1].MimeType != apps.MIMEType {
				t.Fatalf("resources = %+v", res.Resources)
			}
			const wantMeta = `{"ui":{"csp":{"resourceDomains":["https://cdn.example.com"]},"domain":"chart.example.com","permissions":{"clipboardWrite":{}},"prefersBorder":true}}`
			if m, _ := json.Marshal(res.Resources[1].Meta); string(m) != wantMeta {
				t.Errorf("listed view _meta = %s", m)
			}
			read, err := cs.ReadResource(ctx, "ui://weather/chart.html")
			must(t, err)
			c := read.Contents[0]
			if c.Text != page || c.MimeType != apps.MIMEType || c.URI != "ui://weather/chart.html" {
				t.Errorf("read = %+v", c)
			}
			if m, _ := json.Marshal(c.Meta); string(m) != wantMeta {
				t.Errorf("read view _meta = %s", m)
			}

			out, err := cs.CallTool(ctx, "weather", cityIn{City: "Lyon"})
			must(t, err)
			sc, _ := json.Marshal(out.StructuredContent)
			if string(sc) != `{"celsius":[12,14.5],"city":"Lyon"}` || len(out.Content) != 1 || out.Content[0].Text != "Lyon: [12 14.5] °C" {
				t.Errorf("weather result: structuredContent %s, content %+v", sc, out.Content)
			}
			if _, err := cs.CallTool(ctx, "poll", cityIn{City: "Lyon"}); err != nil {
				t.Errorf("the view-only tool, called by a client that renders views: %v", err)
			}
		})
	}
}

func TestClientWithoutTheExtensionGetsPlainTools(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			srv := newServer(t)
			cs := connect(t, srv, version, false)
			ctx := t.Context()
			tools := listTools(t, cs)
			if _, ok := tools["poll"]; ok || len(tools) != 2 {
				t.Fatalf("tools = %v, want weather and plain (poll is for views only)", tools)
			}
			if m, _ := json.Marshal(tools["weather"].Meta); string(m) != `{"keep":"me"}` {
				t.Errorf("weather _meta = %s, want only the tool's own keys", m)
			}
			res, err := cs.ListResources(ctx, nil)
			must(t, err)
			if len(res.Resources) != 1 || res.Resources[0].URI != "file:///notes.txt" {
				t.Errorf("resources = %+v, want the view left out", res.Resources)
			}
			out, err := cs.CallTool(ctx, "weather", cityIn{City: "Oslo"})
			if err != nil || out.Content[0].Text != "Oslo: [12 14.5] °C" {
				t.Errorf("weather: %+v, %v; want the text fallback", out, err)
			}
			out, err = cs.CallTool(ctx, "poll", cityIn{City: "Oslo"})
			if err != nil || !out.IsError || !strings.Contains(out.Content[0].Text, `tool "poll" is for MCP Apps views only`) {
				t.Errorf("poll: %+v, %v; want an isError result", out, err)
			}
			// The registry itself is untouched: a client with the extension,
			// connected afterwards, still sees everything.
			if tools := listTools(t, connect(t, srv, version, true)); len(tools) != 3 || tools["weather"].Meta["ui"] == nil {
				t.Errorf("after a plain client listed: %v", tools)
			}
		})
	}
}

func TestViewFromFS(t *testing.T) {
	fsys := fstest.MapFS{"view/index.html": {Data: []byte(page)}, "big.html": {Data: make([]byte, 8<<20+1)}}
	srv := mcp.NewServer(protocol.Implementation{Name: "apps", Version: "1"}, nil)
	must(t, apps.AddResource(srv, &apps.Resource{URI: "ui://fs/index.html", FS: fsys, Path: "view/index.html"}))
	cs := connect(t, srv, protocol.LatestLegacy, true)
	read, err := cs.ReadResource(t.Context(), "ui://fs/index.html")
	if err != nil || read.Contents[0].Text != page {
		t.Errorf("read = %+v, %v", read, err)
	}

	for _, c := range []struct {
		r    apps.Resource
		want string
	}{
		{apps.Resource{URI: "https://x/y", HTML: page}, `must start with "ui://"`},
		{apps.Resource{URI: "ui://", HTML: page}, `must start with "ui://"`},
		{apps.Resource{URI: "ui://a"}, "no HTML"},
		{apps.Resource{URI: "ui://a", FS: fsys, Path: "missing.html"}, "file does not exist"},
		{apps.Resource{URI: "ui://a", FS: fsys, Path: "view"}, "is a directory"},
		{apps.Resource{URI: "ui://a", FS: fsys, Path: "big.html"}, "more than the 8388608 a view may"},
	} {
		if err := apps.AddResource(srv, &c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddResource(%+v): %v, want %q", c.r.URI+" "+c.r.Path, err, c.want)
		}
	}
}

func TestToolMetaIsChecked(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "apps", Version: "1"}, nil)
	h := func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) { return nil, nil }
	for _, c := range []struct {
		ui   apps.ToolMeta
		want string
	}{
		{apps.ToolMeta{ResourceURI: "https://x"}, `does not start with "ui://"`},
		{apps.ToolMeta{ResourceURI: "ui://x", Visibility: []apps.Visibility{"user"}}, `unknown visibility "user"`},
		{apps.ToolMeta{}, "names no view and no visibility"},
	} {
		if err := apps.AddRawTool(srv, &protocol.Tool{Name: "t"}, c.ui, h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddRawTool(%+v): %v, want %q", c.ui, err, c.want)
		}
	}
}

func TestPermissionsJSON(t *testing.T) {
	p := apps.Permissions{Camera: true, Geolocation: true}
	b, err := json.Marshal(p)
	if err != nil || string(b) != `{"camera":{},"geolocation":{}}` {
		t.Fatalf("%s, %v", b, err)
	}
	var back apps.Permissions
	if err := json.Unmarshal(b, &back); err != nil || back != p {
		t.Errorf("%+v, %v", back, err)
	}
	if b, _ := json.Marshal(apps.Permissions{}); string(b) != `{}` {
		t.Errorf("none = %s", b)
	}
}
