//go:build unix

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mcpkit/mcpkit/internal/llmtest"
)

// basicApp is the MCP App from npm that the web host is tried with: the
// ext-apps project's vanilla-JS example server (pinned in package.json). Its
// tool get-time answers the server's time; its view (the App class of
// @modelcontextprotocol/ext-apps, bundled into one HTML file) shows the
// time of the tool result, calls get-time again through the host when its
// button is pressed, and sends a ui/message with its textarea's text.
const basicApp = "@modelcontextprotocol/server-basic-vanillajs"

// isoTime matches what get-time answers.
var isoTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// TestHostWebNpmAppInChromium drives `mcpkit host --web` in headless Chromium
// against a scripted OpenAI-wire model and the npm MCP App basicApp, run over
// stdio: directly, then behind `mcpkit gateway --names bare`. In each, the
// model's get-time call shows its view in the sandbox proxy's inner iframe
// with the result's time; the view's own get-time call goes through the
// bridge and back and the view shows the new time; its ui/message reaches the
// model as the next user message and the model's answer is shown.
func TestHostWebNpmAppInChromium(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	app := packageBin(t, basicApp)
	t.Run("direct", func(t *testing.T) {
		driveNpmApp(t, bin, "basic="+node+" "+app+" --stdio", "host-web-npm")
	})
	t.Run("gateway", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
		defer cancel()
		cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
			"basic": map[string]any{"command": node, "args": []string{app, "--stdio"}},
		}})
		path := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, bin, "gateway", "--config", path, "--http", "127.0.0.1:0", "--names", "bare")
		m, _ := startAnnouncedServer(ctx, t, cmd, newEventLog(), gatewayAnnouncement)
		driveNpmApp(t, bin, "gw=http://"+m[1]+"/mcp", "host-web-npm-gateway")
	})
}

