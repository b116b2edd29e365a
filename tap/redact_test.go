package tap

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	secret := []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Goog-Api-Key",
		"X-Auth-Token", "X-Amz-Security-Token", "Client-Secret", "access_token", "refresh_token", "id_token", "token", "key",
		"api_key", "apikey", "code", "sig", "signature", "password", "--api-key", "--token", "GITHUB_PERSONAL_ACCESS_TOKEN",
		"OPENAI_API_KEY", "x-private-thing", strings.Repeat("a", 80) + "_TOKEN",
		"X-Amz-Signature", "X-Amz-Credential", "x-goog-signature", "pass", "bearer", "X-Auth"}
	public := []string{"Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID", "Accept", "sessionId", "session_id",
		"Host", "Origin", "User-Agent", "WWW-Authenticate", "monkey", "keyboard", "name", "--verbose",
		"passthrough", "compass", "X-Amz-Date", "X-Amz-Expires", "X-Authority"}
	for _, n := range secret {
		if !isSecretName(n) {
			t.Errorf("%q is not taken for a secret", n)
		}
	}
	for _, n := range public {
		if isSecretName(n) {
			t.Errorf("%q is taken for a secret", n)
		}
	}
}

func TestRedactHeaderValue(t *testing.T) {
	cases := [][3]string{
		{"Authorization", "Bearer abc.def", "Bearer [REDACTED]"},
		{"Authorization", "opaque", "[REDACTED]"},
		{"Cookie", "a=1; b=2", "a=[REDACTED]; b=[REDACTED]"},
		{"Set-Cookie", "sid=xyz; Path=/; Secure", "sid=[REDACTED]; Path=/; Secure"},
		{"Set-Cookie", "sid=xyz", "sid=[REDACTED]"},
		{"X-Api-Key", "k", "[REDACTED]"},
	}
	for _, c := range cases {
		if got := redactHeaderValue(c[0], c[1]); got != c[2] {
			t.Errorf("%s: %q → %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestRedactTargetsURLsAndArgs(t *testing.T) {
	if got := redactTarget("/mcp?sessionId=s1&access_token=abc&x=1&api%5Fkey=k&flag"); got != "/mcp?sessionId=s1&access_token=[REDACTED]&x=1&api%5Fkey=[REDACTED]&flag" {
		t.Errorf("redactTarget: %q", got)
	}
	// The review's T12: presigned-URL and ad-hoc credential parameters.
	if got := redactTarget("/mcp?X-Amz-Signature=Q3&X-Amz-Credential=Q4&X-Amz-Date=d&pass=Q11&bearer=Q12"); got != "/mcp?X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]&X-Amz-Date=d&pass=[REDACTED]&bearer=[REDACTED]" {
		t.Errorf("redactTarget: %q", got)
	}
	if got := redactTarget("/mcp"); got != "/mcp" {
		t.Errorf("redactTarget without query: %q", got)
	}
	if got := RedactURL("https://user:pw@api.example.com/mcp?key=k&v=2"); got != "https://user:REDACTED@api.example.com/mcp?key=[REDACTED]&v=2" {
		t.Errorf("RedactURL: %q", got)
	}
	args := []string{"npx", "-y", "server", "--api-key", "sk-1", "--token=t2", "GITHUB_TOKEN=ghp", "--port", "80",
		"https://x.example/?access_token=a3", "--verbose"}
	want := []string{"npx", "-y", "server", "--api-key", "[REDACTED]", "--token=[REDACTED]", "GITHUB_TOKEN=[REDACTED]", "--port", "80",
		"https://x.example/?access_token=[REDACTED]", "--verbose"}
	if got := RedactArgs(args); !slices.Equal(got, want) {
		t.Errorf("RedactArgs:\n%q\nwant\n%q", got, want)
	}
}

// TestHeadParsing covers the parts of HTTP/1.1 the tap reads itself.
func TestHeadParsing(t *testing.T) {
	var h head
	br := bufio.NewReader(strings.NewReader("\r\nPOST /mcp?x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 5\r\n" +
		"Connection: close, X-Foo\r\nX-Foo: 1\r\nExpect: 100-continue\r\n\r\n"))
	if err := h.read(br); err != nil {
		t.Fatal(err)
	}
	if err := h.parseRequestLine(); err != nil {
		t.Fatal(err)
	}
	if err := h.parseFraming(); err != nil {
		t.Fatal(err)
	}
	if h.str(h.method) != "POST" || h.str(h.target) != "/mcp?x" || h.minor != 1 || !h.chunked || h.contentLength != -1 || !h.closeConn || !h.expect100 {
		t.Errorf("parsed %+v", h)
	}
	hop := 0
	for _, f := range h.fields {
		if h.isHopByHop(f) {
			hop++
		}
	}
	if hop != 3 { // Transfer-Encoding, Connection, X-Foo (named by Connection)
		t.Errorf("%d hop-by-hop fields, want 3", hop)
	}
	bad := []string{
		"GET / HTTP/1.1\r\n folded: x\r\n\r\n",
		"GET / HTTP/1.1\r\nno colon\r\n\r\n",
		"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"GET /\r\n\r\n",
	}
	for _, in := range bad {
		var h head
		err := h.read(bufio.NewReader(strings.NewReader(in)))
		if err == nil {
			err = h.parseRequestLine()
		}
		if err == nil {
			err = h.parseFraming()
		}
		if err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
	big := "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", maxHeadBytes) + "\r\n\r\n"
	if err := new(head).read(bufio.NewReader(strings.NewReader(big))); err != errHeadTooLarge {
		t.Errorf("a huge head: %v", err)
	}
}

// TestBodyReader reads each framing piece by piece, and knows when it would block.
func TestBodyReader(t *testing.T) {
	chunked := "4\r\nabcd\r\n3;ext=1\r\nefg\r\n0\r\nTrailer: x\r\n\r\nNEXT"
	br := bufio.NewReader(strings.NewReader(chunked))
	r := newBodyReader(br, bodyChunked, -1)
	var got []byte
	for {
		p, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p...)
	}
	rest, _ := io.ReadAll(br)
	if string(got) != "abcdefg" || string(rest) != "NEXT" {
		t.Errorf("chunked: %q, then %q", got, rest)
	}
	r = newBodyReader(bufio.NewReader(strings.NewReader("12345")), bodyLength, 3)
	p, _ := r.next()
	r.release()
	if _, err := r.next(); string(p) != "123" || err != io.EOF {
		t.Errorf("length: %q %v", p, err)
	}
	r = newBodyReader(bufio.NewReader(strings.NewReader("5\r\nab")), bodyChunked, -1)
	if _, err := r.next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.next(); err != io.ErrUnexpectedEOF {
		t.Errorf("a chunk cut short: %v", err)
	}
	// wouldBlock: after a chunk, with the next one's size line incomplete, whole,
	// or the last chunk's trailers pending.
	for in, want := range map[string]bool{"2\r\nab\r\n": true, "2\r\nab\r\n3\r": true, "2\r\nab\r\n3\r\nx": false, "2\r\nab\r\n0\r\n": true, "2\r\nab\r\n0\r\n\r\n": false} {
		r := newBodyReader(bufio.NewReader(strings.NewReader(in)), bodyChunked, -1)
		if _, err := r.next(); err != nil {
			t.Fatal(err)
		}
		_, _ = r.br.Peek(len(in)) // as if it all had arrived in one read
		r.release()
		if got := r.wouldBlock(); got != want {
			t.Errorf("%q: wouldBlock %v, want %v", in, got, want)
		}
	}
}
