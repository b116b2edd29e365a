package conformance

import (
	"encoding/base64"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// crossReplicaGaps are the server scenarios of suite 0.1.16 that fail through a
// round-robin balancer only because a part of issue 12 has not landed yet
// (store/DESIGN.md §5.2 and §5.3): a notification or request written on the
// replica running the handler cannot reach a GET stream (or a POST stream
// resumed) held by another replica, and a client's answer to a server→client
// request that lands on another replica does not reach the waiting handler.
// Each is skipped with its reason, printed by the test; the list must shrink
// as those parts land.
var crossReplicaGaps = map[string]string{
	"tools-call-sampling":          serverToClientGap,
	"tools-call-elicitation":       serverToClientGap,
	"elicitation-sep1034-defaults": serverToClientGap,
	"elicitation-sep1330-enums":    serverToClientGap,
}

// serverToClientGap is why the sampling and elicitation scenarios fail through
// the balancer (store/DESIGN.md §5.3, not landed): the tool's sampling/createMessage
// or elicitation/create request goes out on the POST stream of the replica
// running it, and the client's answer, a new POST, lands on another replica,
// which has no pending call for it ("jsonrpc: response to no pending call"); the
// suite's request times out (-32001) after 60 s.
const serverToClientGap = "server→client request answered on another replica (§5.3)"

// TestServerConformanceThroughBalancer runs the suite's server scenarios
// (0.1.16) against nginx balancing round robin, without stickiness, over three
// `mcpkit serve --http --redis` replicas sharing one real redis-server and one
// requestState keyring. Every scenario must pass except those in
// crossReplicaGaps, and the suite's requests must reach all three replicas.
func TestServerConformanceThroughBalancer(t *testing.T) {
	s := requireSuite(t)
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		t.Fatal("conformance: nginx is not installed: install it (Debian: apt-get install nginx); scripts/test.sh does it")
	}
	rs := redistest.Start(t)
	t.Setenv("MCPKIT_STATE_KEYS", "k1:"+base64.StdEncoding.EncodeToString([]byte("conformance-through-the-balancer")))
	bin := buildBinary(t, "github.com/mcpkit/mcpkit/cmd/mcpkit", t.TempDir())
	var replicas []server
	var addrs []string
	for range 3 {
		r := startServer(t, bin, "serve", "--redis", rs.URL(), "--allow-host", "*", "--max-sessions-per-client", "-1", "--http")
		replicas = append(replicas, r)
		addrs = append(addrs, strings.TrimSuffix(strings.TrimPrefix(r.url, "http://"), "/mcp"))
	}
	url, accessLog := testkit.StartBalancer(t, nginx, "../deploy/nginx/mcpkit-replicas.conf", addrs)
	t.Cleanup(func() {
		if t.Failed() {
			for i, r := range replicas {
				t.Logf("replica %d (%s) stderr:\n%s", i, addrs[i], tail(r.stderr.String(), 40))
			}
		}
	})

	balanced := replicas[0]
	balanced.url = url + "/mcp"
	run := runSuiteAt(t, s, balanced)
	names := make([]string, 0, len(crossReplicaGaps))
	for name := range crossReplicaGaps {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		state := "failed"
		if r, ok := run.results[name]; ok && r.passed() {
			state = "passed this time (round robin may have kept it on one replica)"
		}
		t.Logf("skipped %s (%s): %s", name, state, crossReplicaGaps[name])
	}
	run.verdict(t, func(name string) bool { _, gap := crossReplicaGaps[name]; return !gap })
	if got := testkit.Upstreams(t, accessLog, ""); len(got) != 3 {
		t.Errorf("nginx sent the suite's requests to %v; want all three replicas", got)
	}
}
