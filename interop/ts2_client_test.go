package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// statelessVersion is the stateless protocol revision the TypeScript SDK 2.x speaks
// when it negotiates (versionNegotiation auto or pinned).
const statelessVersion = protocol.Version20260728

// tsStatelessEra is the TypeScript SDK 2.x's own name for the 2026-07-28
// (stateless) era, as its client's getProtocolEra() and its server's ctx.era
// report it; mcpkit's vocabulary does not use it.
const tsStatelessEra = "modern"

// ts2Report is the JSON object ts2_client.mjs prints. The embedded tsReport holds
// the steps, the stdio wire record and the failures; Exchanges holds the HTTP
// record.
type ts2Report struct {
	tsReport
	Negotiation  string `json:"negotiation"`
	Kind         string `json:"kind"`
	Elicitations []struct {
		Message string `json:"message"`
	} `json:"elicitations"`
	// Progress is what the SDK delivered to the count call's onprogress;
	// LateProgress what it received but dropped, reporting it through onerror,
	// because the response had already been handled (see checkTS2Progress).
	Progress     []ts2Progress `json:"progress"`
	LateProgress []ts2Progress `json:"lateProgress"`
	// SDKErrors are the other errors the SDK reported through Client.onerror.
	SDKErrors []string       `json:"sdkErrors"`
	Exchanges []httpExchange `json:"exchanges"`
}

// ts2Progress is the part of a progress notification's params the checks look at.
type ts2Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
}

// ts2Connect is the value of the script's connect step.
type ts2Connect struct {
	Era             string                  `json:"era"`
	ProtocolVersion string                  `json:"protocolVersion"`
	ServerInfo      protocol.Implementation `json:"serverInfo"`
	Discover        *struct {
		SupportedVersions []string `json:"supportedVersions"`
	} `json:"discover"`
}

// ts2Run is one run of ts2_client.mjs: how the client negotiates, over what, and
// what must come of it.
type ts2Run struct {
	negotiation string // "auto", "pin" or "legacy"
	stateless   bool   // the run must end in the 2026-07-28 era
}

// ts2Runs are the three ways the SDK 2.x client can connect. Against mcpkit, which
// serves both eras on one endpoint, auto and pin must reach 2026-07-28 and the
// SDK's default (legacy) must negotiate 2025-11-25 through initialize.
var ts2Runs = []ts2Run{
	{negotiation: "auto", stateless: true},
	{negotiation: "pin", stateless: true},
	{negotiation: "legacy", stateless: false},
}

// runTS2Client runs `node ts2_client.mjs negotiation kind target...` and returns its
// report. The node process (and, on stdio, the server it starts, in the same
// process group) is bounded by testTimeout and killed at cleanup. On failure the
// wire, the HTTP exchanges and node's stderr (which holds the stdio server's) are
// logged.
func runTS2Client(t *testing.T, node, negotiation, kind string, target ...string) *ts2Report {
	t.Helper()
	var r ts2Report
	// A data race in a stdio server stops it at once, so that the steps after it fail.
	stderr, waitErr := runNodeReport(t, []string{"GORACE=halt_on_error=1 atexit_sleep_ms=0"}, &r,
		node, append([]string{"ts2_client.mjs", negotiation, kind}, target...)...)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		t.Logf("stderr of node (and of a stdio server):\n%s", stderr)
		for _, e := range r.SDKErrors {
			t.Logf("the SDK reported: %s", e)
		}
		for _, w := range r.Wire {
			t.Logf("%s %s", w.Dir, clip(w.Msg, 3000))
		}
		for i := range r.Exchanges {
			e := &r.Exchanges[i]
			t.Logf("exchange %d: %s %s\n\trequest headers %v\n\trequest body %s\n\t→ %d, response headers %v\n\tresponse body %s\n\tfetch error %q",
				i, e.Method, e.Path, e.RequestHeaders, clip([]byte(e.RequestBody), 3000),
				e.Status, e.ResponseHeaders, clip([]byte(e.ResponseBody), 3000), e.FetchError)
		}
	})
	if bytes.Contains(stderr, []byte("DATA RACE")) {
		t.Error("the mcpkit server reported a data race")
	}
	if waitErr != nil || len(r.Unexpected) > 0 {
		t.Errorf("ts2_client.mjs: exit %v; steps that failed unexpectedly: %v", waitErr, r.Unexpected)
		for _, name := range r.Unexpected {
			t.Errorf("  %s: %+v %s", name, r.Steps[name].Error, r.Steps[name].UnexpectedValue)
		}
	}
	if r.CloseError != nil {
		t.Errorf("closing the TypeScript client: %+v", r.CloseError)
	}
	return &r
}

