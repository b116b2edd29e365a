package conformance

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// The Skills extension's scenarios (SEP-2640) in 0.2.0-alpha.12. They are
// not part of --requirements 2026-07-28, so they run one by one.
var (
	skillsServerScenarios = []string{"sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"}
	skillsClientScenarios = []string{"sep-2640-client-no-prefetch", "sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"}
)

// skillsFixture is the directory of skills the server scenarios read: two
// skills, one nested under a prefix, one with subdirectories.
const skillsFixture = "../ext/skills/testdata/skills"

// versionsSeen records the protocol versions the skills and resources methods
// were called at.
type versionsSeen struct {
	mu   sync.Mutex
	seen map[string]int
}

func (v *versionsSeen) middleware(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.Direction == mcp.Incoming && (strings.HasPrefix(c.Method, "skills/") || strings.HasPrefix(c.Method, "resources/")) {
			v.mu.Lock()
			v.seen[c.Session.ProtocolVersion()]++
			v.mu.Unlock()
		}
		return next(ctx, c)
	}
}

func (v *versionsSeen) take() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.seen
	v.seen = map[string]int{}
	return out
}

// startSkillsServer serves the fixture's skills (with directoryRead) over
// Streamable HTTP on a loopback port, in this process, until the test ends.
// The versions its skills methods are called at go to seen.
func startSkillsServer(t *testing.T, seen *versionsSeen) server {
	t.Helper()
	sk := skills.NewServer(&skills.Options{DirectoryRead: true, PageSize: 1})
	if err := sk.AddDir(skillsFixture, ""); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(protocol.Implementation{Name: "mcpkit-skills", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler), Middleware: []mcp.Middleware{seen.middleware}})
	sk.Register(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(ctx, ln, srv, nil) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return server{url: "http://" + ln.Addr().String() + "/mcp", stderr: &lockedBuffer{}, stop: stop}
}

// TestServerConformanceSkills runs each server scenario of the Skills
// extension against mcpkit's skills server, at 2026-07-28 (stateless) and at
// 2025-11-25 (a legacy session, where the suite skips the caching checks,
// which 2026-07-28 introduced). Every check must pass: no failure, no warning,
// and at 2026-07-28 no skipped check either.
func TestServerConformanceSkills(t *testing.T) {
	s := requireNextSuite(t)
	seen := &versionsSeen{seen: map[string]int{}}
	srv := startSkillsServer(t, seen)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, name := range skillsServerScenarios {
			t.Run(version+"/"+name, func(t *testing.T) {
				outDir := t.TempDir()
				stdout, stderr, code, err := s.run(context.Background(), t, serverSuiteTimeout,
					"server", "--url", srv.url, "--scenario", name, "--spec-version", version, "--force", "--output-dir", outDir)
				if err != nil {
					t.Fatalf("running the suite: %v\n%s", err, tail(stderr, 30))
				}
				results, err := readResults(outDir, "server-")
				if err != nil {
					t.Fatal(err)
				}
				r, ok := results[name]
				if !ok || !r.passed() || code != 0 {
					t.Fatalf("%s at %s: exit status %d, problems:\n\t%s\n%s", name, version, code, strings.Join(r.problems(), "\n\t"), tail(stdout, 40))
				}
				for _, c := range r.checks {
					if c.Status == "SKIPPED" && (version == "2026-07-28" || !strings.HasSuffix(c.ID, "-cache-attributes")) {
						t.Errorf("%s at %s: check %s skipped: %s", name, version, c.ID, c.ErrorMessage)
					}
				}
				if v := seen.take(); v[version] == 0 || len(v) != 1 {
					t.Errorf("%s at %s: the skills methods were called at %v", name, version, v)
				}
				t.Logf("%s at %s: %d checks passed", name, version, len(r.checks))
			})
		}
	}
}

// TestClientConformanceSkills runs the Skills extension's client scenarios
// against the client program: it lists without prefetching, and refuses a
// SKILL.md whose digest, size or frontmatter differs from its entry.
func TestClientConformanceSkills(t *testing.T) {
	s := requireNextSuite(t)
	runClientScenarios(t, s, buildClient(t), skillsClientScenarios, "--spec-version", "2026-07-28", "--force")
}
