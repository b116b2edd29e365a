package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
)

// tsReport is the JSON object ts-client.mjs prints.
type tsReport struct {
	Steps         map[string]tsStep `json:"steps"`
	Notifications struct {
		Logging            []protocol.LoggingMessageParams `json:"logging"`
		ResourceUpdated    []string                        `json:"resourceUpdated"`
		ElicitationMessage string                          `json:"elicitationMessage"`
	} `json:"notifications"`
	Unexpected []string `json:"unexpected"`
	CloseError *tsError `json:"closeError"`
	Wire       []struct {
		Dir string          `json:"dir"` // "send" (client to server) or "recv"
		Msg json.RawMessage `json:"msg"`
	} `json:"wire"`
}

// tsStep is the outcome of one step of the script.
type tsStep struct {
	OK              bool            `json:"ok"`
	Value           json.RawMessage `json:"value"`
	Error           *tsError        `json:"error"`
	UnexpectedValue json.RawMessage `json:"unexpectedValue"`
}

// tsError is an error the TypeScript SDK threw, with its JSON-RPC code if any.
type tsError struct {
	Message string          `json:"message"`
	Code    *int64          `json:"code"`
	Data    json.RawMessage `json:"data"`
}

// tsToolResult is what the script records of a tools/call result.
type tsToolResult struct {
	Text              string          `json:"text"`
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Progress          []tsProgress    `json:"progress"`
	// LateProgress is the progress the SDK read with the response and dropped,
	// reporting it through Client.onerror (the scripts that record it say why).
	LateProgress []tsProgress `json:"lateProgress"`
}

// tsProgress is the part of a progress notification's params the checks look at.
type tsProgress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// value decodes the value of a step that must have succeeded.
func (r *tsReport) value(t *testing.T, name string, v any) bool {
	t.Helper()
	s, ok := r.Steps[name]
	switch {
	case !ok:
		t.Errorf("step %s: missing from the report", name)
		return false
	case !s.OK || s.Error != nil:
		t.Errorf("step %s failed: %+v", name, s.Error)
		return false
	}
	if err := json.Unmarshal(s.Value, v); err != nil {
		t.Errorf("step %s: decoding %s: %v", name, s.Value, err)
		return false
	}
	return true
}

// errorCode returns the JSON-RPC code of a step that must have thrown.
func (r *tsReport) errorCode(t *testing.T, name string) (int64, *tsError) {
	t.Helper()
	s, ok := r.Steps[name]
	if !ok || s.Error == nil {
		t.Errorf("step %s: expected an error, got %+v (value %s)", name, s, s.UnexpectedValue)
		return 0, nil
	}
	if s.Error.Code == nil {
		t.Errorf("step %s: the error has no JSON-RPC code: %q", name, s.Error.Message)
		return 0, s.Error
	}
	return *s.Error.Code, s.Error
}

// buildMcpkit builds cmd/mcpkit into a temporary directory, with the race detector
// when the tests have it, and returns the binary's path.
func buildMcpkit(t *testing.T) string {
	t.Helper()
	return buildProgram(t, "github.com/mcpkit/mcpkit/cmd/mcpkit")
}

// buildProgram builds the main package pkg into a temporary directory, with the
// race detector when the tests have it, and returns the binary's path.
func buildProgram(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), path.Base(pkg))
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("built %s in %v (race detector: %v)", bin, time.Since(start).Round(time.Millisecond), raceEnabled)
	return bin
}

// runTSClient runs ts-client.mjs against `bin serve`, asking for protocol version
// version, and returns its report and stderr. The node process (and the server it
// starts, in the same process group) is bounded by testTimeout and killed at cleanup.
func runTSClient(t *testing.T, node, bin, version string) (*tsReport, string) {
	t.Helper()
	var report tsReport
	// A data race in the server stops it at once, so that the steps after it fail.
	stderr, waitErr := runNodeReport(t, []string{"GORACE=halt_on_error=1", "MCP_INTEROP_PROTOCOL_VERSION=" + version}, &report,
		node, "ts-client.mjs", bin, "serve")
	if waitErr != nil || len(report.Unexpected) > 0 {
		t.Errorf("ts-client.mjs: exit %v; steps that failed unexpectedly: %v", waitErr, report.Unexpected)
		for _, name := range report.Unexpected {
			t.Errorf("  %s: %+v %s", name, report.Steps[name].Error, report.Steps[name].UnexpectedValue)
		}
	}
	return &report, string(stderr)
}

