package apps_test

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// Gauge is the output of the example's tool: the view draws it, and its text
// fallback is what the model and hosts without views read.
type Gauge struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
}

// TextFallback says what the gauge shows.
func (g Gauge) TextFallback() string { return fmt.Sprintf("%s is at %.0f%%", g.Label, g.Value) }

// A server with a view and a tool linked to it. A host that declares the
// extension sees the link and reads the view; a plain client sees a plain tool.
func Example() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "gauges", Version: "1"},
		&mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Middleware()}})
	border := false
	if err := apps.AddResource(srv, &apps.Resource{
		URI:  "ui://gauges/disk.html",
		HTML: `<!DOCTYPE html><html><body><script type="module">/* draws the gauge */</script></body></html>`,
		Meta: apps.ResourceMeta{PrefersBorder: &border},
	}); err != nil {
		panic(err)
	}
	if err := apps.AddTool(srv, &protocol.Tool{Name: "disk_usage", Description: "How full the disk is"},
		apps.ToolMeta{ResourceURI: "ui://gauges/disk.html"},
		func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (Gauge, error) {
			return Gauge{Label: "disk", Value: 73}, nil
		}); err != nil {
		panic(err)
	}

	connect := func(opts *mcp.ClientOptions) *mcp.ClientSession {
		c, s := memory.NewPair()
		if _, err := srv.Connect(ctx, s); err != nil {
			panic(err)
		}
		cs, err := mcp.NewClient(protocol.Implementation{Name: "host", Version: "1"}, opts).Connect(ctx, c)
		if err != nil {
			panic(err)
		}
		return cs
	}

	host := connect(&mcp.ClientOptions{Extensions: map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()}})
	defer host.Close()
	tools, _ := host.ListTools(ctx, nil)
	fmt.Println("host:", tools.Tools[0].Name, tools.Tools[0].Meta["ui"])
	view, _ := host.ReadResource(ctx, "ui://gauges/disk.html")
	fmt.Println("host:", view.Contents[0].MimeType, view.Contents[0].Meta["ui"])
	res, _ := host.CallTool(ctx, "disk_usage", nil)
	fmt.Println("host:", res.StructuredContent, "/", res.Content[0].Text)

	plain := connect(nil)
	defer plain.Close()
	tools, _ = plain.ListTools(ctx, nil)
	fmt.Println("plain:", tools.Tools[0].Name, tools.Tools[0].Meta)
	// Output:
	// host: disk_usage map[resourceUri:ui://gauges/disk.html]
	// host: text/html;profile=mcp-app map[prefersBorder:false]
	// host: map[label:disk value:73] / disk is at 73%
	// plain: disk_usage map[]
}
