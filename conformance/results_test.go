package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sampleServerOutput is the shape of a server-mode run's standard output.
const sampleServerOutput = `Running active suite (3 scenarios) against http://127.0.0.1:1/mcp


=== Running scenario: ping ===
Running client scenario 'ping' against server: http://127.0.0.1:1/mcp

=== Running scenario: tools-list ===

=== SUMMARY ===
✓ ping: 1 passed, 0 failed
✗ tools-list: 0 passed, 1 failed
✓ server-sse-multiple-streams: 1 passed, 0 failed

Total: 2 passed, 1 failed
`

func TestParseSummary(t *testing.T) {
	s := parseSummary(sampleServerOutput)
	if s.planned != 3 {
		t.Errorf("planned = %d, want 3", s.planned)
	}
	if !slices.Equal(s.order, []string{"ping", "tools-list", "server-sse-multiple-streams"}) {
		t.Errorf("order = %v", s.order)
	}
	if s.scenarios["tools-list"] != 1 || s.scenarios["ping"] != 0 {
		t.Errorf("failed counts = %v", s.scenarios)
	}
	if s := parseSummary("garbage"); s.planned != -1 || len(s.order) != 0 {
		t.Errorf("garbage parsed as %+v", s)
	}
}

// sampleRequirementsOutput is the shape of a --requirements run's standard output.
const sampleRequirementsOutput = `Running requirements 2026-07-28 (4 scenarios) against http://127.0.0.1:1/mcp

=== Running scenario: caching ===

=== SUMMARY ===
✓ caching: 8 passed, 0 failed
✗ server-stateless: 17 passed, 13 failed
✓ tasks-status-notifications: 0 passed, 0 failed
✗ http-header-validation: 4 passed, 5 failed

Total: 29 passed, 18 failed

Not scored for 2026-07-28: 2 scenario(s) run, 1 failing. These do not affect conformance.
  ✓ tasks-status-notifications (extension)
  ✗ http-header-validation (pending)
`

func TestParseRequirementsSummary(t *testing.T) {
	s := parseSummary(sampleRequirementsOutput)
	if s.planned != 4 || len(s.order) != 4 || s.scenarios["server-stateless"] != 13 {
		t.Fatalf("summary = %+v", s)
	}
	if len(s.notScored) != 2 || s.notScored["tasks-status-notifications"] != "extension" || s.notScored["http-header-validation"] != "pending" {
		t.Errorf("notScored = %v", s.notScored)
	}
	scored := s.only(func(name string) bool { _, ns := s.notScored[name]; return !ns })
	if scored.planned != 2 || !slices.Equal(scored.order, []string{"caching", "server-stateless"}) || scored.scenarios["server-stateless"] != 13 {
		t.Errorf("scored part = %+v", scored)
	}
	if _, leaked := scored.scenarios["http-header-validation"]; leaked {
		t.Errorf("scored part holds a not-scored scenario: %+v", scored)
	}
	// A run without --requirements has nothing unscored.
	if s := parseSummary(sampleServerOutput); len(s.notScored) != 0 {
		t.Errorf("notScored of a suite run = %v", s.notScored)
	}
}

func TestSuitePinSpec(t *testing.T) {
	if got := releasedSuite.spec(); got != "0.1.16" {
		t.Errorf("released spec = %q", got)
	}
	if got := nextSuite.spec(); got != "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12" {
		t.Errorf("next spec = %q", got)
	}
}

func FuzzParseSummary(f *testing.F) {
	f.Add(sampleServerOutput)
	f.Add("=== SUMMARY ===\n✓ a: 1 passed, 0 failed\n✓ a: 1 passed, 0 failed\n")
	f.Add("Running x suite (99999999999999999999 scenarios)")
	f.Add(sampleRequirementsOutput)
	f.Add("=== SUMMARY ===\n\nNot scored for x: 1\n  ✗ a (b)\n  ✓ (c)\n")
	f.Fuzz(func(t *testing.T, out string) {
		s := parseSummary(out)
		if len(s.order) != len(s.scenarios) {
			t.Fatalf("order %v and scenarios %v disagree", s.order, s.scenarios)
		}
		for _, name := range s.order {
			if s.scenarios[name] < 0 {
				t.Fatalf("negative failure count for %s", name)
			}
		}
		for name, reason := range s.notScored {
			if name == "" || reason == "" {
				t.Fatalf("empty not-scored entry %q: %q", name, reason)
			}
		}
	})
}