// driveNpmApp runs the host over the one server spec and checks basicApp's
// view in Chromium; shots names its screenshots.
func driveNpmApp(t *testing.T, bin, server, shots string) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
	defer cancel()
	const answer, followUp, declined = "The server's clock is shown above.", "Your message from the view arrived.", "Then I will not ask the server."
	model := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{Name: "get-time", Args: `{}`})},
		llmtest.Reply{Body: llmtest.OpenAI(answer)},
		llmtest.Reply{Body: llmtest.OpenAI(followUp)},
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{Name: "get-time", Args: `{}`})},
		llmtest.Reply{Body: llmtest.OpenAI(declined)},
	)
	h := openHostWeb(t, ctx, bin, model, nil, "--server", server)
	tab, poll, bridgeLog := h.tab, h.poll, h.bridgeLog
	console := watchConsole(t, tab)
	poll("the server is ready", `document.querySelector("#servers").textContent.includes("ready")`)
	send := func(text string) {
		t.Helper()
		poll("sending "+text, fmt.Sprintf(`(() => { if (document.getElementById("send").disabled) return null; const i = document.getElementById("input"); i.value = %q; document.getElementById("composer").requestSubmit(); return true; })()`, text))
	}
	// The view opens as the model writes the call, and hears the arguments
	// written so far (tool-input-partial) while the call waits for approval;
	// then the complete ones and the result.
	send("What time is it on the server?")
	poll("the view hears the partial arguments before the approval", `window.mcpkitLog.some((m) => m.method === "ui/notifications/tool-input-partial") && !!document.querySelector(".card .actions button.allow")`)
	poll("approving", `(() => { const b = document.querySelector(".card .actions button.allow"); if (!b) return null; b.click(); return true; })()`)
	poll("the card shows the time", `(() => { const c = document.querySelector(".card.done"); return !!c && /^\d{4}-\d\d-\d\dT[0-9:.]+Z$/.test(c.querySelector(".result").textContent.trim()); })()`)
	poll("the answer", fmt.Sprintf(`document.querySelector("#log").textContent.includes(%q)`, answer))
	var offered []string
	for _, tl := range model.Requests()[0].JSON["tools"].([]any) {
		offered = append(offered, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if !slices.Equal(offered, []string{"get-time"}) {
		t.Errorf("the model was offered %v, want [get-time]", offered)
	}

	// The view: in the proxy's inner iframe, showing the result's time, with
	// the theme of the host context applied by the App class.
	frame := frameOf(t, tab, "get-time", poll)
	in := chromedp.WithPollingInFrame(frame)
	cardTime, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector(".card.done .result").textContent.trim()`))
	if err != nil {
		t.Fatal(err)
	}
	poll("the view shows the result's time", inView(fmt.Sprintf(`document.getElementById("server-time").textContent === %q`, cardTime)), in)
	theme, err := runIn[string](tab, frame, `document.documentElement.getAttribute("data-theme")`)
	if err != nil || theme != "light" {
		t.Errorf("the view's theme: %q, %v (want the host context's light)", theme, err)
	}
	scrollToView := func() {
		t.Helper()
		if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector('iframe[title="view of get-time"]').scrollIntoView({block: "start"}), true`)); err != nil {
			t.Fatal(err)
		}
	}
	scrollToView()
	png1 := shoot(t, tab, shots+"-view.png")
	checkViewPixels(t, tab, png1)

	// Its own tool call: through the bridge to the server and back.
	poll("pressing Get Server Time", inView(`(() => { document.getElementById("server-time").textContent = "pressed"; document.getElementById("get-time-btn").click(); return true; })()`), in)
	poll("the view shows the new time", inView(`/^\d{4}-\d\d-\d\dT[0-9:.]+Z$/.test(document.getElementById("server-time").textContent)`), in)
	viewTime, err := runIn[string](tab, frame, `document.getElementById("server-time").textContent`)
	if err != nil || !isoTime.MatchString(viewTime) || viewTime < cardTime {
		t.Errorf("the view's time after its call: %q (the card's %q), %v", viewTime, cardTime, err)
	}
	var log []bridgeEntry
	if err := json.Unmarshal([]byte(bridgeLog()), &log); err != nil {
		t.Fatal(err)
	}
	var callID any
	for _, m := range log {
		if m.Dir == "view→host" && m.Method == "tools/call" {
			callID = m.ID
		}
	}
	answered := slices.ContainsFunc(log, func(m bridgeEntry) bool {
		return callID != nil && m.Dir == "host→view" && m.Method == "" && fmt.Sprint(m.ID) == fmt.Sprint(callID) && m.Error == nil
	})
	if !answered {
		t.Errorf("the view's tools/call (id %v) got no answer through the bridge: %s", callID, bridgeLog())
	}

	// Its log (notifications/message), then its ui/message: the model's next
	// user message, answered in the page.
	poll("pressing Send Log", inView(`(() => { document.getElementById("send-log-btn").click(); return true; })()`), in)
	poll("pressing Send Message", inView(`(() => { document.getElementById("send-message-btn").click(); return true; })()`), in)
	poll("the model answers the view's message", fmt.Sprintf(`document.querySelector("#log").textContent.includes(%q)`, followUp))
	if err := json.Unmarshal([]byte(bridgeLog()), &log); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	msgs := llmtest.Messages(reqs[len(reqs)-1].JSON)
	if last := msgs[len(msgs)-1]; last["role"] != "user" || last["content"] != "This is message text." {
		t.Errorf("the model's last message is %v, want the view's text", last)
	}
	methods := map[string]bool{}
	for _, m := range log {
		methods[m.Dir+" "+m.Method] = true
	}
	t.Logf("bridge methods: %v", methods)
	order := func(method string) int {
		return slices.IndexFunc(log, func(m bridgeEntry) bool { return m.Dir == "host→view" && m.Method == method })
	}
	if p, i, r := order("ui/notifications/tool-input-partial"), order("ui/notifications/tool-input"), order("ui/notifications/tool-result"); p < 0 || p > i || i > r {
		t.Errorf("the view heard partial arguments, arguments and result at %d, %d, %d of %s", p, i, r, bridgeLog())
	}
	for _, want := range []string{"view→host ui/notifications/sandbox-proxy-ready", "host→view ui/notifications/sandbox-resource-ready",
		"view→host ui/initialize", "view→host ui/notifications/initialized", "host→view ui/notifications/tool-input", "host→view ui/notifications/tool-result",
		"view→host notifications/message", "view→host ui/message"} {
		if !methods[want] {
			t.Errorf("the bridge never carried %s", want)
		}
	}
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.getElementById("log").scrollTop = 1e9, true`)); err != nil {
		t.Fatal(err)
	}
	shoot(t, tab, shots+"-message.png") // the view's message as the user's, and the answer
	// A call the user declines: its view, opened as the model wrote it, hears
	// that it was cancelled, and the App says so.
	send("And once more?")
	poll("declining", `(() => { const b = document.querySelector(".card .actions button.deny"); if (!b) return null; b.click(); return true; })()`)
	poll("the model's answer to the refusal", fmt.Sprintf(`document.querySelector("#log").textContent.includes(%q)`, declined))
	if !console.waitFor(ctx, `"Tool call cancelled:" "the host did not make the call: the user declined`) {
		t.Errorf("the second view never heard that its call was cancelled: %s", bridgeLog())
	}
	if n := strings.Count(bridgeLog(), `"ui/notifications/tool-cancelled"`); n != 1 {
		t.Errorf("%d tool-cancelled notifications, want 1 (the declined call's view): %s", n, bridgeLog())
	}
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`[...document.querySelectorAll('iframe[title="view of get-time"]')].pop().scrollIntoView({block: "start"}), true`)); err != nil {
		t.Fatal(err)
	}
	shoot(t, tab, shots+"-declined.png")

	// The first view asks to close (ui/notifications/request-teardown, as the
	// App's requestTeardown sends it): the page asks it to tear down, the
	// App answers, and the page closes it.
	// (A script of the view's own: a message is from the realm that posts it.)
	poll("the view asks to close", inView(`(() => { const sc = document.createElement("script"); sc.textContent = 'parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/request-teardown", params: {} }, "*")'; document.body.append(sc); return true; })()`), in)
	poll("the page closes the view", `(() => { const c = document.querySelector(".card"); return !c.querySelector('iframe') && c.textContent.includes("view closed: the view asked to close"); })()`)
	if !console.waitFor(ctx, `"App is being torn down"`) {
		t.Error("the App never heard ui/resource-teardown")
	}

	// The App says what it made of the host's answers.
	for _, want := range []string{`"get-time result:"`, `"Message" "accepted"`} {
		if !console.waitFor(ctx, want) {
			t.Errorf("the view never logged %q", want)
		}
	}
	for _, p := range console.problems() {
		t.Errorf("console: %s", p)
	}
	if n := h.refused.Load(); n != 0 {
		t.Errorf("the page or the view asked the network outside the machine %d times", n)
	}
}