// TestTypeScript2ClientAgainstMcpkitServe drives `mcpkit serve` with the official
// TypeScript SDK 2.x client (@modelcontextprotocol/client, ts2_client.mjs) over
// stdio, in each of its three negotiation modes:
//
//   - auto, with the SDK's own StdioClientTransport, so the SDK probes with
//     server/discover on a short-lived sibling process and then starts the real
//     one: what an application gets by opting in;
//   - pin (2026-07-28 or a failure), with the wire recorded;
//   - legacy, the SDK's default: initialize, as a legacy client, wire recorded.
//
// Each run lists tools, calls echo, count (progress) and ask_name, which elicits:
// in 2026-07-28 mcpkit answers with an input_required result that the SDK fulfils
// through its elicitation/create handler and retries with the sealed requestState;
// in 2025-11-25 mcpkit sends elicitation/create as a request. It reads a resource
// and a missing one, gets a prompt, and calls an unknown tool. The era is checked
// from the client's side (getProtocolEra, getNegotiatedProtocolVersion) and, where
// recorded, on the wire (see checkTS2Wire), including every message mcpkit wrote
// against the official schema of the version in use.
func TestTypeScript2ClientAgainstMcpkitServe(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	for _, run := range ts2Runs {
		t.Run(run.negotiation, func(t *testing.T) {
			t.Parallel()
			r := runTS2Client(t, node, run.negotiation, "stdio", bin, "serve")
			if !checkTS2Steps(t, r, run) {
				return
			}
			if run.negotiation == "auto" {
				if len(r.Wire) != 0 {
					t.Errorf("auto over the SDK's own stdio transport: %d messages recorded, want none (nothing wraps it)", len(r.Wire))
				}
				return
			}
			checkTS2Wire(t, r, run)
		})
	}
}

// TestTypeScript2ClientProgressReadWithResponse runs the stdio steps with mcpkit's
// output relayed by coalesce_progress.mjs, which keeps every byte and its order but
// writes each progress notification in one write with the response after it: what
// a client slow to read (under load) sees. mcpkit's wire is as always (progress
// before the response), the SDK drops the progress it reads with the response and
// reports it, and the checks of every run still hold: the flake this reproduces
// was the SDK delivering [0] of [0 1 2] to onprogress.
func TestTypeScript2ClientProgressReadWithResponse(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	for _, run := range ts2Runs {
		if run.negotiation == "auto" {
			continue // the SDK starts the server itself, without the relay
		}
		t.Run(run.negotiation, func(t *testing.T) {
			t.Parallel()
			r := runTS2Client(t, node, run.negotiation, "stdio", node, "coalesce_progress.mjs", bin, "serve")
			if !checkTS2Steps(t, r, run) {
				return
			}
			checkTS2Wire(t, r, run)
			if len(r.LateProgress) == 0 {
				t.Errorf("the SDK delivered progress %v and dropped none read with the response; "+
					"if it no longer drops any, checkTS2Progress can ask onprogress for all of it", r.Progress)
			}
		})
	}
}

