package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// TestServerConformanceThroughTap runs the server scenarios of the suite (0.1.16)
// against `mcpkit serve --http` through `mcpkit tap --listen ... --upstream ...`:
// every scenario must pass as it does without the tap, and the capture must pair
// every request with its response.
func TestServerConformanceThroughTap(t *testing.T) {
	s := requireSuite(t)
	bin := buildBinary(t, "github.com/mcpkit/mcpkit/cmd/mcpkit", t.TempDir())
	upstream := startServer(t, bin, "serve", "--conformance", "--http")
	capPath := filepath.Join(t.TempDir(), "capture.jsonl")
	tap := startServer(t, bin, "tap", "--out", capPath, "--upstream", upstream.url, "--listen")

	run := runSuiteAt(t, s, tap)
	run.verdict(t, func(string) bool { return true })
	if run.code != 0 && !t.Failed() {
		t.Errorf("every scenario passed but the suite exited with status %d; stderr:\n%s", run.code, tail(run.stderr, 30))
	}

	tap.stop() // SIGTERM: the tap writes what it has, syncs, and prints its summary
	_, recs, err := capture.ReadFile(capPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := capture.Summarize(recs)
	t.Logf("capture: %d records; %s", len(recs), sum.String())
	if sum.Requests < int64(run.sum.planned) {
		t.Errorf("%d requests captured for %d scenarios", sum.Requests, run.sum.planned)
	}
	if len(sum.Unanswered) > 0 || sum.Unmatched > 0 || sum.Dropped > 0 || sum.UpstreamErrors > 0 {
		t.Errorf("not every request pairs with its response: %s", sum.String())
	}
	if out := tap.stderr.String(); !strings.Contains(out, "mcpkit tap: ") || !strings.Contains(out, "0 requests without a response") {
		t.Errorf("the tap's summary on exit:\n%s", tail(out, 20))
	}
}
