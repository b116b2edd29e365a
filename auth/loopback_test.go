package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/mcpkit/mcpkit/auth"
)

// The loopback listener takes only the redirect that carries the state of the
// authorization in progress: one with another state, or none, or one that comes
// when no authorization is in progress, gets 400, and the wait goes on.
func TestLoopbackIgnoresOtherStates(t *testing.T) {
	lb, err := auth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	visit := func(ctx context.Context, query string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, lb.URL()+"?"+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := visit(t.Context(), "code=early&state=s-1"); code != http.StatusBadRequest {
		t.Errorf("a redirect with no authorization in progress: %d, want 400", code)
	}
	browser := func(ctx context.Context, authURL string) error {
		u, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		state := u.Query().Get("state")
		for _, q := range []string{"code=forged&state=other", "code=forged", "error=access_denied&state=other", "code=forged&state=" + state + "x"} {
			if code := visit(ctx, q); code != http.StatusBadRequest {
				t.Errorf("redirect %q: %d, want 400", q, code)
			}
		}
		if code := visit(ctx, "code=real&state="+url.QueryEscape(state)); code != http.StatusOK {
			t.Errorf("the real redirect: %d, want 200", code)
		}
		return nil
	}
	resp, err := lb.Fetcher(browser)(t.Context(), "https://as.example/authorize?client_id=c&state=s-1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code != "real" || resp.State != "s-1" {
		t.Errorf("the fetcher returned code %q state %q, want the real redirect's", resp.Code, resp.State)
	}
	if code := visit(t.Context(), "code=late&state=s-1"); code != http.StatusBadRequest {
		t.Errorf("a redirect after the authorization ended: %d, want 400", code)
	}
}
