package interop

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// tsOAuthReport is the JSON object ts_oauth_client.mjs prints.
type tsOAuthReport struct {
	Exchanges []struct {
		Method    string `json:"method"`
		URL       string `json:"url"`
		Status    int    `json:"status"`
		Challenge string `json:"challenge"`
	} `json:"exchanges"`
	Steps map[string]struct {
		OK    bool            `json:"ok"`
		Value json.RawMessage `json:"value"`
		Error *tsError        `json:"error"`
	} `json:"steps"`
}

// value decodes the value of a step that must have succeeded.
func (r *tsOAuthReport) value(t *testing.T, name string, v any) bool {
	t.Helper()
	s, ok := r.Steps[name]
	if !ok || !s.OK {
		t.Errorf("step %s: ran %v, error %+v", name, ok, s.Error)
		return false
	}
	if err := json.Unmarshal(s.Value, v); err != nil {
		t.Errorf("step %s: %v", name, err)
		return false
	}
	return true
}

// The official TypeScript SDK client, through its OAuthClientProvider
// interface, completes OAuth against mcpkit resource servers — the demo server
// behind auth/resource in this process, and `mcpkit serve --http --auth-issuer`
// (whose resource identifier is its origin) — with tokens from the
// auth/authtest authorization server: it is challenged, discovers the resource
// and authorization server metadata, registers, authorizes with PKCE and a
// resource indicator, exchanges the code, and then calls whoami, which answers
// with the principal of its token.
func TestTypeScriptOAuthClientAgainstMcpkit(t *testing.T) {
	node := requirePeers(t)
	t.Run("auth/resource", func(t *testing.T) {
		t.Parallel()
		as := authtest.New(t, authtest.Options{})
		srv, err := demo.NewServer(&demo.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
		t.Cleanup(func() { _ = h.Close() })
		mcpURL := as.Protect(t, h, resource.Options{Scopes: []string{"mcp:read"}}, nil)
		checkTSOAuth(t, runTSOAuthClient(t, node, mcpURL), as, mcpURL, "mcp:read")
	})
	t.Run("mcpkit serve", func(t *testing.T) {
		t.Parallel()
		bin := buildMcpkit(t)
		as := authtest.New(t, authtest.Options{})
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "serve", "--http", "127.0.0.1:0", "--auth-issuer", as.Issuer, "--auth-scopes", "mcp:read,mcp:call")
		cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 atexit_sleep_ms=0")
		m, _ := startAnnouncedServer(ctx, t, cmd, newEventLog(), serveAnnouncement)
		base := "http://" + m[1]
		// The resource is the origin, sent as the metadata spells it (no slash).
		checkTSOAuth(t, runTSOAuthClient(t, node, base+"/mcp"), as, base, "mcp:read mcp:call")
	})
}

// runTSOAuthClient runs ts_oauth_client.mjs against mcpURL, calling whoami, and
// returns its report. The node process is bounded by testTimeout and its
// process group is killed at cleanup.
func runTSOAuthClient(t *testing.T, node, mcpURL string) *tsOAuthReport {
	t.Helper()
	var r tsOAuthReport
	stderr, waitErr := runNodeReport(t, nil, &r, node, "ts_oauth_client.mjs", mcpURL, "whoami")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr of node:\n%s", stderr)
			for i, e := range r.Exchanges {
				t.Logf("exchange %d: %s %s → %d %s", i, e.Method, e.URL, e.Status, e.Challenge)
			}
		}
	})
	if waitErr != nil {
		t.Errorf("ts_oauth_client.mjs: %v", waitErr)
	}
	return &r
}

// checkTSOAuth checks the report of one run: the authorization request asked
// for resource and scope, and whoami answered with the token's principal.
func checkTSOAuth(t *testing.T, r *tsOAuthReport, as *authtest.Server, resourceID, scope string) {
	t.Helper()
	// The first request was challenged with the resource metadata's URL.
	if len(r.Exchanges) == 0 || r.Exchanges[0].Status != 401 || !strings.Contains(r.Exchanges[0].Challenge, `resource_metadata="`) {
		t.Errorf("the first exchange is not a 401 challenge: %+v", r.Exchanges)
	}
	var unauthorized struct {
		AuthorizationURL string `json:"authorizationUrl"`
	}
	if r.value(t, "unauthorized", &unauthorized) {
		au, err := url.Parse(unauthorized.AuthorizationURL)
		if err != nil || !strings.HasPrefix(unauthorized.AuthorizationURL, as.Issuer+"/authorize?") {
			t.Errorf("authorization URL %q", unauthorized.AuthorizationURL)
		} else if q := au.Query(); q.Get("resource") != resourceID || q.Get("code_challenge_method") != "S256" || q.Get("scope") != scope {
			t.Errorf("authorization URL %q: want resource %s, PKCE S256, scope %q", unauthorized.AuthorizationURL, resourceID, scope)
		}
	}
	var browser struct {
		Code string `json:"code"`
		Iss  string `json:"iss"`
	}
	if r.value(t, "browser", &browser) && (browser.Code == "" || browser.Iss != as.Issuer) {
		t.Errorf("redirect %+v: want a code and iss %s", browser, as.Issuer)
	}
	var finish struct {
		TokenType      string `json:"tokenType"`
		HasAccessToken bool   `json:"hasAccessToken"`
	}
	if r.value(t, "finishAuth", &finish) && (!strings.EqualFold(finish.TokenType, "bearer") || !finish.HasAccessToken) {
		t.Errorf("tokens %+v", finish)
	}
	var list struct {
		Names []string `json:"names"`
	}
	if r.value(t, "listTools", &list) {
		requireAll(t, "tools/list", list.Names, "whoami", "echo")
	}
	var call struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	}
	if r.value(t, "callTool", &call) && (call.IsError || !strings.HasPrefix(call.Text, as.Issuer+"#user-client-")) {
		t.Errorf("whoami = %+v, want the principal %s#user-client-N", call, as.Issuer)
	}
	if n := as.Count("register"); n != 1 {
		t.Errorf("%d client registrations, want 1", n)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}
	if n := as.Count("token"); n != 1 {
		t.Errorf("%d token requests, want 1", n)
	}
	var prm bool
	for _, e := range r.Exchanges {
		if e.Method == "GET" && strings.Contains(e.URL, "/.well-known/oauth-protected-resource") && e.Status == 200 {
			prm = true
		}
	}
	if !prm {
		t.Error("the SDK never fetched the protected resource metadata")
	}
}
