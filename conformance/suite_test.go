package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// installHint says how to install the suite; every failure about it ends with it.
const installHint = "run `npm ci --prefix conformance` from the repository root first (scripts/test.sh does it)"

// The npm package of the suite, and the Node.js version package.json pins with it.
const (
	suitePackage = "@modelcontextprotocol/conformance"
	nodeVersion  = "22.23.3"
)

// suitePin is one version of the suite that package.json pins: the dependency name
// it is installed under (the package's own name, or an npm alias when a second
// version sits beside the first) and its exact version.
type suitePin struct {
	dep     string
	version string
}

// The two versions package.json pins.
var (
	// releasedSuite covers the released protocol versions (2024-11-05 … 2025-11-25).
	releasedSuite = suitePin{dep: suitePackage, version: "0.1.16"}
	// nextSuite covers the 2026-07-28 requirements; it is installed under an npm
	// alias so that both versions can be run.
	nextSuite = suitePin{dep: "conformance-next", version: "0.2.0-alpha.12"}
)

// spec is what package.json must say for p: the bare version, or an npm alias.
func (p suitePin) spec() string {
	if p.dep == suitePackage {
		return p.version
	}
	return "npm:" + suitePackage + "@" + p.version
}

// suite is an installed conformance suite: the Node.js binary and the suite's
// entry script, both absolute paths.
type suite struct {
	node, script string
}

// requireSuite returns the installed suite for the released protocol versions
// (0.1.16); see requirePinnedSuite.
func requireSuite(t *testing.T) suite {
	t.Helper()
	return requirePinnedSuite(t, releasedSuite)
}

// requireNextSuite returns the installed suite for the 2026-07-28 requirements
// (0.2.0-alpha.12); see requirePinnedSuite.
func requireNextSuite(t *testing.T) suite {
	t.Helper()
	return requirePinnedSuite(t, nextSuite)
}

// requirePinnedSuite returns the installed suite pin after checking that
// package.json pins it and Node.js exactly and that node_modules holds those
// versions. It skips the test in -short mode and fails it (never skips) when
// something is missing.
func requirePinnedSuite(t *testing.T, pin suitePin) suite {
	t.Helper()
	if testing.Short() {
		t.Skip("the conformance suite runs Node.js; skipped in -short mode")
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, "package.json", &pkg)
	if got := pkg.Dependencies[pin.dep]; got != pin.spec() {
		t.Fatalf("conformance: package.json pins %s %q, want exactly %q", pin.dep, got, pin.spec())
	}
	if got := pkg.Dependencies["node"]; got != nodeVersion {
		t.Fatalf("conformance: package.json pins node %q, want exactly %s", got, nodeVersion)
	}
	var installed struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Bin     map[string]string
	}
	dir := filepath.Join("node_modules", filepath.FromSlash(pin.dep))
	readJSON(t, filepath.Join(dir, "package.json"), &installed)
	if installed.Name != suitePackage || installed.Version != pin.version {
		t.Fatalf("conformance: node_modules/%s holds %s %s, want %s %s; %s", pin.dep, installed.Name, installed.Version, suitePackage, pin.version, installHint)
	}
	script, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(installed.Bin["conformance"])))
	if err != nil || installed.Bin["conformance"] == "" {
		t.Fatalf("conformance: %s declares no conformance command (%v); %s", pin.dep, err, installHint)
	}
	node, err := filepath.Abs(filepath.Join("node_modules", "node", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("conformance: Node.js from the npm package node does not run (%v); %s", err, installHint)
	}
	if got := strings.TrimSpace(string(out)); got != "v"+nodeVersion {
		t.Fatalf("conformance: node_modules holds Node.js %s, want v%s; %s", got, nodeVersion, installHint)
	}
	return suite{node: node, script: script}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("conformance: %v; %s", err, installHint)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("conformance: %s: %v", path, err)
	}
}

