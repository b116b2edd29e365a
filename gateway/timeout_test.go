package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestGatewayServerTimeout: a server's "timeout" cuts off a call it does not
// answer in time, with an error that says so; the server hears the
// cancellation, and the gateway and the server go on serving (no restart).
func TestGatewayServerTimeout(t *testing.T) {
	const timeout = time.Second // room for the calls after the cut on a loaded machine
	for _, era := range []struct{ name, version string }{
		{"stateless server", ""},
		{"legacy server", protocol.LatestLegacy},
	} {
		t.Run(era.name, func(t *testing.T) {
			slow := eraServer("slow", "probe", era.version)
			slow.Timeout = timeout
			gw := startGateway(t, nil, slow)
			cs := connectClient(t, gw, nil)
			ctx := testkit.Context(t)

			start := time.Now()
			res, err := cs.CallTool(ctx, "slow__block", nil)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("slow__block: %v, want an isError result", err)
			}
			want := `server "slow" did not answer within 1s (its "timeout" in the configuration), so the request was cancelled`
			if !res.IsError || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, want) {
				t.Fatalf("slow__block = %+v, want an isError result starting with %q", res, want)
			}
			if took < timeout {
				t.Errorf("cut off after %v, before the timeout of %v", took, timeout)
			}
			if got := call(ctx, t, cs, "slow__cancelled", nil); got != "1" {
				t.Errorf("the server saw %s cancelled calls, want 1", got)
			}
			readMe := llm.ToolNames([]llm.ToolRef{{Server: "slow", Name: "read.me"}})[llm.ToolRef{Server: "slow", Name: "read.me"}]
			if got := call(ctx, t, cs, readMe, nil); got != "read" {
				t.Errorf("%s after the cut = %q", readMe, got)
			}
			if st, _ := gw.Supervisor().Status("slow"); st.Connects != 1 || st.Failures != 0 {
				t.Errorf("status after the cut: connects %d, failures %d; want the first session still up", st.Connects, st.Failures)
			}
		})
	}
}
