package h1

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Responses given back with Recycle are reused with their Header map, and a
// reused one holds its own response's headers only: the server alternates two
// header sets and two kinds of body, and no response shows the other's.
func TestRecycleReusesResponses(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n%2 == 0 {
			w.Header().Set("X-Even", "yes")
		} else {
			w.Header().Set("X-Odd", "yes")
			w.Header().Add("X-Many", "1")
			w.Header().Add("X-Many", "2")
			w.(http.Flusher).Flush() // a chunked body
		}
		io.WriteString(w, "body"+strconv.Itoa(n))
	})
	tr := newTransport(t, nil)
	seen := map[*http.Response]bool{}
	reused := 0
	for n := range 40 {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL+"?n="+strconv.Itoa(n), nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if seen[resp] {
			reused++
		}
		seen[resp] = true
		data, err := io.ReadAll(resp.Body)
		if err != nil || string(data) != "body"+strconv.Itoa(n) {
			t.Fatalf("request %d: %q %v", n, data, err)
		}
		resp.Body.Close()
		even, odd := resp.Header.Get("X-Even"), resp.Header.Get("X-Odd")
		if (n%2 == 0) != (even == "yes") || (n%2 == 1) != (odd == "yes") {
			t.Fatalf("request %d: X-Even %q, X-Odd %q", n, even, odd)
		}
		if many := resp.Header["X-Many"]; n%2 == 1 && strings.Join(many, ",") != "1,2" || n%2 == 0 && many != nil {
			t.Fatalf("request %d: X-Many %q", n, many)
		}
		length, te := int64(len(data)), []string(nil)
		if n%2 == 1 {
			length, te = -1, []string{"chunked"}
		}
		if resp.StatusCode != http.StatusOK || resp.ContentLength != length || !slices.Equal(resp.TransferEncoding, te) || resp.Request != req {
			t.Fatalf("request %d: status %d, length %d, transfer encoding %q", n, resp.StatusCode, resp.ContentLength, resp.TransferEncoding)
		}
		Recycle(resp)
	}
	if reused == 0 { // sync.Pool drops some under the race detector, never all
		t.Fatal("no response was reused")
	}
}

// Recycle leaves alone a response whose body has not ended (it is still read
// as before), and responses that are not this package's.
func TestRecycleLeavesOthersAlone(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "whole body") })
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	Recycle(resp) // the body is unread
	for range 4 {
		other, err := tr.RoundTrip(req.Clone(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		if other == resp {
			t.Fatal("a response whose body had not ended was reused")
		}
		io.Copy(io.Discard, other.Body)
		other.Body.Close()
	}
	if data, err := io.ReadAll(resp.Body); err != nil || string(data) != "whole body" {
		t.Fatalf("%q %v", data, err)
	}
	resp.Body.Close()

	foreign := &http.Response{Body: http.NoBody, Header: http.Header{"A": {"b"}}}
	Recycle(foreign)
	Recycle(&http.Response{Body: resp.Body}) // a copy of a response: not the one its body belongs to
	if foreign.Header.Get("A") != "b" {
		t.Fatal("a foreign response was changed")
	}
}
