//go:build unix

package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/internal/testkit/chromium"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// appsBundleURL is where examples/apps' view imports the App class from; the
// test answers it with the pinned package's file, so that nothing leaves the
// machine and the class is exactly the pinned one.
const appsBundleURL = "https://unpkg.com/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js"

// appsHost is the Go side of apps_host.html: it serves the page, the view the
// server gave, the tool call the "model" made, and forwards the view's
// tools/call to the server, refusing tools whose visibility lacks "app".
type appsHost struct {
	t     *testing.T
	cs    *mcp.ClientSession
	view  string
	start []byte
	tools map[string]protocol.Tool

	mu    sync.Mutex
	calls []string // the tools the view called, in order
	// The first temperature_next is held, as a slow server would hold it,
	// until another call arrives or holdFor passes: a view polling on a
	// timer must not call again while it waits (overlapping calls added the
	// same reading twice).
	holdFor  time.Duration
	held     bool
	inFlight int
	overlap  bool          // a call arrived while another was in flight
	release  chan struct{} // closed by the call that overlaps the held one
}

// arrive records a call to tool and returns, for the first temperature_next,
// the channel that ends its hold.
func (h *appsHost) arrive(tool string) (release chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, tool)
	h.inFlight++
	if h.inFlight > 1 {
		h.overlap = true
		if h.release != nil {
			close(h.release)
			h.release = nil
		}
	}
	if tool == "temperature_next" && !h.held {
		h.held = true
		h.release = make(chan struct{})
		return h.release
	}
	return nil
}

func (h *appsHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		http.ServeFile(w, r, "apps_host.html")
	case "/view":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(h.view))
	case "/start":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(h.start)
	case "/call":
		var p protocol.CallToolParams
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if release := h.arrive(p.Name); release != nil {
			select {
			case <-release:
			case <-time.After(h.holdFor):
			case <-r.Context().Done():
			}
		}
		defer func() {
			h.mu.Lock()
			h.inFlight--
			h.mu.Unlock()
		}()
		w.Header().Set("Content-Type", "application/json")
		tool, ok := h.tools[p.Name]
		ui, _ := tool.Meta["ui"].(map[string]any)
		vis, _ := ui["visibility"].([]any)
		if !ok || (len(vis) > 0 && !slices.Contains(vis, any(string(apps.App)))) {
			// What the specification asks of a host: no tools/call from a view
			// for a tool that is not visible to apps.
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": -32602, "message": "tool " + p.Name + " is not available to apps"}})
			return
		}
		raw, err := h.cs.CallToolRaw(r.Context(), &p)
		if err != nil {
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": -32603, "message": err.Error()}})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]json.RawMessage{"result": raw})
	default:
		http.NotFound(w, r)
	}
}

