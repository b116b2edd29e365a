package conformance

import (
	"context"
	"strings"
	"testing"
	"time"
)

// clientScenarios are the suite's client scenarios (0.1.16, the released protocol
// versions) that mcpkit's client must pass.
var clientScenarios = []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"}

// clientScenarios2026 are the client scenarios of the 2026-07-28 requirements
// (0.2.0-alpha.12) that mcpkit's client must pass one by one. The auth/ scenarios
// (OAuth) run in suite mode: see client_auth_test.go.
var clientScenarios2026 = []string{
	"tools_call",
	"request-metadata",
	"sep-2322-client-request-state",
	"http-standard-headers",
	"http-custom-headers",
	"http-invalid-tool-headers",
	"json-schema-ref-no-deref",
	"json-schema-2020-12-preservation",
}

// clientScenarioTimeout bounds one client-mode run of the suite: its test server,
// the client (which the suite itself kills after 30 s) and the verdict.
const clientScenarioTimeout = 90 * time.Second

// TestClientConformance runs each client scenario of the released versions against
// the client program in ./client. The scenarios run one after another: sse-retry
// measures the client's reconnection delay to within 50 ms, which a loaded machine
// would blur.
func TestClientConformance(t *testing.T) {
	s := requireSuite(t)
	runClientScenarios(t, s, buildClient(t), clientScenarios)
}

// TestClientConformance2026 runs the 2026-07-28 client scenarios against the same
// client program, which detects the stateless test servers on its own.
func TestClientConformance2026(t *testing.T) {
	s := requireNextSuite(t)
	runClientScenarios(t, s, buildClient(t), clientScenarios2026, "--spec-version", "2026-07-28")
}

// buildClient builds the client program the suite runs.
func buildClient(t *testing.T) string {
	t.Helper()
	client := buildBinary(t, "github.com/mcpkit/mcpkit/conformance/client", t.TempDir())
	if strings.ContainsAny(client, " \t\n") {
		t.Fatalf("the suite splits --command on spaces, and the client's path %q has one", client)
	}
	return client
}

// runClientScenarios runs each named scenario with the suite s against client,
// one after another, and fails the scenarios that did not pass every check.
func runClientScenarios(t *testing.T, s suite, client string, names []string, args ...string) {
	ran, passed := 0, 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ran++
			outDir := t.TempDir()
			suiteArgs := append([]string{"client", "--command", client, "--scenario", name, "--output-dir", outDir, "--timeout", "30000"}, args...)
			_, stderr, code, err := s.run(context.Background(), t, clientScenarioTimeout, suiteArgs...)
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
