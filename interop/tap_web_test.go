//go:build unix

package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpkit/mcpkit/internal/testkit/chromium"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// cellView is what the page shows of one timeline row, measured in the browser.
type cellView struct {
	Call, Status, Latency string
	// CallFits, StatusFits and LatencyFits: the cell's text is not cut (its
	// scroll width is within its box); InView: the row's status and latency cells
	// end inside the window.
	CallFits, StatusFits, LatencyFits, InView bool
	// FirstWordFits: the status's first word ("ok", "-32602") is not cut.
	FirstWordFits bool
	Probe         bool
	Error         bool
}

// rowsJS measures every timeline row of the page.
const rowsJS = `(() => {
  const ctx = document.createElement("canvas").getContext("2d");
  const fits = (td) => td.scrollWidth <= td.clientWidth + 1;
  return [...document.querySelectorAll("#rows tr.entry")].map((tr) => {
    const c = (name) => tr.querySelector("td." + name);
    const call = c("method"), status = c("status"), latency = c("latency");
    const st = getComputedStyle(status);
    ctx.font = st.fontSize + " " + st.fontFamily;
    const word = status.innerText.split(" ")[0];
    const pad = parseFloat(st.paddingLeft) + parseFloat(st.paddingRight);
    return {
      Call: call.childNodes[0].textContent.replace(/^[▸▾]\+\d+ /, ""), Status: status.innerText, Latency: latency.innerText,
      CallFits: fits(call), StatusFits: fits(status), LatencyFits: fits(latency),
      InView: status.getBoundingClientRect().right <= innerWidth && latency.getBoundingClientRect().right <= innerWidth,
      FirstWordFits: ctx.measureText(word).width + pad <= status.clientWidth + 1,
      Probe: tr.classList.contains("probe"), Error: tr.classList.contains("error"),
    };
  });
})()`

