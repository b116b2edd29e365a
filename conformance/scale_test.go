package conformance

import (
	"encoding/base64"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// TestServerConformanceThroughBalancer runs the suite's server scenarios
// (0.1.16) against nginx balancing round robin, without stickiness, over three
// `mcpkit serve --http --redis` replicas sharing one real redis-server and one
// requestState keyring, each named on the relay. Every scenario must pass —
// those where a client answers a sampling or elicitation request included: the
// answer lands on another replica than the waiting handler and is relayed to it
// — and the suite's requests must reach all three replicas.
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
	for i := range 3 {
		t.Setenv("MCPKIT_REPLICA_ID", fmt.Sprintf("r%d", i))
		r := startServer(t, bin, "serve", "--conformance", "--redis", rs.URL(), "--allow-host", "*", "--max-sessions-per-client", "-1", "--http")
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
	run.verdict(t, func(string) bool { return true })
	if got := testkit.Upstreams(t, accessLog, ""); len(got) != 3 {
		t.Errorf("nginx sent the suite's requests to %v; want all three replicas", got)
	}
}
