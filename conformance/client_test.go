package conformance

import (
	"context"
	"strings"
	"testing"
	"time"
)

// clientScenarios are the suite's client scenarios that mcpkit's client must pass.
var clientScenarios = []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"}

// clientScenarioTimeout bounds one client-mode run of the suite: its test server,
// the client (which the suite itself kills after 30 s) and the verdict.
const clientScenarioTimeout = 90 * time.Second

// TestClientConformance runs each client scenario against the client program in
// ./client. The scenarios run one after another: sse-retry measures the client's
// reconnection delay to within 50 ms, which a loaded machine would blur.
func TestClientConformance(t *testing.T) {
	s := requireSuite(t)
	client := buildBinary(t, "github.com/mcpkit/mcpkit/conformance/client", t.TempDir())
	if strings.ContainsAny(client, " \t\n") {
		t.Fatalf("the suite splits --command on spaces, and the client's path %q has one", client)
	}
	ran, passed := 0, 0
	for _, name := range clientScenarios {
		t.Run(name, func(t *testing.T) {
			ran++
			outDir := t.TempDir()
			_, stderr, code, err := s.run(context.Background(), t, clientScenarioTimeout,
				"client", "--command", client, "--scenario", name, "--output-dir", outDir, "--timeout", "30000")
			if err != nil {
				t.Fatalf("running the suite: %v\n%s", err, tail(stderr, 60))
			}
			results, err := readResults(outDir, "")
			if err != nil {
				t.Fatalf("reading the suite's results: %v", err)
			}
			r, ok := results[name]
			switch {
			case !ok:
				t.Errorf("%s: the suite recorded no checks (exit status %d):\n%s", name, code, tail(stderr, 60))
			case !r.passed() || code != 0:
				// The suite prints the client's output when the client failed.
				t.Errorf("%s: exit status %d, problems:\n\t%s\nsuite output:\n%s", name, code, strings.Join(r.problems(), "\n\t"), tail(stderr, 60))
			default:
				passed++
			}
		})
	}
	t.Logf("conformance client: %d/%d scenarios passed", passed, ran)
}
