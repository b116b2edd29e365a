package auth_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// BenchmarkAuthorizedRequest measures what auth.Transport adds to a request once
// it holds a token: the same GET to the same protected server, sent through the
// Transport ("transport") and through a plain client that sets the same bearer
// header by hand ("by-hand"). The server validates the token in both; the
// difference is the client side of OAuth, which the token cache should make
// nothing more than setting the header.
func BenchmarkAuthorizedRequest(b *testing.B) {
	as := authtest.New(b, authtest.Options{})
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	url := as.Protect(b, ok, resource.Options{}, nil)

	tr := newTransport(nil)
	client := &http.Client{Transport: tr}
	get(b, client, url, "") // runs the authorization once
	tok := tr.Token()
	if tok == nil {
		b.Fatal("no token after the first request")
	}
	plain := &http.Client{}
	b.Run("transport", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			get(b, client, url, "")
		}
	})
	b.Run("by-hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			get(b, plain, url, "Bearer "+tok.AccessToken)
		}
	})
}

func get(b *testing.B, c *http.Client, url, authorization string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}
