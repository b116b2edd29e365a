package interop

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// tapReport is what ts_tap_client.mjs prints.
type tapReport struct {
	Steps map[string]struct {
		OK    bool            `json:"ok"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	} `json:"steps"`
	Failed []string `json:"failed"`
	Wire   []struct {
		Dir string          `json:"dir"` // "send" or "recv"
		Msg json.RawMessage `json:"msg"`
	} `json:"wire"`
}

// TestTypeScriptClientThroughStdioTap runs the official TypeScript SDK client
// against the npm reference server @modelcontextprotocol/server-everything with
// `mcpkit tap` in between, as a host would run it from its configuration. Every
// step must succeed as it would without the tap, and the capture must hold exactly
// the messages the client sent and received, in order, every request paired with
// its response, and the server's exit.
func TestTypeScriptClientThroughStdioTap(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	entry := packageBin(t, "@modelcontextprotocol/server-everything")
	capPath := filepath.Join(t.TempDir(), "capture.jsonl")

	var rep tapReport
	stderr, waitErr := runNodeReport(t, nil, &rep, node, "ts_tap_client.mjs", bin, "tap", "--out", capPath, "--", node, entry, "stdio")
	if waitErr != nil || len(rep.Failed) > 0 {
		for _, name := range rep.Failed {
			t.Errorf("step %s failed: %s", name, rep.Steps[name].Error)
		}
		t.Fatalf("exit: %v\nstderr:\n%s", waitErr, stderr)
	}
	checkTapSteps(t, &rep)
	if !strings.Contains(string(stderr), "mcpkit tap: ") || !strings.Contains(string(stderr), "0 requests without a response") {
		t.Errorf("the tap's summary (on the server's stderr, which the client shows):\n%s", string(stderr))
	}

	h, recs, err := capture.ReadFile(capPath)
	if err != nil {
		t.Fatal(err)
	}
	if h.Mode != "stdio" || len(h.Command) != 3 || h.Command[2] != "stdio" {
		t.Errorf("header %+v", h)
	}
	checkCaptureMatchesWire(t, &rep, recs)
	sum := capture.Summarize(recs)
	t.Logf("capture: %s", sum.String())
	if len(sum.Unanswered) > 0 || sum.Unmatched > 0 || sum.Invalid > 0 || sum.Dropped > 0 {
		t.Errorf("summary: %s", sum.String())
	}
	if last := recs[len(recs)-1]; last.Kind != capture.KindExit || last.ExitCode == nil {
		t.Errorf("the capture does not end with the server's exit: %+v", last)
	}
}

// checkTapSteps checks the values of the steps that must show the server worked.
func checkTapSteps(t *testing.T, rep *tapReport) {
	t.Helper()
	want := map[string]string{
		"echo":     `"Echo: hi"`,
		"getSum":   `"The sum of 2 and 3 is 5."`,
		"bigEcho":  `{"sent":320000,"equal":true}`,
		"sampling": "sampled through the tap",
		"roots":    "file:///tmp/tap-root",
		"progress": "Steps: 3.",
	}
	for step, w := range want {
		if v := string(rep.Steps[step].Value); !strings.Contains(v, w) {
			t.Errorf("step %s = %s, want %s in it", step, v, w)
		}
	}
	// Every progress notification went through the tap, in order: those the SDK
	// delivered, then those it dropped because they came in the same read as the
	// response (a TypeScript SDK behaviour, not the tap's).
	var p struct {
		Progress []float64 `json:"progress"`
		Late     []float64 `json:"late"`
	}
	if err := json.Unmarshal(rep.Steps["progress"].Value, &p); err != nil {
		t.Fatalf("progress step: %v", err)
	}
	if got := append(p.Progress, p.Late...); !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("progress delivered %v + dropped by the SDK %v, want [1 2 3]", p.Progress, p.Late)
	}
}

// checkCaptureMatchesWire holds the capture's messages against what the client
// sent (byte for byte: the SDK writes JSON.stringify of the message) and received
// (the same JSON values), in order.
func checkCaptureMatchesWire(t *testing.T, rep *tapReport, recs []*capture.Record) {
	t.Helper()
	var sent, received []json.RawMessage
	for _, w := range rep.Wire {
		if w.Dir == "send" {
			sent = append(sent, w.Msg)
		} else {
			received = append(received, w.Msg)
		}
	}
	var c2s, s2c []json.RawMessage
	for _, r := range recs {
		switch {
		case !r.IsMessage():
		case r.Dir == capture.ClientToServer:
			c2s = append(c2s, r.Msg)
		default:
			s2c = append(s2c, r.Msg)
		}
	}
	if len(c2s) != len(sent) || len(s2c) != len(received) {
		t.Fatalf("the capture has %d client and %d server messages; the client sent %d and received %d", len(c2s), len(s2c), len(sent), len(received))
	}
	for i := range sent {
		if !bytes.Equal(c2s[i], sent[i]) {
			t.Errorf("client message %d: captured %.200s, sent %.200s", i, c2s[i], sent[i])
		}
	}
	for i := range received {
		var a, b any
		if json.Unmarshal(s2c[i], &a) != nil || json.Unmarshal(received[i], &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("server message %d: captured %.200s, received %.200s", i, s2c[i], received[i])
		}
	}
}