// TestTypeScript2ClientAgainstMcpkitServeHTTP drives `mcpkit serve --http
// 127.0.0.1:0`, with and without --sessionless, with the TypeScript SDK 2.x client's
// StreamableHTTPClientTransport, recording every HTTP exchange: the same steps and
// checks as over stdio, and the HTTP shape of each era (checkTS2HTTP): in
// 2026-07-28 every POST carries MCP-Protocol-Version and Mcp-Method (and Mcp-Name)
// matching its body, no session id either way, and every request is answered 200.
// The SDK's default (legacy) runs against the stateful server only: a sessionless
// legacy server cannot send elicitation/create, which the ask_name step needs.
func TestTypeScript2ClientAgainstMcpkitServeHTTP(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	for _, server := range []struct {
		name string
		args []string
	}{
		{name: "stateful"},
		{name: "sessionless", args: []string{"--sessionless"}},
	} {
		t.Run(server.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
			defer cancel()
			out := newEventLog()
			cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--http", "127.0.0.1:0"}, server.args...)...)
			cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 atexit_sleep_ms=0")
			m, _ := startAnnouncedServer(ctx, t, cmd, out, serveAnnouncement)
			endpoint := "http://" + m[1] + "/mcp"
			for _, run := range ts2Runs {
				if !run.stateless && server.args != nil {
					continue
				}
				t.Run(run.negotiation, func(t *testing.T) {
					r := runTS2Client(t, node, run.negotiation, "http", endpoint)
					if !checkTS2Steps(t, r, run) {
						return
					}
					checkTS2Wire(t, r, run)
					checkTS2HTTP(t, r, run, server.args == nil)
				})
			}
			for _, line := range out.snapshot() {
				if strings.Contains(line, "DATA RACE") {
					t.Error("mcpkit serve reported a data race")
					break
				}
			}
		})
	}
}