// checkViewPixels checks, in a screenshot of the page scrolled to the view,
// that the view's iframe shows something: within its box, dark pixels (the
// App's text and buttons) on its light background.
func checkViewPixels(t *testing.T, tab context.Context, shot []byte) {
	t.Helper()
	box, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('iframe[title="view of get-time"]').getBoundingClientRect(); return [r.x, r.y, r.width, Math.min(r.height, innerHeight - r.y)]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	r := image.Rect(int(box[0]), int(box[1]), int(box[0]+box[2]), int(box[1]+box[3])).Intersect(img.Bounds())
	if r.Dx() < 200 || r.Dy() < 100 {
		t.Fatalf("the view's box on screen is %v", r)
	}
	dark, light := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			switch l := (299*cr + 587*cg + 114*cb) / 1000 >> 8; {
			case l < 96:
				dark++
			case l > 200:
				light++
			}
		}
	}
	area := r.Dx() * r.Dy()
	t.Logf("view box %v: %d dark and %d light pixels of %d", r, dark, light, area)
	if dark < 500 || light < area/2 {
		t.Errorf("the view's box %v looks empty: %d dark, %d light pixels of %d", r, dark, light, area)
	}
}

// consoleWatch keeps what the tab's documents (the page, the proxies, the
// views) print: every line for the log, errors, warnings and uncaught
// exceptions as problems.
type consoleWatch struct {
	mu      sync.Mutex
	lines   []string
	bad     []string
	changed chan struct{} // a line came
}

// waitFor waits until a line contains s; false when ctx ends first.
func (c *consoleWatch) waitFor(ctx context.Context, s string) bool {
	for {
		c.mu.Lock()
		found := slices.ContainsFunc(c.lines, func(l string) bool { return strings.Contains(l, s) })
		c.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			return false
		}
	}
}

func (c *consoleWatch) problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.bad)
}

// watchConsole listens to the tab's console; the page's window.mcpkitConsole
// is not used (the view's console is its own).
func watchConsole(t *testing.T, tab context.Context) *consoleWatch {
	c := &consoleWatch{changed: make(chan struct{}, 1)}
	if err := chromedp.Listen(tab, func(ev any) {
		var line string
		bad := false
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				if a.Value != nil {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			line = string(e.Type) + ": " + strings.Join(args, " ")
			bad = e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning
		case *runtime.EventExceptionThrown:
			line = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				line += " " + e.ExceptionDetails.Exception.Description
			}
			bad = true
		default:
			return
		}
		c.mu.Lock()
		c.lines = append(c.lines, line)
		if bad {
			c.bad = append(c.bad, line)
		}
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		t.Logf("console:\n\t%s", strings.Join(c.lines, "\n\t"))
	})
	return c
}

// bridgeEntry is an entry of the page's bridge log (window.mcpkitLog).
type bridgeEntry struct {
	Dir, Method string
	ID          any
	Error       *string
}