func (h *appsHost) called() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// TestAppsViewInChromium loads examples/apps' view, as the server serves it, in
// a sandboxed iframe of a host page in headless Chromium. The view's App class
// (the pinned @modelcontextprotocol/ext-apps) does the ui/initialize handshake
// with the page, receives the tool's input and result, draws the chart, and
// then polls the view-only tool through the page, which forwards to the
// server. The test checks the chart shows the server's readings and saves a
// screenshot (MCPKIT_APPS_SCREENSHOT=path keeps it).
func TestAppsViewInChromium(t *testing.T) {
	requirePeers(t)
	bundle, err := os.ReadFile(filepath.Join("node_modules", "@modelcontextprotocol", "ext-apps", "dist", "src", "app-with-deps.js"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	url := startAppsExample(t, ctx)
	cs := connectAsHost(t, ctx, url, "")

	host := &appsHost{t: t, cs: cs, tools: map[string]protocol.Tool{}, holdFor: 2500 * time.Millisecond}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		// The host keeps _meta as JSON values, as a real host reads it.
		var back protocol.Tool
		if err := json.Unmarshal(mustJSON(t, tool), &back); err != nil {
			t.Fatal(err)
		}
		host.tools[tool.Name] = back
	}
	read, err := cs.ReadResource(ctx, appsViewURI)
	if err != nil {
		t.Fatal(err)
	}
	host.view = read.Contents[0].Text
	input := map[string]any{"city": "Lyon", "points": 12}
	result, err := cs.CallToolRaw(ctx, &protocol.CallToolParams{Name: "temperature_chart", Arguments: mustJSON(t, input)})
	if err != nil {
		t.Fatal(err)
	}
	host.start = mustJSON(t, map[string]any{"tool": "temperature_chart", "toolInput": input, "toolResult": result})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: host, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	// Chromium puts a sandboxed iframe in a process of its own, where this
	// tab's request interception and execution contexts do not reach; the
	// view's isolation is not what the test is about, so it stays in-process.
	tab := chromium.Start(t, ctx, "--disable-features=IsolateSandboxedIframes", "--disable-site-isolation-trials")
	bundleRequests := serveAppsBundle(t, tab, bundle)
	hostLog := func() string {
		v, _ := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify(window.hostLog)`))
		return v
	}
	run := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if _, err := chromedp.Run(tab, a); err != nil {
			t.Fatalf("%s: %v\nhost log: %s", what, err, hostLog())
		}
	}
	run("opening the host page", chromedp.Navigate("http://"+ln.Addr().String()+"/"))
	// The iframe's document is the view once srcdoc has loaded; before, it is
	// about:blank, whose context the view's replaces.
	run("loading the view", chromedp.Poll[chromedp.Void](`window.viewLoaded === true`, chromedp.WithPollingTimeout(20*time.Second)))
	frames, err := chromedp.Run(tab, chromedp.Nodes(chromedp.CSS("iframe#view")))
	if err != nil || len(frames) != 1 {
		t.Fatalf("the view's iframe: %v, %v", frames, err)
	}
	in := chromedp.WithPollingInFrame(frames[0])
	// drawn waits until the chart has at least n points and returns what the
	// view shows: the title, the number of points and the status line.
	drawn := func(n int) []string {
		t.Helper()
		v, err := chromedp.Run(tab, chromedp.Poll[[]string](fmt.Sprintf(`(() => {
			const line = document.getElementById("line");
			if (!line || !(+line.dataset.count >= %d)) return null;
			return [document.getElementById("title").textContent, line.dataset.count, document.getElementById("status").textContent];
		})()`, n), in, chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil || len(v) != 3 {
			t.Fatalf("waiting for a chart of %d points: %v, %v\nhost log: %s", n, v, err, hostLog())
		}
		return v
	}
	first := drawn(12)
	if first[0] != "Temperature in Lyon" {
		t.Errorf("title = %q", first[0])
	}
	if bundleRequests.Load() == 0 {
		t.Error("the view drew without fetching the App class")
	}
	// The view polls temperature_next through the host every second.
	later := drawn(14)
	count, status := later[1], later[2]
	// The status names the last reading: it must be the server's.
	var n int
	if _, err := fmt.Sscanf(count, "%d", &n); err != nil {
		t.Fatalf("count %q: %v", count, err)
	}
	last := 1000 + n - 12
	next, _, err := mcp.CallToolAs[struct {
		Point struct {
			N       int     `json:"n"`
			Celsius float64 `json:"celsius"`
		} `json:"point"`
	}](ctx, cs, "temperature_next", map[string]any{"city": "Lyon", "after": last - 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d readings, last %.1f °C (reading %d)", n, next.Point.Celsius, last); status != want {
		t.Errorf("status = %q, want %q", status, want)
	}
	calls := host.called()
	if len(calls) < 2 || slices.ContainsFunc(calls, func(c string) bool { return c != "temperature_next" }) {
		t.Errorf("the view called %v, want temperature_next, repeatedly", calls)
	}
	host.mu.Lock()
	if host.overlap {
		t.Errorf("the view called temperature_next again while a call was in flight (%v)", host.calls)
	}
	host.mu.Unlock()

	var log []map[string]any
	if err := json.Unmarshal([]byte(hostLog()), &log); err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, m := range log {
		if s, ok := m["method"].(string); ok {
			methods = append(methods, m["dir"].(string)+" "+s)
		}
	}
	for _, want := range []string{"view→host ui/initialize", "view→host ui/notifications/initialized",
		"host→view ui/notifications/tool-input", "host→view ui/notifications/tool-result", "view→host tools/call"} {
		if !slices.Contains(methods, want) {
			t.Errorf("the bridge never saw %q: %v", want, methods)
		}
	}

	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "apps-view.png")
	if keep := os.Getenv("MCPKIT_APPS_SCREENSHOT"); keep != "" {
		out = keep
	}
	if err := os.WriteFile(out, png, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes); bridge: %s", out, len(png), strings.Join(methods[:min(8, len(methods))], ", "))
}
