// Command apps serves an MCP App: a tool whose result a host shows as a live
// temperature chart, drawn by a hand-written HTML view (view.html, embedded).
//
//   - temperature_chart (for the model and the view) returns the last readings
//     of a city's sensor: the points in structuredContent, for the view, and a
//     one-line summary in content, for the model and for hosts without views;
//   - temperature_next (for the view only) returns the reading after a given
//     one: the view calls it every second, through the host, to extend the
//     chart;
//   - ui://temperature/chart.html is the view; it loads the App class of
//     @modelcontextprotocol/ext-apps from unpkg.com, which its CSP declares.
//
// The readings are simulated, and deterministic: reading n of a city is a
// sine wave around a base temperature derived from the city's name.
//
// Run it:
//
//	go run ./examples/apps                          # Streamable HTTP at http://127.0.0.1:8080/mcp until Ctrl-C
//	go run ./examples/apps -addr 127.0.0.1:0 -demo  # start, list and call as two clients would, stop
//
// A host that renders MCP Apps (Claude, VS Code, Goose, MCPJam, ...) pointed at
// the URL shows the chart when the model calls temperature_chart.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

//go:embed view.html
var views embed.FS

// viewURI names the chart view.
const viewURI = "ui://temperature/chart.html"

// ChartInput is the input of temperature_chart.
type ChartInput struct {
	City   string `json:"city" jsonschema:"The city whose sensor to read."`
	Points int    `json:"points,omitempty" jsonschema:"How many of the last readings to return (default 24, at most 240)."`
}

// NextInput is the input of temperature_next.
type NextInput struct {
	City  string `json:"city" jsonschema:"The city whose sensor to read."`
	After int    `json:"after" jsonschema:"The number of the last reading the view has."`
}

// Point is one reading: its number and its temperature.
type Point struct {
	N       int     `json:"n"`
	Celsius float64 `json:"celsius"`
}

// Chart is what temperature_chart returns: the view draws it.
type Chart struct {
	City   string  `json:"city"`
	Unit   string  `json:"unit"`
	Points []Point `json:"points"`
}

// TextFallback says in words what the chart shows.
func (c Chart) TextFallback() string {
	if len(c.Points) == 0 {
		return c.City + ": no readings"
	}
	lo, hi := c.Points[0].Celsius, c.Points[0].Celsius
	for _, p := range c.Points {
		lo, hi = min(lo, p.Celsius), max(hi, p.Celsius)
	}
	last := c.Points[len(c.Points)-1]
	return fmt.Sprintf("%s: %d readings, min %.1f °C, max %.1f °C, last %.1f °C (reading %d)", c.City, len(c.Points), lo, hi, last.Celsius, last.N)
}

// Next is what temperature_next returns.
type Next struct {
	Point Point `json:"point"`
}

// TextFallback says the reading in words.
func (n Next) TextFallback() string {
	return fmt.Sprintf("reading %d: %.1f °C", n.Point.N, n.Point.Celsius)
}

// latest is the number of the newest reading temperature_chart returns.
const latest = 1000

// reading returns reading n of city's simulated sensor.
func reading(city string, n int) Point {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(city)))
	base := 5 + float64(h.Sum32()%200)/10 // 5.0 to 24.9 °C
	c := base + 4*math.Sin(float64(n)/4) + 1.5*math.Sin(float64(n)/1.7)
	return Point{N: n, Celsius: math.Round(c*10) / 10}
}

