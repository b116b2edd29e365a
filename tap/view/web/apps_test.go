//go:build unix

package web

import (
	"bytes"
	"encoding/json"
	pngpkg "image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/chromium"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

// appsPage serves the page on ../testdata/apps.jsonl (two servers that both
// list "search"; weather's view ui://weather/forecast.html read, and a call of
// its tool forecast) and counts the requests that reach /api/report, which the
// page never makes: only the previewed view tries it.
func appsPage(t *testing.T) (*url.URL, *atomic.Int64) {
	t.Helper()
	hub, feed, err := view.OpenFile("../testdata/apps.jsonl", timeline.Options{Schema: true})
	if err != nil {
		t.Fatal(err)
	}
	feed()
	var reports atomic.Int64
	h := Handler(Options{Hub: hub, ReportInterval: 50 * time.Millisecond})
	srv := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/report" {
			reports.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	u, _ := url.Parse(srv.URL)
	return u, &reports
}

// TestWebViewAppPreviewHeaders: a view's document is served sandboxed (a CSP
// sandbox without allow-same-origin), with no network and framed by the page
// only, whatever domains it declares; an entry or URI that holds no view is
// refused; the page itself stays unframeable.
func TestWebViewAppPreviewHeaders(t *testing.T) {
	ctx := testkit.Context(t)
	u, _ := appsPage(t)
	get := func(path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String()+path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return res
	}
	view := "/app?entry=9&uri=" + url.QueryEscape("ui://weather/forecast.html")
	res := get(view)
	csp := res.Header.Get("Content-Security-Policy")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("the view: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "form-action 'none'",
		"frame-ancestors 'self'", "sandbox allow-scripts"} {
		if !strings.Contains(csp, want) {
			t.Errorf("the view's policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "allow-same-origin") || strings.Contains(csp, "api.weather.example") {
		t.Errorf("the view's policy %q grants too much", csp)
	}
	if xfo := res.Header.Get("X-Frame-Options"); xfo != "" {
		t.Errorf("the view carries X-Frame-Options %q: the page could not frame it", xfo)
	}
	for _, path := range []string{"/app?entry=11&uri=" + url.QueryEscape("ui://weather/forecast.html"),
		"/app?entry=9&uri=" + url.QueryEscape("ui://weather/other.html"), "/app?entry=99&uri=x", "/app?entry=x"} {
		if res := get(path); res.StatusCode == http.StatusOK {
			t.Errorf("%s: %d, want a refusal", path, res.StatusCode)
		}
	}
	if res := get("/"); res.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("the page may be framed: %v", res.Header)
	}
}

// TestWebViewAppsAndDuplicates drives the page in headless Chromium: the
// header flags the tool name two servers list and the servers tab names both
// (a server name with markup shown as text); a tools/call of a tool linked to
// a view offers a preview, which renders the view in a sandboxed frame with
// the call's arguments and result replayed by the page's stub host, while
// the view can reach neither the page, its cookies and storage, nor the tap.
func TestWebViewAppsAndDuplicates(t *testing.T) {
	u, reports := appsPage(t)
	tab := chromium.Start(t, t.Context())
	step := stepper(t, tab)
	eval := func(expr string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		checkScreenshot(t, png)
		if img, err := pngpkg.DecodeConfig(bytes.NewReader(png)); err != nil || img.Width != 1280 || img.Height != 800 {
			t.Errorf("%s: %dx%d, want 1280x800 (%v)", name, img.Width, img.Height, err)
		}
		if dir := os.Getenv("MCPKIT_SCREENSHOTS"); dir != "" {
			_ = os.WriteFile(filepath.Join(dir, name), png, 0o644)
		}
	}

	step("load the page",
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(u.String()+"/"),
		chromedp.Poll[chromedp.Void](`document.getElementById("state").textContent === "capture file"`),
		chromedp.Poll[chromedp.Void](`!document.getElementById("dup-badge").hidden`))
	if got := eval(`document.getElementById("dup-badge").textContent`); got != "⚠ 1 duplicate tool name: search" {
		t.Errorf("the badge says %q", got)
	}
	if got := eval(`document.getElementById("dup-badge").title`); got != `"search" is listed by weather and docs <b>bold</b>` {
		t.Errorf("the badge's title is %q", got)
	}
	step("the servers tab", clickJS(`document.getElementById("dup-badge")`),
		chromedp.Poll[chromedp.Void](`!document.getElementById("servers").hidden && document.querySelector("#servers .dup") !== null`))
	if got := eval(`document.querySelector("#servers .dup").innerText`); got != "DUPLICATE search listed by weather and docs <b>bold</b>" {
		t.Errorf("the duplicate reads %q", got)
	}
	if got := eval(`[...document.querySelectorAll("#servers .dup strong.server")].map((s) => s.textContent).join("|") + "|" + document.querySelectorAll("#servers b, #dup-badge b").length`); got != "weather|docs <b>bold</b>|0" {
		t.Errorf("the servers named: %q (a peer's markup must stay text)", got)
	}
	if got := eval(`document.querySelector("#servers .app-view").innerText`); !strings.Contains(got, "ui://weather/forecast.html") ||
		!strings.Contains(got, "tools: forecast") || !strings.Contains(got, "declares connectDomains https://api.weather.example (not granted in the preview)") {
		t.Errorf("the app view reads %q", got)
	}
	shot("tap-web-duplicates.png")
	step("the duplicate leads to a tools/list", clickJS(`document.querySelector("#servers .dup")`),
		chromedp.Poll[chromedp.Void](`document.getElementById("detail").innerText.includes("tools/list")`))

	// What a view must not reach, planted in the page.
	eval(`document.cookie = "tapsecret=hunter2"; localStorage.setItem("tap-secret", "hunter2"); sessionStorage.setItem("s", "1");
		window.__probe = null; window.addEventListener("message", (e) => { if (e.data && e.data.probeResults) window.__probe = e.data.probeResults; }); "ok"`)
	step("a tools/call offers the preview",
		clickJS(`[...document.querySelectorAll("#rows tr.entry")].find((tr) => tr.innerText.includes("tools/call forecast"))`),
		chromedp.Poll[chromedp.Void](`document.querySelector("#detail .preview-btn") !== null`))
	if got := eval(`document.querySelector("#detail .preview-btn").textContent`); got != "▶ Preview ui://weather/forecast.html with this call" {
		t.Errorf("the preview button reads %q", got)
	}
	step("the preview renders and reports its probes",
		clickJS(`document.querySelector("#detail .preview-btn")`),
		chromedp.Poll[chromedp.Void](`!document.getElementById("preview").hidden && window.__probe !== null`))
	if got := eval(`String(document.querySelector("#preview iframe").getAttribute("sandbox"))`); got != "allow-scripts" {
		t.Errorf("the frame's sandbox is %q", got)
	}
	probe, err := chromedp.Run(tab, chromedp.Evaluate[map[string]string](`window.__probe`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"origin":     "null", // opaque: no origin of the page's
		"initialize": "host mcpkit tap preview",
		"toolResult": "got Paris",
		"tools/call": "refused: -32601",
	}
	for _, k := range []string{"parent.document", "top.location", "document.cookie", "localStorage", "sessionStorage",
		"fetch /api/report", "fetch https://api.weather.example"} {
		want[k] = "blocked"
	}
	for k, v := range want {
		if got := probe[k]; !strings.HasPrefix(got, v) {
			t.Errorf("the view's %s: %q, want %q…", k, got, v)
		}
	}
	if n := reports.Load(); n != 0 {
		t.Errorf("%d requests from the view reached the tap", n)
	}
	if got := eval(`document.getElementById("preview-title").textContent + " | " + document.getElementById("preview-note").textContent`); got !=
		"Preview of ui://weather/forecast.html for tools/call forecast | static: sandboxed, no network, no server behind it; the captured arguments and result are replayed" {
		t.Errorf("the preview's head reads %q", got)
	}
	shot("tap-web-preview.png")
	step("close the preview", clickJS(`document.getElementById("preview-close")`),
		chromedp.Poll[chromedp.Void](`document.getElementById("preview").hidden && document.querySelector("#preview iframe") === null`))
}

// TestWebViewAppPreviewFlood: a view that floods the page with messages is
// closed (its frame removed, the overlay saying why), and the page still
// answers.
func TestWebViewAppPreviewFlood(t *testing.T) {
	hub := view.NewHub(capture.Header{Mode: "stdio"}, false, timeline.Options{})
	doc := `<!doctype html><script>for (let i = 0; i < 100000; i++) parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: i } }, "*");</script>`
	read, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
		"contents": []any{map[string]any{"uri": "ui://flood", "mimeType": apps.MIMEType, "text": doc}}}})
	for i, msg := range []string{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://flood"}}`, string(read)} {
		dir := capture.ClientToServer
		if i == 1 {
			dir = capture.ServerToClient
		}
		hub.Model().Add(&capture.Record{Seq: uint64(i + 1), Time: time.Unix(1, 0), Dir: dir, Transport: capture.TransportStdio, Session: "stdio", Msg: json.RawMessage(msg)})
	}
	hub.End()
	page := testkit.NewServer(t, Handler(Options{Hub: hub, ReportInterval: 50 * time.Millisecond}))
	tab := chromium.Start(t, t.Context())
	step := stepper(t, tab)
	step("open the flooding view",
		chromedp.Navigate(page.URL+"/"),
		clickJS(`document.getElementById("tab-servers")`),
		chromedp.Poll[chromedp.Void](`document.querySelector("#servers .preview-btn") !== null`),
		clickJS(`document.querySelector("#servers .preview-btn")`),
		chromedp.Poll[chromedp.Void](`document.querySelector("#preview .preview-closed") !== null`))
	got, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("#preview .preview-closed").textContent + "|" + document.querySelectorAll("#preview iframe").length`))
	if err != nil || got != "Preview closed: the view sent more than 200 messages in a second.|0" {
		t.Errorf("after the flood: %q, %v", got, err)
	}
	step("the page still answers",
		clickJS(`document.getElementById("preview-close")`),
		clickJS(`document.getElementById("tab-analysis")`),
		chromedp.Poll[chromedp.Void](`!document.getElementById("analysis").hidden && document.getElementById("preview").hidden`))
}
