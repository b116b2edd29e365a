package h1

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestRequestURIKeptPerURL: the request URI kept for the last URL is used
// only for an equal URL: a URL changed in place, another URL, and a Host other
// than the URL's each get their own request line, and an invalid path is
// refused after a valid one was kept.
func TestRequestURIKeptPerURL(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Host+" "+r.URL.RequestURI())
		mu.Unlock()
	})
	tr := newTransport(t, nil)
	u, err := url.Parse(srv.URL + "/mcp?x=1")
	if err != nil {
		t.Fatal(err)
	}
	send := func(u *url.URL, host string) error {
		req := &http.Request{Method: http.MethodGet, URL: u, Host: host, Header: http.Header{}}
		req = req.WithContext(context.Background())
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	other := *u
	other.Path = "/other"
	for _, s := range []struct {
		u    *url.URL
		host string
	}{{u, ""}, {u, ""}, {&other, ""}, {u, "example.test"}, {u, ""}} {
		if err := send(s.u, s.host); err != nil {
			t.Fatal(err)
		}
	}
	u.Path = "/changed" // the same *url.URL, changed in place
	if err := send(u, ""); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	seen := strings.Join(got, "\n")
	mu.Unlock()
	h := u.Host
	want := []string{h + " /mcp?x=1", h + " /mcp?x=1", h + " /other?x=1", "example.test /mcp?x=1", h + " /mcp?x=1", h + " /changed?x=1"}
	if seen != strings.Join(want, "\n") {
		t.Errorf("the server saw\n%s\nwant\n%s", seen, strings.Join(want, "\n"))
	}
	bad := *u
	bad.Opaque = "/a b" // sent as it is: a space would split the request line
	if err := send(&bad, ""); err == nil || !strings.Contains(err.Error(), "invalid host or path") {
		t.Errorf("a path with a space: %v, want it refused", err)
	}
	if err := send(u, "bad host"); err == nil || !strings.Contains(err.Error(), "invalid host or path") {
		t.Errorf("a Host with a space: %v, want it refused", err)
	}
}