// writeChecks writes a checks.json where the suite would.
func writeChecks(t *testing.T, dir, name, checks string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if checks != "" {
		if err := os.WriteFile(filepath.Join(d, "checks.json"), []byte(checks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadResultsAndJudge(t *testing.T) {
	dir := t.TempDir()
	writeChecks(t, dir, "server-ping-2026-01-02T03-04-05-678Z", `[{"id":"ping","status":"SUCCESS"}]`)
	writeChecks(t, dir, "server-tools-list-2026-01-02T03-04-05-679Z", `[{"id":"tools-list","status":"FAILURE","errorMessage":"Tool 0: missing description"}]`)
	writeChecks(t, dir, "server-server-sse-multiple-streams-2026-01-02T03-04-06-000Z",
		`[{"id":"server-accepts-multiple-post-streams","status":"SUCCESS"},{"id":"server-sse-streams-functional","status":"WARNING","errorMessage":"Only 2/3 SSE streams were functional"}]`)
	writeChecks(t, dir, "server-crashed-2026-01-02T03-04-06-001Z", "") // no checks.json
	writeChecks(t, dir, "unrelated", `[]`)

	results, err := readResults(dir, "server-")
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || !results["ping"].passed() || results["tools-list"].passed() || results["server-sse-multiple-streams"].passed() {
		t.Fatalf("results = %+v", results)
	}
	sum := parseSummary(sampleServerOutput)
	sum.order = append(sum.order, "crashed")
	sum.scenarios["crashed"] = 1
	passed, skipped, failures := judge(sum, results)
	if !slices.Equal(passed, []string{"ping"}) {
		t.Errorf("passed = %v", passed)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped = %v", skipped)
	}
	all := strings.Join(failures, "\n")
	for _, want := range []string{"tools-list:", "missing description", "Only 2/3 SSE streams", "crashed: no checks"} {
		if !strings.Contains(all, want) {
			t.Errorf("failures lack %q:\n%s", want, all)
		}
	}
}

// A scenario the suite parked (every check SKIPPED) is neither passed nor failed;
// one with a skipped check among failures, or with only INFO checks, still fails.
func TestJudgeSkippedBySuite(t *testing.T) {
	results := map[string]scenarioResult{
		"parked":  {name: "parked", checks: []check{{ID: "a", Status: "SKIPPED"}}},
		"mixed":   {name: "mixed", checks: []check{{ID: "a", Status: "SKIPPED"}, {ID: "b", Status: "FAILURE", ErrorMessage: "boom"}}},
		"info":    {name: "info", checks: []check{{ID: "a", Status: "INFO"}}},
		"counted": {name: "counted", checks: []check{{ID: "a", Status: "SKIPPED"}}},
	}
	sum := summary{order: []string{"parked", "mixed", "info", "counted"},
		scenarios: map[string]int{"parked": 0, "mixed": 1, "info": 0, "counted": 1}}
	passed, skipped, failures := judge(sum, results)
	if len(passed) != 0 || !slices.Equal(skipped, []string{"parked"}) || len(failures) != 3 {
		t.Errorf("passed %v, skipped %v, failures %q", passed, skipped, failures)
	}
	if (scenarioResult{}).skippedBySuite() {
		t.Error("a scenario without checks counts as skipped by the suite")
	}
}

func TestPassedNeedsASuccess(t *testing.T) {
	if (scenarioResult{checks: []check{{Status: "INFO"}}}).passed() {
		t.Error("a scenario with only INFO checks passed")
	}
	if !(scenarioResult{checks: []check{{Status: "INFO"}, {Status: "SUCCESS"}}}).passed() {
		t.Error("a scenario with a success and an info did not pass")
	}
}

func TestTailStripsColoursAndKeepsTheEnd(t *testing.T) {
	got := tail("one\n\x1b[31mFAILURE\x1b[0m two\nthree\n", 2)
	if got != "[... 1 lines before]\nFAILURE two\nthree" {
		t.Errorf("tail = %q", got)
	}
}
