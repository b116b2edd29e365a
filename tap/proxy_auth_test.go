package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/transport"
)

// protectedUpstream is an OAuth-protected server that answers a POST with the
// principal it was sent by and the body, on a stream when the body says
// "stream"; the tool "admin" needs scope mcp:admin.
func protectedUpstream(t *testing.T, as *authtest.Server) string {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		answer := transport.PrincipalFrom(r.Context()) + "|" + string(body)
		if strings.Contains(string(body), "stream") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", answer)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	})
	return as.Protect(t, h, resource.Options{Scopes: []string{"mcp:read"}, ToolScopes: map[string][]string{"admin": {"mcp:admin"}}}, nil)
}

// postThrough POSTs body to url with the Authorization field authz (none when
// empty) and returns the status and the body.
func postThrough(t *testing.T, url, authz, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testkit.Context(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// A tap with an Authorizer is a client of the protected upstream in its own
// right: it authorizes when challenged (401, then 403 insufficient_scope for
// more scopes) and sends the request again, relays the answer (a stream too),
// presents its token on later requests without a new challenge, never passes
// the client's Authorization on, and keeps its token out of the capture.
func TestTapAuthorizesItself(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	up := protectedUpstream(t, as)
	mallory, err := as.Issue(authtest.Claims{Subject: "mallory", ClientID: "m", Audience: up, Scope: "mcp:read mcp:admin", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	tr := &auth.Transport{Grant: &auth.AuthorizationCode{RedirectURL: "http://127.0.0.1:9/callback", Fetch: auth.HeadlessFetcher(http.DefaultClient)}}
	capt := newTestCapture(t)
	addr, _ := startTap(t, up, capt, HTTPOptions{Authorizer: tr})
	tapURL := "http://" + addr + "/mcp"

	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	status, body := postThrough(t, tapURL, "Bearer "+mallory, list)
	if status != 200 || strings.Contains(body, "mallory") || !strings.HasPrefix(body, as.Issuer+"#user-") || !strings.HasSuffix(body, "|"+list) {
		t.Fatalf("first request: %d %q; want the tap's principal, not the client's", status, body)
	}
	tapPrincipal, _, _ := strings.Cut(body, "|")
	tokens := as.Count("token")

	status, body = postThrough(t, tapURL, "Bearer "+mallory, list)
	if status != 200 || body != tapPrincipal+"|"+list {
		t.Errorf("second request: %d %q", status, body)
	}
	if as.Count("token") != tokens {
		t.Errorf("the second request made %d token requests, want none", as.Count("token")-tokens)
	}

	const admin = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin"}}`
	status, body = postThrough(t, tapURL, "", admin)
	if status != 200 || body != tapPrincipal+"|"+admin {
		t.Errorf("a call needing more scopes: %d %q", status, body)
	}
	if reqs := as.AuthorizationRequests(); len(reqs) != 2 || !strings.Contains(reqs[1].Get("scope"), "mcp:admin") {
		t.Errorf("authorization requests %v, want a step-up to mcp:admin", reqs)
	}

	tr.Reset() // the next request meets a 401 again, and its answer is a stream
	const stream = `{"jsonrpc":"2.0","id":3,"method":"stream"}`
	status, body = postThrough(t, tapURL, "", stream)
	if status != 200 || body != "event: message\ndata: "+tapPrincipal+"|"+stream+"\n\n" {
		t.Errorf("a stream after a challenge: %d %q", status, body)
	}

	held := tr.Token().AccessToken
	text := capt.text(t)
	for name, secret := range map[string]string{"the tap's token": held, "the client's token": mallory} {
		if strings.Contains(text, secret) {
			t.Errorf("the capture holds %s", name)
		}
	}
	if n := strings.Count(text, "the tap authorizes to the upstream"); n != 3 {
		t.Errorf("the capture notes %d challenges, want 3 (first request, step-up, after Reset)", n)
	}
}

// failingAuthorizer has no credentials and cannot get any.
type failingAuthorizer struct{}

func (failingAuthorizer) AuthorizationHeader(context.Context, string, *url.URL) (http.Header, error) {
	return nil, nil
}

func (failingAuthorizer) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("the user said no")
}

// When the tap cannot authorize, the client gets a 502 that says why, never the
// upstream's challenge (which names a resource the client cannot get a token
// for through the tap).
func TestTapAuthorizationFailure(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	up := protectedUpstream(t, as)
	addr, _ := startTap(t, up, nil, HTTPOptions{Authorizer: failingAuthorizer{}})
	for i := range 2 { // the connection goes on after the 502
		status, body := postThrough(t, "http://"+addr+"/mcp", "", `{}`)
		if status != http.StatusBadGateway || !strings.Contains(body, "authorizing to the upstream failed: the user said no") {
			t.Errorf("request %d: %d %q, want 502 with the reason", i+1, status, body)
		}
	}
}
