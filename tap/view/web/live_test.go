//go:build unix

package web

import (
	"bytes"
	"context"
	"image/png"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/chromium"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// liveTap is an HTTP tap in front of the demo server whose records feed a hub, as
// `mcpkit tap --listen … --upstream … --web …` runs it.
type liveTap struct {
	addr string // the tap's host:port
	hub  *view.Hub
}

func startLiveTap(t *testing.T, ctx context.Context) *liveTap {
	t.Helper()
	srv, err := demo.NewServer(&demo.Options{CountInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	up := testkit.NewServer(t, h)
	upURL, _ := url.Parse(up.URL + "/mcp")

	rec, err := capture.NewRecorder(capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := tap.NewHTTPTap(tap.HTTPOptions{Upstream: upURL, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- tp.Serve(ln) }()

	hub := view.NewHub(capture.Header{Mode: "http", Listen: ln.Addr().String(), Upstream: upURL.String()}, true, timeline.Options{Schema: true})
	sub := rec.Subscribe(1024)
	fed := make(chan struct{})
	go func() { defer close(fed); hub.Run(context.WithoutCancel(ctx), sub.C) }()
	t.Cleanup(func() {
		_ = tp.Close()
		<-served
		_ = rec.Close() // ends the subscription, so Run returns
		<-fed
	})
	return &liveTap{addr: ln.Addr().String(), hub: hub}
}

// TestWebViewLive loads the page in headless Chromium on a live HTTP tap, makes
// calls through the tap with a real client and checks that they appear, that the
// filters work, that a detail opens, and what the screen shows.
func TestWebViewLive(t *testing.T) {
	ctx := testkit.Context(t)
	lt := startLiveTap(t, ctx)
	page := testkit.NewServer(t, Handler(Options{Hub: lt.hub, ReportInterval: 50 * time.Millisecond}))
	tab := chromium.Start(t, t.Context())

	step := stepper(t, tab)
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	step("load the page",
		chromedp.Navigate(page.URL+"/"),
		chromedp.Poll[chromedp.Void](`document.getElementById("state").textContent === "live"`),
		chromedp.WaitVisible(chromedp.CSS("#empty")))

	// A real client through the tap, while the page is open.
	conn, err := streamable.NewClientConn(ctx, "http://"+lt.addr+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(protocol.Implementation{Name: "web-view-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	cs, err := client.Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, "echo", map[string]any{"message": "seen in the browser"}); err != nil {
		t.Fatal(err)
	}
	step("the call appears",
		chromedp.Poll[chromedp.Void](`document.getElementById("rows").innerText.includes("tools/call")`))
	if rows := text("#rows"); !strings.Contains(rows, "initialize") {
		t.Errorf("the timeline lacks initialize:\n%s", rows)
	}
	// One more call: it arrives while the page is connected.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	step("a later call appears live",
		chromedp.Poll[chromedp.Void](`document.getElementById("rows").innerText.includes("tools/list")`))

	// Filter by method: only tools/call stays.
	step("filter by method",
		chromedp.SendKeys(chromedp.CSS("#f-method"), "tools/call"),
		chromedp.Poll[chromedp.Void](`location.search.includes("tools%2Fcall") && !document.getElementById("rows").innerText.includes("initialize") && document.getElementById("rows").innerText.includes("tools/call")`))
	if got, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.search`)); err != nil || !strings.Contains(got, "method=tools%2Fcall") {
		t.Errorf("the page's address keeps the filter: %q, %v", got, err)
	}

	// Open the detail of the call.
	step("open a detail",
		chromedp.Click(chromedp.CSS("#rows tr.entry")),
		chromedp.Poll[chromedp.Void](`document.getElementById("detail").innerText.includes("seen in the browser")`))
	detail := text("#detail")
	if !strings.Contains(detail, `"name": "echo"`) {
		t.Errorf("the detail lacks the pretty request:\n%s", detail)
	}

	// Progress folded under its request; an isError result highlighted.
	if _, err := cs.CallTool(ctx, "count", map[string]any{"n": 3}, mcp.WithProgress(func(*protocol.ProgressParams) {})); err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(ctx, "test_error_handling", nil); err != nil || !res.IsError {
		t.Fatalf("test_error_handling: %+v, %v", res, err)
	}
	step("errors only",
		chromedp.Click(chromedp.CSS("#f-clear")),
		chromedp.Click(chromedp.CSS("#f-errors")),
		chromedp.Poll[chromedp.Void](`(() => { const r = document.querySelectorAll("#rows tr.entry");
			return r.length === 1 && r[0].classList.contains("error") && r[0].innerText.includes("isError"); })()`))
	step("progress folded under its request",
		chromedp.Click(chromedp.CSS("#f-errors")),
		chromedp.Poll[chromedp.Void](`document.getElementById("rows").innerText.includes("▸+3 ")`),
		clickJS(`[...document.querySelectorAll("#rows tr.entry td.method")].find((td) => td.innerText.includes("▸+3 "))`),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#rows tr.child").length === 3 &&
			document.querySelector("#rows tr.child").innerText.includes("notifications/progress")`))
	if rows := text("#rows"); !strings.Contains(rows, "ok") || !strings.Contains(rows, " ms") {
		t.Errorf("the timeline shows no status or latency:\n%s", rows)
	}
	checkAnalysisAndTokens(t, tab, step)
	step("back to the detail", chromedp.Click(chromedp.CSS("#tab-detail")))

	shot, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, shot)
	if dir := os.Getenv("MCPKIT_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "tap-web-view.png"), shot, 0o644)
	}
}

// stepper returns a function that runs the steps of what on tab within 20 s,
// failing the test if they fail.
func stepper(t *testing.T, tab context.Context) func(what string, steps ...chromedp.Action[chromedp.Void]) {
	return func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(tab, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// clickJS clicks the element a JavaScript expression finds, as a person would
// (a click event that bubbles).
func clickJS(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](`(() => { const e = `+expr+`; if (!e) throw new Error("nothing to click"); e.click(); return true; })()`)(ctx, t)
		return chromedp.Void{}, err
	}
}

// checkScreenshot decodes a PNG of the page and checks that it has the window's
// size and is not blank: many pixels differ from the background, in several colours.
func checkScreenshot(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 800 || b.Dy() < 500 {
		t.Errorf("screenshot %v, want the 1280×800 window", b)
	}
	bg := img.At(b.Max.X-1, b.Max.Y-1)
	colours := map[[3]uint32]bool{}
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			c := img.At(x, y)
			r, g, bl, _ := c.RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if c != bg {
				differ++
			}
		}
	}
	if differ < 2000 || len(colours) < 8 {
		t.Errorf("the screenshot looks blank: %d pixels differ from the background, %d colours", differ, len(colours))
	}
}

// TestWebViewGuard checks the Host/Origin policy and that nothing invites another
// origin to read a capture.
func TestWebViewGuard(t *testing.T) {
	ctx := testkit.Context(t)
	hub := view.NewHub(capture.Header{Mode: "stdio"}, false, timeline.Options{})
	hub.End()
	srv := testkit.NewServer(t, Handler(Options{Hub: hub}))
	for _, tc := range []struct {
		name, host, origin string
		want               int
	}{
		{"loopback", "", "", http.StatusOK},
		{"same origin", "", srv.URL, http.StatusOK},
		{"rebinding host", "evil.example:80", "", http.StatusForbidden},
		{"foreign origin", "", "http://evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/report", nil)
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, res.StatusCode, tc.want)
		}
		if v := res.Header.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.name, v)
		}
	}
}