// run runs the suite with args, bounded by timeout, and returns its standard output
// and error. A non-zero exit is not an error here (it means a scenario failed: the
// results say which); failing to start or running out of time is.
func (s suite) run(ctx context.Context, t *testing.T, timeout time.Duration, args ...string) (stdout, stderr string, exitCode int, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.node, append([]string{s.script}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	var out, errOut lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	testkit.KillGroupOnCancel(cmd)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("the suite did not finish within %v: %w", timeout, ctx.Err())
	case errors.As(err, &exit):
		exitCode, err = exit.ExitCode(), nil
	}
	return out.String(), errOut.String(), exitCode, err
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers (a process's output
// copiers) and readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// buildBinary builds the Go package pkg (an import path in this module) into dir and
// returns the binary's path.
func buildBinary(t *testing.T, pkg, dir string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "build", "-o", bin, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// check is one check of a scenario, as the suite writes it to checks.json.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED or INFO
	ErrorMessage string `json:"errorMessage"`
}

// scenarioResult is what the suite reported for one scenario.
type scenarioResult struct {
	name   string
	checks []check
}

// problems lists the checks that failed or warned, one line each.
func (r scenarioResult) problems() []string {
	var out []string
	for _, c := range r.checks {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			msg := c.ErrorMessage
			if msg == "" {
				msg = c.Description
			}
			out = append(out, fmt.Sprintf("%s %s: %s", c.Status, c.ID, msg))
		}
	}
	return out
}

// passed reports whether the scenario ran at least one check and none failed or
// warned.
func (r scenarioResult) passed() bool {
	ok := false
	for _, c := range r.checks {
		switch c.Status {
		case "FAILURE", "WARNING":
			return false
		case "SUCCESS":
			ok = true
		}
	}
	return ok
}

// skippedBySuite reports whether the suite skipped the whole scenario: it
// recorded checks, and every one of them is SKIPPED (a scenario the suite itself
// has parked, such as 0.2.0-alpha.12's tasks-status-notifications).
func (r scenarioResult) skippedBySuite() bool {
	for _, c := range r.checks {
		if c.Status != "SKIPPED" {
			return false
		}
	}
	return len(r.checks) > 0
}

// resultDirPattern matches the directories the suite's --output-dir holds, one per
// scenario run: [prefix-]<scenario>-<ISO timestamp with - for : and .>.
var resultDirPattern = regexp.MustCompile(`^(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$`)

// readResults reads every checks.json under dir, keyed by scenario name. prefix is
// what the suite puts before the scenario name ("server-" in server mode).
func readResults(dir, prefix string) (map[string]scenarioResult, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]scenarioResult{}
	for _, e := range entries {
		m := resultDirPattern.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil || !strings.HasPrefix(m[1], prefix) {
			continue
		}
		name := strings.TrimPrefix(m[1], prefix)
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if errors.Is(err, os.ErrNotExist) {
			continue // the scenario crashed before writing its checks
		}
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(data, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out[name] = scenarioResult{name: name, checks: checks}
	}
	return out, nil
}

// summary is the suite's own account of a server-mode run, from its standard output.
type summary struct {
	// planned is the number of scenarios the suite said it would run (-1 if it did
	// not say).
	planned int
	// scenarios maps each scenario of the closing summary to its failed-check count.
	scenarios map[string]int
	// order lists the scenarios in the order the summary gave them.
	order []string
	// notScored maps each scenario that a --requirements run ran but does not
	// score to the reason the requirements give ("extension", "pending", ...).
	notScored map[string]string
}

var (
	plannedPattern   = regexp.MustCompile(`(?m)^Running (?:\S+ suite|requirements \S+) \((\d+) scenarios\)`)
	summaryPattern   = regexp.MustCompile(`^[✓✗] (\S+): (\d+) passed, (\d+) failed$`)
	notScoredPattern = regexp.MustCompile(`^[✓✗] (\S+) \(([^()]+)\)$`)
)

// parseSummary reads the scenario count announced at the start of a server-mode run,
// the per-scenario lines of its closing summary and, for a --requirements run, the
// scenarios it lists as not scored.
func parseSummary(stdout string) summary {
	s := summary{planned: -1, scenarios: map[string]int{}, notScored: map[string]string{}}
	if m := plannedPattern.FindStringSubmatch(stdout); m != nil {
		s.planned, _ = strconv.Atoi(m[1])
	}
	_, tail, found := strings.Cut(stdout, "=== SUMMARY ===")
	if !found {
		return s
	}
	tail, unscored, _ := strings.Cut(tail, "\nNot scored for ")
	for line := range strings.Lines(tail) {
		m := summaryPattern.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		failed, _ := strconv.Atoi(m[3])
		if _, dup := s.scenarios[m[1]]; !dup {
			s.order = append(s.order, m[1])
		}
		s.scenarios[m[1]] = failed
	}
	for line := range strings.Lines(unscored) {
		if m := notScoredPattern.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			s.notScored[m[1]] = m[2]
		}
	}
	return s
}

// only returns the part of s about the scenarios keep selects, keeping their order.
func (s summary) only(keep func(name string) bool) summary {
	out := summary{planned: -1, scenarios: map[string]int{}, notScored: s.notScored}
	for _, name := range s.order {
		if keep(name) {
			out.order = append(out.order, name)
			out.scenarios[name] = s.scenarios[name]
		}
	}
	out.planned = len(out.order)
	return out
}

// judge combines the summary and the checks of a server-mode run into one verdict
// per scenario, in the summary's order: the scenario passed when the summary counts
// no failure and its checks hold no failure and no warning and at least one
// success; the suite skipped it when it counts no failure and every check is
// SKIPPED. It returns the names that passed, the names the suite skipped, and a
// line for each scenario that did neither.
func judge(sum summary, results map[string]scenarioResult) (passed, skipped, failures []string) {
	for _, name := range sum.order {
		r, ok := results[name]
		switch {
		case !ok:
			failures = append(failures, fmt.Sprintf("%s: no checks were recorded (the scenario crashed; see the suite's output)", name))
		case sum.scenarios[name] == 0 && r.skippedBySuite():
			skipped = append(skipped, name)
		case sum.scenarios[name] > 0 || !r.passed():
			probs := r.problems()
			if len(probs) == 0 {
				probs = []string{fmt.Sprintf("%d failed checks, or no successful one", sum.scenarios[name])}
			}
			failures = append(failures, fmt.Sprintf("%s:\n\t\t%s", name, strings.Join(probs, "\n\t\t")))
		default:
			passed = append(passed, name)
		}
	}
	var unlisted []string
	for name := range results {
		if _, ok := sum.scenarios[name]; !ok {
			unlisted = append(unlisted, fmt.Sprintf("%s: has checks but is missing from the suite's summary", name))
		}
	}
	slices.Sort(unlisted)
	return passed, skipped, append(failures, unlisted...)
}