// TestTapWebViewOfServerEverything records real sessions: mcpkit's CLI, then the
// TypeScript SDK client, call the npm server-everything over Streamable HTTP
// through a real `mcpkit tap`, then
// `mcpkit tap view --web` shows the capture in headless Chromium at 1280×800. In
// the rendered page every call's row names what it called, and its status and
// latency are visible (not pushed off-screen nor cut); a refused probe, if the
// client sent any, is labelled and not red; the analysis lists no failure, since
// the session had none; errors-only shows exactly the two calls that failed (the
// server answers bad arguments and an unknown tool with isError results). Screenshots go to $MCPKIT_SCREENSHOTS when set.
func TestTapWebViewOfServerEverything(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	entry := packageBin(t, "@modelcontextprotocol/server-everything")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	base := startHTTPPeer(ctx, t, node, newEventLog(), entry, "streamableHttp")

	capPath := filepath.Join(t.TempDir(), "capture.jsonl")
	tapCmd := exec.CommandContext(ctx, bin, "tap", "--listen", "127.0.0.1:0", "--upstream", base+"/mcp", "--no-oauth", "--out", capPath)
	m, tapProc := startAnnouncedServer(ctx, t, tapCmd, newEventLog(), regexp.MustCompile(`relaying http://(127\.0\.0\.1:\d+)/mcp`))
	url := "http://" + m[1] + "/mcp"

	calls := []struct {
		args   []string
		label  string // the row's call
		status string // its status begins so
	}{
		{[]string{"call", "echo", `{"message":"through the tap"}`}, "tools/call echo", "ok"},
		{[]string{"call", "get-sum", `{"a":1,"b":2}`}, "tools/call get-sum", "ok"},
		{[]string{"call", "trigger-long-running-operation", `{"duration":1,"steps":3}`}, "tools/call trigger-long-running-operation", "ok"},
		{[]string{"call", "get-sum", `{"a":"x"}`}, "tools/call get-sum", "isError"},
		{[]string{"call", "no-such-tool"}, "tools/call no-such-tool", "isError"},
		{[]string{"read", "demo://resource/static/document/features.md"}, "resources/read demo://resource/static/document/features.md", "ok"},
		{[]string{"get", "args-prompt", `{"city":"Paris"}`}, "prompts/get args-prompt", "ok"},
		// Then a host's session: the TypeScript SDK client (ts_everything_client.mjs).
		{nil, "tools/call echo", "ok"},
		{nil, "tools/call get-sum", "ok"},
		{nil, "tools/call trigger-long-running-operation", "ok"},
		{nil, "resources/read demo://resource/static/document/features.md", "ok"},
		{nil, "prompts/get simple-prompt", "ok"},
	}
	for _, c := range calls {
		if c.args == nil {
			continue
		}
		out, err := exec.CommandContext(ctx, bin, append(c.args, "--url", url)...).CombinedOutput()
		if failed := err != nil; failed != (c.status != "ok") {
			t.Fatalf("mcpkit %v: %v\n%s", c.args, err, out)
		}
	}
	if out, err := exec.CommandContext(ctx, node, "ts_everything_client.mjs", url).CombinedOutput(); err != nil {
		t.Fatalf("the TypeScript SDK client: %v\n%s", err, out)
	}
	if err := tapProc.interrupt(10 * time.Second); err != nil {
		t.Fatalf("stopping the tap: %v", err)
	}
	_, recs, err := capture.ReadFile(capPath)
	if err != nil {
		t.Fatal(err)
	}
	snap := timeline.Build(recs, timeline.Options{}).Snapshot()
	var longSession string
	probes := 0
	for _, e := range snap.Entries {
		if e.Label() == "tools/call trigger-long-running-operation" {
			longSession = e.Session
		}
		if e.ProbeRefused() {
			probes++
		}
	}

	viewCmd := exec.CommandContext(ctx, bin, "tap", "view", capPath, "--web", "127.0.0.1:0")
	vm, _ := startAnnouncedServer(ctx, t, viewCmd, newEventLog(), regexp.MustCompile(`open http://(127\.0\.0\.1:\d+)/`))
	tab := chromium.Start(t, ctx)
	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(tab, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	shots := os.Getenv("MCPKIT_SCREENSHOTS")
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if shots != "" {
			if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	step("load the capture",
		chromedp.Navigate("http://"+vm[1]+"/"),
		chromedp.Poll[chromedp.Void](`document.getElementById("state").textContent === "capture file" && document.querySelectorAll("#rows tr.entry").length > 0`))
	if w, err := chromedp.Run(tab, chromedp.Evaluate[int](`innerWidth`)); err != nil || w != 1280 {
		t.Fatalf("window width %d, %v", w, err)
	}
	shoot("tap-web-everything.png")

	rows, err := chromedp.Run(tab, chromedp.Evaluate[[]cellView](rowsJS))
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for _, r := range rows {
		if r.Probe {
			if r.Error || !strings.HasPrefix(r.Status, "probe: ") {
				t.Errorf("a refused probe is shown as a failure: %+v", r)
			}
			continue
		}
		if !strings.HasPrefix(r.Call, "tools/call") && !strings.HasPrefix(r.Call, "resources/read") && !strings.HasPrefix(r.Call, "prompts/get") {
			continue
		}
		if next == len(calls) {
			t.Errorf("a call more than made: %+v", r)
			continue
		}
		c := calls[next]
		next++
		if !strings.HasPrefix(r.Call, c.label) || !strings.HasPrefix(r.Status, c.status) {
			t.Errorf("row %q status %q, want %q %q…", r.Call, r.Status, c.label, c.status)
		}
		if strings.HasPrefix(c.label, "tools/call") && !r.CallFits {
			t.Errorf("%s: the tool's name is cut: %+v", c.label, r)
		}
		if !r.InView || !r.LatencyFits || !r.FirstWordFits || !regexp.MustCompile(`^[0-9.]+ ms$`).MatchString(r.Latency) {
			t.Errorf("%s: status %q or latency %q not visible at 1280 px: %+v", c.label, r.Status, r.Latency, r)
		}
		if c.status == "ok" && !r.StatusFits {
			t.Errorf("%s: status %q cut", c.label, r.Status)
		}
	}
	if next != len(calls) {
		t.Errorf("the page shows %d of the %d calls", next, len(calls))
	}

	step("the analysis",
		chromedp.Click(chromedp.CSS("#tab-analysis")),
		chromedp.Poll[chromedp.Void](`document.getElementById("analysis").innerText.includes("latency by method")`))
	analysis, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#analysis")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(analysis, "no failures found") || strings.Contains(analysis, "schema-violation") || strings.Contains(analysis, "embed:///") {
		t.Errorf("the session had no failure, the analysis says:\n%s", analysis)
	}
	if probes > 0 && !strings.Contains(analysis, "client probes refused by the server") {
		t.Errorf("%d refused probes, not said apart:\n%s", probes, analysis)
	}
	shoot("tap-web-everything-analysis.png")

	step("the sequence of the long-running call's session",
		chromedp.Click(chromedp.CSS("#tab-sequence")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#s-session option").length > 0`),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("s-session"); s.value = `+jsString(longSession)+`; s.dispatchEvent(new Event("change")); })()`),
		chromedp.Poll[chromedp.Void](`document.getElementById("sequence-body").innerText.includes("trigger-long-running-operation")`))
	seq, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#sequence-body")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"initialize", "notifications/progress", "the answer comes as an SSE stream", "SSE stream closed", "POST #", longSession} {
		if !strings.Contains(seq, want) {
			t.Errorf("the sequence lacks %q:\n%s", want, seq)
		}
	}
	shoot("tap-web-everything-sequence.png")

	step("errors only",
		chromedp.Click(chromedp.CSS("#f-errors")),
		chromedp.Poll[chromedp.Void](`document.getElementById("counts").textContent.startsWith("2 of ")`))
	rows, err = chromedp.Run(tab, chromedp.Evaluate[[]cellView](rowsJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Call != "tools/call get-sum" || rows[1].Call != "tools/call no-such-tool" || rows[0].Status != "isError" {
		t.Errorf("errors only: %+v", rows)
	}
	shoot("tap-web-everything-errors.png")
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