// TestWebViewLimitsPages: with MaxPages 2, a third live page gets 503 with
// Retry-After while two are open, and is served once one of them closes.
func TestWebViewLimitsPages(t *testing.T) {
	ctx := testkit.Context(t)
	hub := view.NewHub(capture.Header{Mode: "stdio"}, false, timeline.Options{})
	srv := testkit.NewServer(t, Handler(Options{Hub: hub, MaxPages: 2}))
	open := func() (*http.Response, context.CancelFunc) {
		t.Helper()
		pctx, cancel := context.WithCancel(ctx)
		req, _ := http.NewRequestWithContext(pctx, http.MethodGet, srv.URL+"/api/events", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		return res, func() { cancel(); _ = res.Body.Close() }
	}
	first, closeFirst := open()
	second, closeSecond := open()
	defer closeSecond()
	if first.StatusCode != http.StatusOK || second.StatusCode != http.StatusOK {
		t.Fatalf("two pages: %d %d, want 200 200", first.StatusCode, second.StatusCode)
	}
	third, closeThird := open()
	closeThird()
	if third.StatusCode != http.StatusServiceUnavailable || third.Header.Get("Retry-After") == "" {
		t.Fatalf("a third page: %d (Retry-After %q), want 503 with Retry-After", third.StatusCode, third.Header.Get("Retry-After"))
	}
	closeFirst()
	// The first page's handler gives its slot back when it sees the page gone;
	// wait for that by asking until a page is served (each refusal is immediate).
	for {
		res, closeRes := open()
		closeRes()
		if res.StatusCode == http.StatusOK {
			break
		}
		if res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("after a page closed: %d", res.StatusCode)
		}
		select {
		case <-ctx.Done():
			t.Fatal("no slot came back after a page closed")
		default:
		}
	}
}
