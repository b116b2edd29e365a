package conformance

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The suite's OAuth client scenarios (auth/...) that mcpkit's client passes, per
// run. The suite runs them in parallel (suite mode), which also lets the
// scenarios where the client is meant to refuse (resource-mismatch,
// scope-retry-limit, iss-*) end with the client's exit status 1.
var (
	// authScenarios are the 14 scored auth scenarios, in both suite versions.
	authScenarios = []string{
		"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
		"auth/basic-cimd",
		"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
		"auth/scope-step-up", "auth/scope-retry-limit",
		"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
		"auth/pre-registration",
	}
	// authBackcompat are the 2025-03-26 scenarios (0.1.16 only).
	authBackcompat = []string{"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"}
	// authDraft016 are 0.1.16's draft scenarios.
	authDraft016 = []string{"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported"}
	// authDraft2026 are the scenarios the 2026-07-28 requirements add.
	authDraft2026 = append(slices.Clone(authDraft016),
		"auth/authorization-server-migration",
		"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
		"auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
		"auth/metadata-issuer-mismatch")
	// authExtensions016 are 0.1.16's extension scenarios.
	authExtensions016 = []string{"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/cross-app-access-complete-flow"}
	// authExtensions are 0.2.0-alpha.12's extension scenarios (--suite extensions).
	authExtensions = []string{
		"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/enterprise-managed-authorization",
		"auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
	}
)

// authSuiteTimeout bounds one suite-mode run of the client scenarios.
const authSuiteTimeout = 8 * time.Minute

// TestClientAuthConformance runs 0.1.16's client scenarios in suite mode (--suite
// all) and requires every auth scenario to pass with no failed or warning check.
func TestClientAuthConformance(t *testing.T) {
	s := requireSuite(t)
	want := slices.Concat(authScenarios, authBackcompat, authDraft016, authExtensions016)
	runAuthSuite(t, s, buildClient(t), want, "--suite", "all")
}

// TestClientAuthConformance2026 runs 0.2.0-alpha.12's client scenarios for both
// requirement sets and its extensions suite, and requires every auth scenario of
// each run to pass with no failed or warning check.
func TestClientAuthConformance2026(t *testing.T) {
	s := requireNextSuite(t)
	client := buildClient(t)
	runs := []struct {
		name string
		want []string
		args []string
	}{
		{"requirements-2025-11-25", slices.Concat(authScenarios, authExtensions), []string{"--requirements", "2025-11-25"}},
		{"requirements-2026-07-28", slices.Concat(authScenarios, authDraft2026, authExtensions), []string{"--requirements", "2026-07-28"}},
		{"extensions", authExtensions, []string{"--suite", "extensions"}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) { runAuthSuite(t, s, client, r.want, r.args...) })
	}
}

// runAuthSuite runs the suite in client suite mode with args and checks that the
// auth scenarios it ran are exactly want, each with at least one successful
// check and none failed or warning.
func runAuthSuite(t *testing.T, s suite, client string, want []string, args ...string) {
	t.Helper()
	outDir := t.TempDir()
	suiteArgs := append([]string{"client", "--command", client, "--output-dir", outDir}, args...)
	stdout, stderr, _, err := s.run(context.Background(), t, authSuiteTimeout, suiteArgs...)
	if err != nil {
		t.Fatalf("running the suite: %v\n%s", err, tail(stderr, 60))
	}
	results, err := readAuthResults(outDir)
	if err != nil {
		t.Fatalf("reading the suite's results: %v", err)
	}
	// Client suite mode titles its summary "SUITE SUMMARY".
	out := strings.Replace(stdout, "=== SUITE SUMMARY ===", "=== SUMMARY ===", 1)
	sum := parseSummary(out).only(func(name string) bool { return strings.HasPrefix(name, "auth/") })
	passed, skipped, failures := judge(sum, results)
	if got := slices.Sorted(maps.Keys(results)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("auth scenarios run:\n\t%v\nwant:\n\t%v", got, slices.Sorted(slices.Values(want)))
	}
	if len(skipped) > 0 {
		t.Errorf("the suite skipped %v", skipped)
	}
	for _, f := range failures {
		t.Errorf("%s", f)
	}
	if len(failures) > 0 {
		t.Logf("suite output:\n%s", tail(stdout+stderr, 80))
	}
	t.Logf("conformance %v: %d/%d auth scenarios passed", args, len(passed), len(want))
}

// readAuthResults reads the checks of the auth scenarios of a suite-mode run;
// the suite writes them under auth/ in the output directory.
func readAuthResults(outDir string) (map[string]scenarioResult, error) {
	raw, err := readResults(filepath.Join(outDir, "auth"), "")
	if err != nil {
		return nil, err
	}
	out := make(map[string]scenarioResult, len(raw))
	for name, r := range raw {
		r.name = "auth/" + name
		out[r.name] = r
	}
	return out, nil
}