// checkTS2Steps checks what the SDK reported of each step: the era it is in, and
// the demo's answers. It reports whether the SDK ended in the era the run wants;
// when it did not, it says why (what the server answered to server/discover) and
// checks nothing else, since everything after follows from that.
func checkTS2Steps(t *testing.T, r *ts2Report, run ts2Run) bool {
	t.Helper()
	var conn ts2Connect
	if !r.value(t, "connect", &conn) {
		if run.stateless {
			t.Errorf("the SDK could not connect in 2026-07-28; the probe:\n%s", r.discoverEvidence(t))
		}
		return false // nothing else ran
	}
	wantEra, wantVersion := "legacy", protocol.LatestLegacy
	if run.stateless {
		wantEra, wantVersion = tsStatelessEra, statelessVersion
	}
	if conn.Era != wantEra || conn.ProtocolVersion != wantVersion {
		t.Errorf("the SDK (negotiation %s) is in era %q at %q, want %q at %q; the probe:\n%s",
			run.negotiation, conn.Era, conn.ProtocolVersion, wantEra, wantVersion, r.discoverEvidence(t))
		return false
	}
	if conn.ServerInfo.Name != "mcpkit-demo" {
		t.Errorf("the SDK sees server %+v, want mcpkit-demo", conn.ServerInfo)
	}
	if run.stateless {
		// The server/discover result the SDK kept: mcpkit offers 2026-07-28 and
		// every legacy version.
		if conn.Discover == nil {
			t.Error("the SDK kept no server/discover result")
		} else {
			requireAll(t, "server/discover supportedVersions", conn.Discover.SupportedVersions, append([]string{statelessVersion}, legacyVersions...)...)
		}
	} else if conn.Discover != nil {
		t.Errorf("a legacy connection with a server/discover result: %+v", conn.Discover)
	}

	var list struct {
		Names []string `json:"names"`
	}
	if r.value(t, "listTools", &list) {
		requireAll(t, "tools/list", list.Names, "echo", "count", "ask_name", "add")
	}
	var echo struct {
		tsToolResult
		Meta map[string]json.RawMessage `json:"meta"`
	}
	if r.value(t, "echo", &echo) {
		if echo.Text != "hello hi" || echo.IsError {
			t.Errorf("echo {message: hi} = %+v, want text \"hello hi\"", echo.tsToolResult)
		}
		// Only 2026-07-28 results carry the server's identity in _meta.
		if _, ok := echo.Meta["io.modelcontextprotocol/serverInfo"]; ok != run.stateless {
			t.Errorf("echo result _meta %v: serverInfo present %v, want %v", echo.Meta, ok, run.stateless)
		}
	}
	var count tsToolResult
	if r.value(t, "count", &count) {
		if count.Text != "3" || count.IsError {
			t.Errorf("count {n: 3} = %+v, want \"3\"", count)
		}
		checkTS2Progress(t, r)
	}
	var ask tsToolResult
	if r.value(t, "askName", &ask) {
		if ask.Text != "hello Ada" || ask.IsError {
			t.Errorf("ask_name = %+v, want \"hello Ada\" (the TypeScript client's elicitation answer)", ask)
		}
		if len(r.Elicitations) != 1 || r.Elicitations[0].Message != "What is your name?" {
			t.Errorf("the SDK's elicitation handler ran for %+v, want once for \"What is your name?\"", r.Elicitations)
		}
	}
	if code, _ := r.errorCode(t, "unknownTool"); code != protocol.CodeInvalidParams {
		t.Errorf("calling an unknown tool: code %d, want %d", code, protocol.CodeInvalidParams)
	}
	var readme struct {
		Contents []protocol.ResourceContents `json:"contents"`
	}
	if r.value(t, "readReadme", &readme) &&
		(len(readme.Contents) != 1 || readme.Contents[0].Text != "mcpkit demo server: every MCP feature in one place.") {
		t.Errorf("resources/read demo://readme = %+v", readme.Contents)
	}
	// The SDK 2.x reports -32602 for a missing resource in both eras (it maps a
	// received -32002); the wire check looks at what mcpkit sent.
	if code, e := r.errorCode(t, "readMissingItem"); code != protocol.CodeInvalidParams && code != protocol.CodeResourceNotFound {
		t.Errorf("reading demo://items/7: code %d (%+v), want resource not found", code, e)
	}
	var greet struct {
		Messages []protocol.PromptMessage `json:"messages"`
	}
	if r.value(t, "greet", &greet) &&
		(len(greet.Messages) != 1 || greet.Messages[0].Content.Text != "Greet Ada in a pirate style.") {
		t.Errorf("prompts/get greet = %+v", greet.Messages)
	}
	return true
}

// checkTS2Progress checks the count call's progress as the SDK saw it: every value,
// 0, 1 and 2 with total 3, reached the SDK in order, whether it delivered them to
// onprogress or dropped them as late.
//
// The SDK 2.x hands a notification to its handler in a microtask but settles a
// response at once, removing the request's progress handler; progress that reaches
// it in the same read as the response (on stdio, one chunk of the pipe: under load,
// lines written apart are read together) is therefore dropped, and reported
// through Client.onerror, although it preceded the response on the wire. The SDK
// thus guarantees only a prefix of the progress to onprogress; that mcpkit wrote
// all of it before the response is checked on the wire (checkTS2ProgressWire).
func checkTS2Progress(t *testing.T, r *ts2Report) {
	t.Helper()
	var delivered, all []float64
	for _, p := range r.Progress {
		delivered = append(delivered, p.Progress)
	}
	all = slices.Clone(delivered)
	for _, p := range r.LateProgress {
		all = append(all, p.Progress)
	}
	for _, p := range slices.Concat(r.Progress, r.LateProgress) {
		if p.Total != 3 {
			t.Errorf("count progress %+v: total %v, want 3", p, p.Total)
		}
	}
	if !slices.Equal(all, []float64{0, 1, 2}) {
		t.Errorf("count {n: 3}: the SDK delivered progress %v and dropped %v as late, want [0 1 2] in order", delivered, all[len(delivered):])
	} else if len(r.LateProgress) > 0 {
		t.Logf("count {n: 3}: the SDK delivered progress %v and dropped %v, read with the response", delivered, all[len(delivered):])
	}
}
