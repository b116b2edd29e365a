//go:build unix

package web

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/chromium"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

var millis = regexp.MustCompile(`^[0-9]+\.[0-9]+ ms$`)

// checkAnalysisAndTokens checks, on the live page of TestWebViewLive, that the
// analysis tab shows real figures (latency percentiles of the calls made, the
// progress delay, the session's lane) and leads to an entry, and that the token
// tab counts the demo server's tools in both formats.
func checkAnalysisAndTokens(t *testing.T, tab context.Context, step func(string, ...chromedp.Action[chromedp.Void])) {
	t.Helper()
	step("analysis tab",
		chromedp.Click(chromedp.CSS("#tab-analysis")),
		chromedp.Poll[chromedp.Void](`(() => { const t = document.querySelector('#analysis table[data-table="latency"]');
			return t && t.innerText.includes("tools/call") && document.querySelector('#analysis table[data-table^="lane:"]') !== null &&
				document.querySelector('#analysis table[data-table="progress"]') !== null; })()`))
	cells := func(sel string) [][]string {
		t.Helper()
		v, err := chromedp.Run(tab, chromedp.Evaluate[[][]string](`[...document.querySelectorAll(`+strconv.Quote(sel)+`)].map((tr) => [...tr.cells].map((c) => c.innerText))`))
		if err != nil {
			t.Fatalf("cells of %s: %v", sel, err)
		}
		return v
	}
	var call []string
	for _, r := range cells(`#analysis table[data-table="latency"] tbody tr`) {
		if r[0] == "C→S" && r[1] == "tools/call" {
			call = r
		}
	}
	// Three calls went through (echo, count, test_error_handling: one isError).
	if call == nil || call[2] != "3" || call[3] != "1" || !millis.MatchString(call[6]) || !millis.MatchString(call[9]) {
		t.Errorf("the tools/call latency row = %q", call)
	}
	lanes := cells(`#analysis table[data-table^="lane:"] tbody tr`)
	if len(lanes) < 4 || !strings.HasPrefix(lanes[0][1], "POST /mcp") || lanes[0][2] != "200" {
		t.Errorf("the session's lane = %q", lanes)
	}
	if p := cells(`#analysis table[data-table="progress"] tbody tr`); len(p) != 1 || p[0][1] != "tools/call" || !millis.MatchString(p[0][3]) {
		t.Errorf("time to first progress = %q", p)
	}
	step("a failure or row leads to its entry",
		clickJS(`document.querySelector('#analysis table[data-table="progress"] tbody tr.link')`),
		chromedp.Poll[chromedp.Void](`!document.getElementById("detail").hidden && document.getElementById("detail").innerText.includes("first progress after")`))

	total := func() int {
		t.Helper()
		// One evaluation: the panel is redrawn when a count (re)arrives.
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](`(document.querySelector("#tokens-body tr.total td.num") || {}).innerText || ""`))
		if err != nil {
			t.Fatalf("token total: %v", err)
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("token total %q: %v", s, err)
		}
		return n
	}
	step("token tab",
		chromedp.Click(chromedp.CSS("#tab-tokens")),
		chromedp.Poll[chromedp.Void](`document.querySelector("#tokens-body tr.total") !== null`))
	tools := cells(`#tokens-body tbody tr:not(.total)`)
	openai := total()
	sum := 0
	for i, r := range tools {
		n, _ := strconv.Atoi(r[1])
		if i > 0 {
			if prev, _ := strconv.Atoi(tools[i-1][1]); prev < n {
				t.Errorf("tools not largest first: %q", tools)
			}
		}
		sum += n
	}
	if len(tools) < 3 || sum != openai || openai <= 0 {
		t.Errorf("token rows %q, total %d", tools, openai)
	}
	if h, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#tokens-body h2"))); !strings.Contains(h, "tools") {
		t.Errorf("token list title %q", h)
	}
	step("anthropic format",
		chromedp.SetValue(chromedp.CSS("#t-format"), "anthropic"),
		clickJS(`(() => { const s = document.getElementById("t-format"); s.dispatchEvent(new Event("change", {bubbles: true})); return s; })()`),
		chromedp.Poll[chromedp.Void](`(() => { const c = document.querySelector("#tokens-body tr.total td.num"); return c && c.innerText !== "`+strconv.Itoa(openai)+`"; })()`))
	if anthropic := total(); anthropic <= 0 {
		t.Errorf("anthropic total %d", anthropic)
	}
}

// TestWebViewSchemaFlag: a message that breaks the official schema of the
// version its session negotiated is flagged in the page's detail pane (and in
// /api/entry).
func TestWebViewSchemaFlag(t *testing.T) {
	ctx := testkit.Context(t)
	hub := view.NewHub(capture.Header{Mode: "stdio", Command: []string{"server"}}, false, timeline.Options{Schema: true})
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	var recs []*capture.Record
	for i, m := range []struct{ dir, body string }{
		{capture.ClientToServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`},
		{capture.ServerToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`},
		{capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"broken"}]}}`},
	} {
		recs = append(recs, &capture.Record{Seq: uint64(i + 1), Time: t0.Add(time.Duration(i) * time.Millisecond), Dir: m.dir,
			Transport: capture.TransportStdio, Session: "stdio", Msg: json.RawMessage(m.body)})
	}
	hub.Load(recs)
	page := testkit.NewServer(t, Handler(Options{Hub: hub}))

	var d view.Detail
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, page.URL+"/api/entry?id=3", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(res.Body).Decode(&d)
	_ = res.Body.Close()
	if err != nil || len(d.Sections) == 0 {
		t.Fatalf("detail: %+v, %v", d, err)
	}
	last := d.Sections[len(d.Sections)-1]
	if len(last.Violations) == 0 || !strings.Contains(last.Violations[0], "2025-06-18") {
		t.Fatalf("detail sections = %+v", d.Sections)
	}

	tab := chromium.Start(t, t.Context())
	sctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	err = chromedp.Do(sctx,
		chromedp.Navigate(page.URL+"/"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#rows tr.entry").length === 2`),
		clickJS(`[...document.querySelectorAll("#rows tr.entry")].find((tr) => tr.innerText.includes("tools/list"))`),
		chromedp.Poll[chromedp.Void](`(() => { const v = document.querySelector("#detail .violation");
			return v !== null && v.innerText.startsWith("schema: ") && v.innerText.includes("2025-06-18"); })()`))
	if err != nil {
		t.Fatalf("the schema flag in the page: %v", err)
	}
	if status, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#rows tr.entry.error td.status"))); status != "ok, schema" {
		t.Errorf("the row's status = %q, want it highlighted as ok, schema", status)
	}
}
