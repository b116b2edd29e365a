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

func FuzzParseSummary(f *testing.F) {
	f.Add(sampleServerOutput)
	f.Add("=== SUMMARY ===\n✓ a: 1 passed, 0 failed\n✓ a: 1 passed, 0 failed\n")
	f.Add("Running x suite (99999999999999999999 scenarios)")
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
	passed, failures := judge(sum, results)
	if !slices.Equal(passed, []string{"ping"}) {
		t.Errorf("passed = %v", passed)
	}
	all := strings.Join(failures, "\n")
	for _, want := range []string{"tools-list:", "missing description", "Only 2/3 SSE streams", "crashed: no checks"} {
		if !strings.Contains(all, want) {
			t.Errorf("failures lack %q:\n%s", want, all)
		}
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
