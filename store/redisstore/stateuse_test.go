package redisstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// statelessReplica serves a tool that elicits a name, statelessly, with a
// keyring built from keys and single-use states on c.
func statelessReplica(t *testing.T, c *redisstore.Client, keys string) string {
	t.Helper()
	kr, err := requeststate.ParseKeyring(keys)
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(protocol.Implementation{Name: "r", Version: "1"}, &mcp.ServerOptions{
		Keyring:  kr,
		StateUse: redisstore.NewStateUse(c),
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err := s.AddRawTool(&protocol.Tool{Name: "ask"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		el, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "name?"})
		if err != nil {
			return nil, err
		}
		return protocol.NewToolResultText(fmt.Sprint("hello ", el.Content["name"])), nil
	}); err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(s, &streamable.HandlerOptions{ResponseMode: streamable.ResponseAlwaysJSON, Logger: slog.New(slog.DiscardHandler)})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); _ = h.Close() })
	return hs.URL
}

func askBody(id int, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}%s}}`, id, extra)
}

var askHeaders = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask"}

// TestStateUseAcrossReplicasOnRedis: two replicas share a keyring and one
// Redis; a requestState is accepted once across both, the record expires
// with the state, and Redis stopped gives 503 with Retry-After.
func TestStateUseAcrossReplicasOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	key, err := requeststate.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keys := requeststate.FormatKeys(key)
	c := open(t, srv)
	a, b := statelessReplica(t, c, keys), statelessReplica(t, open(t, srv), keys)

	resp, body := testkit.PostMCP(t, t.Context(), a, askHeaders, askBody(1, ""))
	var state string
	if i := strings.Index(body, `"requestState":"`); resp.StatusCode == http.StatusOK && i >= 0 {
		state = body[i+len(`"requestState":"`):]
		state = state[:strings.IndexByte(state, '"')]
	} else {
		t.Fatalf("round 1: %d %s", resp.StatusCode, body)
	}
	retry := askBody(2, `,"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"ada"}}},"requestState":"`+state+`"`)
	if resp, body := testkit.PostMCP(t, t.Context(), b, askHeaders, retry); resp.StatusCode != http.StatusOK || !strings.Contains(body, "hello ada") {
		t.Fatalf("retry on replica b: %d %s", resp.StatusCode, body)
	}
	for _, url := range []string{a, b} {
		resp, body := testkit.PostMCP(t, t.Context(), url, askHeaders, retry)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, "requestState already used") {
			t.Errorf("replayed state: %d %s, want -32602 requestState already used", resp.StatusCode, body)
		}
	}
	// The state's key lives as long as the state could still open (10 min by default, plus a second).
	sum := sha256.Sum256([]byte(state))
	usedKey := "mcp:rs:used:{" + base64.RawURLEncoding.EncodeToString(sum[:16]) + "}"
	if ttl, err := redisstore.DoInt(t.Context(), c, "PTTL", usedKey); err != nil || ttl < int64(9*time.Minute/time.Millisecond) || ttl > int64((10*time.Minute+time.Second)/time.Millisecond) {
		t.Errorf("PTTL of the used-state key: %d, %v; want about 10 min", ttl, err)
	}

	// Redis stopped: a state cannot be checked, so it is refused with 503.
	resp, body = testkit.PostMCP(t, t.Context(), a, askHeaders, askBody(3, ""))
	i := strings.Index(body, `"requestState":"`)
	if i < 0 {
		t.Fatalf("round 1 again: %d %s", resp.StatusCode, body)
	}
	state = body[i+len(`"requestState":"`):]
	state = state[:strings.IndexByte(state, '"')]
	srv.Stop()
	retry = askBody(4, `,"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"ada"}}},"requestState":"`+state+`"`)
	resp, body = testkit.PostMCP(t, t.Context(), b, askHeaders, retry)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `"code":-32603`) {
		t.Errorf("retry with Redis stopped: %d Retry-After=%q %s; want 503 with Retry-After and -32603", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// A request without a state never asks the register: still served.
	if resp, body := testkit.PostMCP(t, t.Context(), b, askHeaders, askBody(5, "")); resp.StatusCode != http.StatusOK || !strings.Contains(body, "input_required") {
		t.Errorf("round 1 with Redis stopped: %d %s", resp.StatusCode, body)
	}
}