// newServer returns the server: the view, and the two tools linked to it.
func newServer() (*mcp.Server, error) {
	srv := mcp.NewServer(mcp.Implementation{Name: "apps-example", Version: "1.0.0"},
		&mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Middleware()}})
	border := true
	err := errors.Join(
		apps.AddResource(srv, &apps.Resource{
			URI: viewURI, Name: "temperature_chart", Title: "Temperature chart",
			Description: "A live chart of a city's temperature readings",
			FS:          views, Path: "view.html",
			Meta: apps.ResourceMeta{
				// The view imports the App class from unpkg.com; nothing else.
				CSP:           &apps.CSP{ResourceDomains: []string{"https://unpkg.com"}},
				PrefersBorder: &border,
			},
		}),
		apps.AddTool(srv, &protocol.Tool{Name: "temperature_chart", Title: "Temperature chart",
			Description: "Shows the last temperature readings of a city's sensor as a live chart."},
			apps.ToolMeta{ResourceURI: viewURI},
			func(ctx context.Context, req *mcp.ToolRequest, in ChartInput) (Chart, error) {
				n := in.Points
				if n <= 0 {
					n = 24
				}
				if n > 240 {
					return Chart{}, fmt.Errorf("points: at most 240, not %d", n)
				}
				c := Chart{City: in.City, Unit: "°C", Points: make([]Point, 0, n)}
				for i := latest - n + 1; i <= latest; i++ {
					c.Points = append(c.Points, reading(in.City, i))
				}
				return c, nil
			}),
		apps.AddTool(srv, &protocol.Tool{Name: "temperature_next",
			Description: "Returns the reading after the given one (the chart view polls it)."},
			apps.ToolMeta{ResourceURI: viewURI, Visibility: []apps.Visibility{apps.App}},
			func(ctx context.Context, req *mcp.ToolRequest, in NextInput) (Next, error) {
				return Next{Point: reading(in.City, in.After+1)}, nil
			}),
	)
	return srv, err
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	demo := flag.Bool("demo", false, "list and call the tools as a host with views and as a plain client would, then stop")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *demo); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr string, demo bool) error {
	srv, err := newServer()
	if err != nil {
		return err
	}
	ln, err := mcpkit.Listen(addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Printf("serving MCP Apps at %s\n", url)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, srv, nil) }()
	if demo {
		err = errors.Join(showHost(ctx, url), showPlain(ctx, url))
		stop() // the server shuts down as it would on SIGTERM
	}
	// Serve returns once the shutdown is done: nil when it finished in time.
	return errors.Join(err, <-served)
}

// showHost does what a host that renders views does: it declares the
// extension, finds the view of temperature_chart, reads it, and calls the tool.
func showHost(ctx context.Context, url string) error {
	client := mcp.NewClient(mcp.Implementation{Name: "apps-demo-host", Version: "1.0.0"}, &mcp.ClientOptions{
		Extensions: map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()},
	})
	cs, err := mcpkit.ConnectURL(ctx, client, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Printf("host connected, protocol %s\n", cs.ProtocolVersion())
	for _, t := range res.Tools {
		fmt.Printf("host sees tool %s, _meta.ui %v\n", t.Name, t.Meta["ui"])
	}
	view, err := cs.ReadResource(ctx, viewURI)
	if err != nil {
		return err
	}
	c := view.Contents[0]
	fmt.Printf("host reads %s: %s, %d bytes of HTML, _meta.ui %v\n", c.URI, c.MimeType, len(c.Text), c.Meta["ui"])
	chart, out, err := mcp.CallToolAs[Chart](ctx, cs, "temperature_chart", ChartInput{City: "Lyon", Points: 12})
	if err != nil {
		return err
	}
	fmt.Printf("host calls temperature_chart: %d points for the view; text: %s\n", len(chart.Points), out.Content[0].Text)
	next, _, err := mcp.CallToolAs[Next](ctx, cs, "temperature_next", NextInput{City: "Lyon", After: latest})
	if err != nil {
		return err
	}
	fmt.Printf("the view polls temperature_next: reading %d is %.1f °C\n", next.Point.N, next.Point.Celsius)
	return nil
}

// showPlain does what a client without views does: it sees plain tools.
func showPlain(ctx context.Context, url string) error {
	client := mcp.NewClient(mcp.Implementation{Name: "apps-demo-plain", Version: "1.0.0"}, nil)
	cs, err := mcpkit.ConnectURL(ctx, client, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range res.Tools {
		fmt.Printf("plain client sees tool %s, _meta %v\n", t.Name, t.Meta)
	}
	out, err := cs.CallTool(ctx, "temperature_chart", ChartInput{City: "Lyon", Points: 12})
	if err != nil {
		return err
	}
	fmt.Printf("plain client reads: %s\n", out.Content[0].Text)
	return nil
}