// TestTypeScriptClientAgainstMcpkitServe drives `mcpkit serve` with the official
// TypeScript SDK client (ts-client.mjs) and checks what it saw: the negotiated
// version, tools with progress, tool errors and protocol errors, sampling,
// elicitation and roots answered by the TypeScript client, logging, resources,
// subscriptions, prompts, completion and cancellation; and it holds every message
// the server wrote against the official schema.
//
// It runs once for each protocol version that uses initialize: the script asks for
// it in place of the SDK's own newest version, so the server's older wire formats
// are exercised too.
func TestTypeScriptClientAgainstMcpkitServe(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	for _, version := range legacyVersions {
		t.Run(version, func(t *testing.T) {
			r, stderr := runTSClient(t, node, bin, version)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("stderr of node and the server:\n%s", stderr)
					for _, w := range r.Wire {
						t.Logf("%s %s", w.Dir, clip(w.Msg, 2000))
					}
				}
			})
			if strings.Contains(stderr, "DATA RACE") {
				t.Errorf("the mcpkit server reported a data race")
			}
			if r.CloseError != nil {
				t.Errorf("closing the TypeScript client: %+v", r.CloseError)
			}
			checkTSReport(t, r, version)
		})
	}
}

// checkTSReport checks the report of a run that asked for version.
func checkTSReport(t *testing.T, r *tsReport, version string) {
	t.Run("initialize", func(t *testing.T) {
		var init struct {
			ProtocolVersion string                      `json:"protocolVersion"`
			ServerInfo      protocol.Implementation     `json:"serverInfo"`
			Capabilities    protocol.ServerCapabilities `json:"capabilities"`
			Instructions    string                      `json:"instructions"`
		}
		if !r.value(t, "initialize", &init) {
			return
		}
		if init.ProtocolVersion != version {
			t.Errorf("negotiated protocol version %q, want %q", init.ProtocolVersion, version)
		}
		if init.ServerInfo.Name != "mcpkit-demo" {
			t.Errorf("serverInfo.name = %q, want mcpkit-demo", init.ServerInfo.Name)
		}
		c := init.Capabilities
		if c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Logging == nil {
			t.Errorf("capabilities lack tools, resources, prompts or logging: %+v", c)
		}
		if (c.Completions != nil) != protocol.HasCompletionsCapability(version) {
			t.Errorf("completions capability declared: %v; %s has it: %v", c.Completions != nil, version, protocol.HasCompletionsCapability(version))
		}
		if init.Instructions == "" {
			t.Error("no instructions")
		}
	})

	t.Run("tools", func(t *testing.T) {
		var list struct {
			Names []string `json:"names"`
		}
		if r.value(t, "listTools", &list) {
			requireAll(t, "tools/list", list.Names, "echo", "count", "test_throw", "echo_ip", "add")
		}
		var echo tsToolResult
		if r.value(t, "echo", &echo) && (echo.Text != "hello hi" || echo.IsError) {
			t.Errorf("echo {message: hi} = %+v, want text \"hello hi\"", echo)
		}
		var count tsToolResult
		if r.value(t, "count", &count) {
			// Progress the SDK dropped as read with the response counts: mcpkit
			// sent it before the response, the SDK does not deliver it (see
			// checkTS2Progress).
			var values []float64
			for _, p := range slices.Concat(count.Progress, count.LateProgress) {
				values = append(values, p.Progress)
				if p.Total != 3 {
					t.Errorf("count progress %+v: total %v, want 3", p, p.Total)
				}
				// The message field was added in 2025-03-26.
				if (p.Message != "") != protocol.HasProgressMessage(version) {
					t.Errorf("count progress %+v: message present: %v; %s has it: %v", p, p.Message != "", version, protocol.HasProgressMessage(version))
				}
			}
			if !reflect.DeepEqual(values, []float64{0, 1, 2}) {
				t.Errorf("count {n: 3}: progress values %v (the last %d dropped by the SDK as late), want [0 1 2] in order", values, len(count.LateProgress))
			} else if len(count.LateProgress) > 0 {
				t.Logf("count {n: 3}: the SDK dropped the last %d progress values, read with the response", len(count.LateProgress))
			}
			if count.Text != "3" || count.IsError {
				t.Errorf("count {n: 3} = %+v, want text \"3\"", count)
			}
		}
		var big struct {
			SentLength     int  `json:"sentLength"`
			ReceivedLength int  `json:"receivedLength"`
			Equal          bool `json:"equal"`
		}
		if r.value(t, "bigEcho", &big) && !big.Equal {
			t.Errorf("echo of a %d-character message (over 64 KiB, with U+2028 and emoji) came back as %d characters, not equal",
				big.SentLength, big.ReceivedLength)
		}
		var thrown tsToolResult
		if r.value(t, "testThrow", &thrown) && (!thrown.IsError || thrown.Text == "") {
			t.Errorf("test_throw = %+v, want isError with a message", thrown)
		}
		if code, _ := r.errorCode(t, "unknownTool"); code != -32602 {
			t.Errorf("calling an unknown tool: code %d, want -32602 (invalid params)", code)
		}
		var add tsToolResult
		if r.value(t, "add", &add) {
			// Structured output came in 2025-06-18; before it, the text block is all.
			if protocol.HasStructuredOutput(version) {
				var out struct {
					Sum *float64 `json:"sum"`
				}
				if err := json.Unmarshal(add.StructuredContent, &out); err != nil || out.Sum == nil || *out.Sum != 5.5 {
					t.Errorf("add {a: 2, b: 3.5}: structuredContent %s, want {\"sum\":5.5}", add.StructuredContent)
				}
			} else if add.StructuredContent != nil {
				t.Errorf("add: structuredContent %s sent in %s, which does not have it", add.StructuredContent, version)
			}
			if add.Text != `{"sum":5.5}` {
				t.Errorf("add {a: 2, b: 3.5}: text %q, want the JSON of the structured output", add.Text)
			}
		}
		var ip tsToolResult
		if r.value(t, "echoIp", &ip) && (ip.IsError || ip.Text == "") {
			t.Errorf("echo_ip = %+v, want a text result", ip)
		}
	})

	t.Run("client features", func(t *testing.T) {
		var roots, sample, ask tsToolResult
		if r.value(t, "listRootsTool", &roots) && roots.Text != "file:///tmp/mcpkit-interop-root interop-root" {
			t.Errorf("list_roots = %q, want the TypeScript client's root", roots.Text)
		}
		if r.value(t, "sample", &sample) && sample.Text != "sampled: say hi (model interop-model)" {
			t.Errorf("sample = %q, want the TypeScript client's sampled answer", sample.Text)
		}
		// Elicitation came in 2025-06-18: before it the server must not ask, even
		// though the TypeScript client declares the capability.
		switch ok := r.value(t, "askName", &ask); {
		case !ok:
		case protocol.HasElicitation(version):
			if ask.Text != "hello Ada" || r.Notifications.ElicitationMessage != "What is your name?" {
				t.Errorf("ask_name = %q after elicitation message %q, want \"hello Ada\"", ask.Text, r.Notifications.ElicitationMessage)
			}
		default:
			if !ask.IsError || r.Notifications.ElicitationMessage != "" {
				t.Errorf("ask_name in %s = %+v after elicitation message %q, want an isError result and no elicitation/create",
					version, ask, r.Notifications.ElicitationMessage)
			}
		}
	})

	t.Run("logging", func(t *testing.T) {
		var res tsToolResult
		if !r.value(t, "logging", &res) {
			return
		}
		var levels []protocol.LoggingLevel
		for _, m := range r.Notifications.Logging {
			levels = append(levels, m.Level)
		}
		want := []protocol.LoggingLevel{protocol.LevelWarning, protocol.LevelError}
		if !reflect.DeepEqual(levels, want) {
			t.Errorf("after logging/setLevel warning, the log tool sent levels %v, want %v", levels, want)
		}
	})

	t.Run("resources", func(t *testing.T) {
		var list struct {
			URIs []string `json:"uris"`
		}
		if r.value(t, "listResources", &list) {
			requireAll(t, "resources/list", list.URIs, "demo://readme", "demo://logo.png")
		}
		var readme []protocol.ResourceContents
		if r.value(t, "readReadme", &readme) {
			if len(readme) != 1 || readme[0].Text != "mcpkit demo server: every MCP feature in one place." || readme[0].MimeType != "text/plain" {
				t.Errorf("demo://readme = %+v", readme)
			}
		}
		var logo []protocol.ResourceContents
		if r.value(t, "readLogo", &logo) {
			if len(logo) != 1 || !bytes.HasPrefix(logo[0].Blob, []byte("\x89PNG\r\n\x1a\n")) || logo[0].MimeType != "image/png" {
				t.Errorf("demo://logo.png = %+v, want one PNG blob", logo)
			}
		}
		var templates []string
		if r.value(t, "listResourceTemplates", &templates) && !slices.Contains(templates, "demo://items/{id}") {
			t.Errorf("resources/templates/list = %q", templates)
		}
		var item []protocol.ResourceContents
		if r.value(t, "readItem", &item) && (len(item) != 1 || item[0].Text != "the answer" || item[0].URI != "demo://items/42") {
			t.Errorf("demo://items/42 = %+v", item)
		}
		if code, e := r.errorCode(t, "readMissingItem"); code != protocol.CodeResourceNotFound {
			t.Errorf("reading demo://items/7: code %d, want %d (resource not found)", code, protocol.CodeResourceNotFound)
		} else if !strings.Contains(string(e.Data), "demo://items/7") {
			t.Errorf("reading demo://items/7: error data %s lacks the URI", e.Data)
		}
		var sub tsToolResult
		if r.value(t, "subscribe", &sub) && !reflect.DeepEqual(r.Notifications.ResourceUpdated, []string{"demo://readme"}) {
			t.Errorf("after subscribing to demo://readme and touching it: updates %q", r.Notifications.ResourceUpdated)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		var names []string
		if r.value(t, "listPrompts", &names) {
			requireAll(t, "prompts/list", names, "greet", "describe_logo")
		}
		var greet protocol.GetPromptResult
		if r.value(t, "greet", &greet) {
			if len(greet.Messages) != 1 || greet.Messages[0].Role != protocol.RoleUser ||
				greet.Messages[0].Content.Type != "text" || greet.Messages[0].Content.Text != "Greet Ada in a pirate style." {
				t.Errorf("greet {name: Ada, style: pirate} = %+v", greet)
			}
		}
		if code, _ := r.errorCode(t, "unknownPrompt"); code != -32602 {
			t.Errorf("getting an unknown prompt: code %d, want -32602", code)
		}
		var values []string
		if r.value(t, "complete", &values) && !reflect.DeepEqual(values, []string{"pirate"}) {
			t.Errorf("completing greet's style from \"p\" = %q, want [pirate]", values)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		var res struct {
			CancelError *tsError `json:"cancelError"`
			AfterText   string   `json:"afterText"`
		}
		if !r.value(t, "cancel", &res) {
			return
		}
		if res.CancelError == nil {
			t.Error("the aborted count call did not fail")
		}
		if res.AfterText != "hello after cancel" {
			t.Errorf("echo after the cancellation = %q", res.AfterText)
		}
	})

	t.Run("wire", func(t *testing.T) { checkWire(t, r) })
	t.Run("schema", func(t *testing.T) {
		msgs := make([]wireMessage, len(r.Wire))
		for i, w := range r.Wire {
			msgs[i] = wireMessage{FromMcpkit: w.Dir == "recv", Raw: w.Msg}
		}
		checkWireAgainstSchema(t, version, msgs)
	})
}

// checkWire checks the raw messages: every one is JSON-RPC 2.0, every response
// answers a request the client sent, exactly once, and the cancelled request got no
// response (the specification says the receiver should not send one).
func checkWire(t *testing.T, r *tsReport) {
	type message struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	sent := map[string]string{} // request id → method
	answered := map[string]int{}
	var cancelled []string
	for _, w := range r.Wire {
		var m message
		if err := json.Unmarshal(w.Msg, &m); err != nil {
			t.Errorf("%s %s: %v", w.Dir, w.Msg, err)
			continue
		}
		if m.JSONRPC != "2.0" {
			t.Errorf("%s %s: jsonrpc is not \"2.0\"", w.Dir, w.Msg)
		}
		if w.Dir == "send" {
			if m.ID != nil && m.Method != "" {
				sent[string(m.ID)] = m.Method
			}
			if m.Method == "notifications/cancelled" {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				_ = json.Unmarshal(m.Params, &p)
				cancelled = append(cancelled, string(p.RequestID))
			}
			continue
		}
		if m.Method != "" {
			continue // a request or notification from the server
		}
		if _, ok := sent[string(m.ID)]; !ok {
			t.Errorf("recv %s: a response to no request the client sent", w.Msg)
		}
		if (m.Result == nil) == (m.Error == nil) {
			t.Errorf("recv %s: a response must have exactly one of result and error", w.Msg)
		}
		answered[string(m.ID)]++
	}
	if len(cancelled) == 0 {
		t.Error("the client sent no notifications/cancelled")
	}
	for _, id := range cancelled {
		if answered[id] != 0 {
			t.Errorf("the server answered request %s after it was cancelled", id)
		}
	}
	for id, method := range sent {
		if n := answered[id]; n != 1 && !slices.Contains(cancelled, id) {
			t.Errorf("request %s (%s) was answered %d times, want once", id, method, n)
		}
	}
}

// clip shortens b to at most n bytes for a log line, saying how much it left out.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d more bytes)", b[:n], len(b)-n)
}
