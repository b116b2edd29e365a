package legacysse

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzQueryValue checks queryValue against url.ParseQuery on every query that
// ParseQuery accepts.
func FuzzQueryValue(f *testing.F) {
	for _, seed := range []string{
		"sessionId=abc",
		"x=1&sessionId=abc&sessionId=def",
		"sessionId",
		"session%49d=a%20b",
		"sessionId=a+b",
		"sessionId=%zz",
		"&&sessionId=&",
		"a=b;sessionId=c",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := queryValue(raw, SessionParam)
		values, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if want := values.Get(SessionParam); got != want {
			t.Errorf("queryValue(%q) = %q, url.ParseQuery says %q", raw, got, want)
		}
	})
}

// FuzzResolveEndpoint checks that whatever a server puts in the endpoint event, the
// client either refuses it or posts to an http URL on the stream's origin.
func FuzzResolveEndpoint(f *testing.F) {
	for _, seed := range []string{
		"/messages?sessionId=abc",
		"messages?session=abc&x=1",
		"../post?a=b#frag",
		"http://127.0.0.1:8080/rpc",
		"//evil.example/x",
		"https://127.0.0.1:8080/x",
		"javascript:alert(1)",
		" /padded \r\n",
		"%zz",
		"",
	} {
		f.Add(seed)
	}
	base, err := url.Parse("http://127.0.0.1:8080/sub/dir/sse?token=t")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data string) {
		got, err := resolveEndpoint(base, data, false)
		if err != nil {
			return
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("resolveEndpoint(%q) = %q, which does not parse: %v", data, got, err)
		}
		if u.Scheme != "http" || u.Host != base.Host || u.Fragment != "" {
			t.Errorf("resolveEndpoint(%q) = %q, off the stream's origin", data, got)
		}
		if !strings.HasPrefix(got, "http://127.0.0.1:8080/") {
			t.Errorf("resolveEndpoint(%q) = %q", data, got)
		}
	})
}

func TestResolveEndpoint(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8080/sub/dir/sse?token=t")
	cases := map[string]string{
		"/messages?sessionId=abc":  "http://127.0.0.1:8080/messages?sessionId=abc",
		"messages?session=abc&x=1": "http://127.0.0.1:8080/sub/dir/messages?session=abc&x=1",
		"../post?a=b#frag":         "http://127.0.0.1:8080/sub/post?a=b",
		" /padded\r\n":             "http://127.0.0.1:8080/padded",
		"HTTP://127.0.0.1:8080/x":  "http://127.0.0.1:8080/x",
		"//127.0.0.1:8080":         "http://127.0.0.1:8080/",
		"//evil.example/x":         "",
		"https://127.0.0.1:8080/x": "",
		"javascript:alert(1)":      "",
	}
	for data, want := range cases {
		got, err := resolveEndpoint(base, data, false)
		if want == "" {
			if err == nil {
				t.Errorf("resolveEndpoint(%q) = %q, want it refused", data, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("resolveEndpoint(%q) = %q %v, want %q", data, got, err, want)
		}
	}
}
