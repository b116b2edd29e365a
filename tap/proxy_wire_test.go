package tap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// wireFixture reads one of the project's wire captures (testdata/wire).
func wireFixture(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// httpExchange is one exchange of a Streamable HTTP capture.
type httpExchange struct {
	Note    string `json:"note"`
	Request struct {
		Method  string            `json:"method"`
		Path    string            `json:"path"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status   int               `json:"status"`
		Headers  map[string]string `json:"headers"`
		BodyText string            `json:"body_text"`
	} `json:"response"`
}

// TestHTTPTapReplaysStreamableCapture plays the C# SDK capture through the tap: a
// hand-written upstream answers each request with the captured response, and both
// sides must see exactly what the other sent (bodies byte for byte, every header).
func TestHTTPTapReplaysStreamableCapture(t *testing.T) {
	var capt struct {
		Exchanges []httpExchange `json:"exchanges"`
	}
	wireFixture(t, "csharp-streamable-http-2025-06-18.json", &capt)
	if len(capt.Exchanges) != 8 {
		t.Fatalf("%d exchanges", len(capt.Exchanges))
	}
	type seen struct {
		req  *http.Request
		body []byte
	}
	got := make(chan seen, 1)
	next := make(chan httpExchange, 1)
	up := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, body, err := readRequest(br)
			if err != nil {
				return
			}
			got <- seen{req, body}
			ex := <-next
			var head strings.Builder
			fmt.Fprintf(&head, "HTTP/1.1 %d %s\r\n", ex.Response.Status, http.StatusText(ex.Response.Status))
			for _, k := range slices.Sorted(maps.Keys(ex.Response.Headers)) {
				if k != "Transfer-Encoding" {
					fmt.Fprintf(&head, "%s: %s\r\n", k, ex.Response.Headers[k])
				}
			}
			b := ex.Response.BodyText
			if ex.Response.Headers["Transfer-Encoding"] == "chunked" {
				// Chunked as captured, cut in two chunks: the tap re-frames, the
				// bytes stay.
				head.WriteString("Transfer-Encoding: chunked\r\n\r\n")
				half := len(b) / 2
				head.WriteString(string(appendChunk(appendChunk(nil, []byte(b[:half])), []byte(b[half:]))) + lastChunk)
			} else {
				head.WriteString("\r\n" + b) // the capture's Content-Length frames it
			}
			if _, err := io.WriteString(c, head.String()); err != nil {
				return
			}
		}
	})
	tc := newTestCapture(t)
	addr, tp := startTap(t, "http://"+up+"/", tc, HTTPOptions{})
	rc := dialRaw(t, addr)
	for _, ex := range capt.Exchanges {
		body := []byte(ex.Request.Body)
		var req strings.Builder
		fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\n", ex.Request.Method, ex.Request.Path, addr)
		for _, k := range slices.Sorted(maps.Keys(ex.Request.Headers)) {
			fmt.Fprintf(&req, "%s: %s\r\n", k, ex.Request.Headers[k])
		}
		req.WriteString("\r\n")
		if ex.Request.Headers["Transfer-Encoding"] == "chunked" {
			req.Write(appendChunk(nil, body))
			req.WriteString(lastChunk)
		}
		next <- ex
		rc.send(req.String())
		s := <-got
		if s.req.Method != ex.Request.Method || s.req.URL.RequestURI() != ex.Request.Path || !bytes.Equal(s.body, body) {
			t.Errorf("%s: the upstream got %s %s %q", ex.Note, s.req.Method, s.req.URL, s.body)
		}
		for k, v := range ex.Request.Headers {
			if k != "Transfer-Encoding" && s.req.Header.Get(k) != v {
				t.Errorf("%s: the upstream got %s %q, want %q", ex.Note, k, s.req.Header.Get(k), v)
			}
		}
		resp, rbody := rc.response(ex.Request.Method)
		if resp.StatusCode != ex.Response.Status || string(rbody) != ex.Response.BodyText {
			t.Errorf("%s: the client got %d %q, want %d %q", ex.Note, resp.StatusCode, rbody, ex.Response.Status, ex.Response.BodyText)
		}
		for k, v := range ex.Response.Headers {
			if k != "Transfer-Encoding" && resp.Header.Get(k) != v {
				t.Errorf("%s: the client got %s %q, want %q", ex.Note, k, resp.Header.Get(k), v)
			}
		}
	}
	_ = tp.Close()
	recs := tc.records(t)
	sum := capture.Summarize(recs)
	// Six requests (ids 1 to 6), all answered; and the C# server's quirk shows: it
	// answered notifications/initialized with the initialize response again.
	if len(sum.Unanswered) != 0 || sum.Requests != 6 || sum.Responses != 7 || sum.Unmatched != 1 || sum.Invalid != 0 || sum.HTTPErrors != 1 {
		t.Errorf("summary: %s\n%s", sum.String(), kinds(recs))
	}
	// The pretty-printed request bodies are recorded compact, and exactly in raw.
	first := recs[0]
	if !first.IsMessage() || !json.Valid(first.Msg) || bytes.ContainsAny(first.Msg, "\n ") || first.Raw != string(capt.Exchanges[0].Request.Body) {
		t.Errorf("first record: msg %s raw %q", first.Msg, first.Raw)
	}
}

// sseUpstream is an HTTP+SSE server written by hand: its stream (GET) carries
// exactly the bytes the test sends it, and each POST is handed to the test, then
// answered 202.
type sseUpstream struct {
	url     string
	streams chan chan string // each GET offers the channel of its stream
	posts   chan sseUpstreamPost
}

type sseUpstreamPost struct {
	target string
	body   []byte
}

func newSSEUpstream(t *testing.T) *sseUpstream {
	t.Helper()
	u := &sseUpstream{streams: make(chan chan string, 1), posts: make(chan sseUpstreamPost, 1)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			u.posts <- sseUpstreamPost{r.URL.RequestURI(), body}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		stream := make(chan string)
		select {
		case u.streams <- stream:
		case <-r.Context().Done():
			return
		}
		for {
			select {
			case s := <-stream:
				_, _ = io.WriteString(w, s)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(hs.Close)
	u.url = hs.URL
	return u
}

// sseClient reads a stream through the tap byte by byte as it arrives.
type sseClient struct {
	t    *testing.T
	body io.ReadCloser
}

func openSSE(t *testing.T, url string) *sseClient {
	t.Helper()
	req, _ := http.NewRequestWithContext(testkit.Context(t), http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &sseClient{t: t, body: resp.Body}
}

// expect reads len(want) bytes and fails unless they are want.
func (c *sseClient) expect(what, want string) {
	c.t.Helper()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c.body, got); err != nil {
		c.t.Fatalf("%s: %v (got %q)", what, err, got)
	}
	if string(got) != want {
		c.t.Fatalf("%s: the client got\n%q\nwant\n%q", what, got, want)
	}
}

// post sends a message to the endpoint through the tap and checks that the
// upstream got exactly it, at the endpoint's target.
func (u *sseUpstream) post(t *testing.T, endpoint, wantTarget string, msg []byte) {
	t.Helper()
	resp, err := http.Post(endpoint, "application/json", bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p := <-u.posts
	if resp.StatusCode != http.StatusAccepted || p.target != wantTarget || !bytes.Equal(p.body, msg) {
		t.Fatalf("POST %s: %d; the upstream got %s %q", endpoint, resp.StatusCode, p.target, p.body)
	}
}

// TestHTTPTapSSEFramingVariants: an HTTP+SSE stream with every framing variant
// (no space after the colon, CRLF and CR line ends, ": ping" comments) reaches the
// client byte for byte, except the endpoint URL, which names the tap; the client's
// posts to it reach the upstream's endpoint with its query.
func TestHTTPTapSSEFramingVariants(t *testing.T) {
	up := newSSEUpstream(t)
	tc := newTestCapture(t)
	addr, tp := startTap(t, up.url+"/sse", tc, HTTPOptions{})

	// An absolute endpoint on the upstream's origin is pointed at the tap.
	c := openSSE(t, "http://"+addr+"/sse")
	stream := <-up.streams
	upHost := strings.TrimPrefix(up.url, "http://")
	first := ": hello\r\n\r\nevent:endpoint\r\ndata:http://%s/messages?sessionId=s1&x=y\r\n\r\n"
	stream <- fmt.Sprintf(first, upHost)
	c.expect("endpoint", fmt.Sprintf(first, addr))
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	up.post(t, "http://"+addr+"/messages?sessionId=s1&x=y", "/messages?sessionId=s1&x=y", ping)
	events := ": ping\r\n\r\nevent: message\rdata:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\r:\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\n" +
		"data: \"params\":{\"level\":\"info\",\"data\":\"two lines\"}}\n\n"
	stream <- events
	c.expect("events", events)

	// A relative endpoint with its own query resolves against the tap already: it
	// passes unchanged.
	c2 := openSSE(t, "http://"+addr+"/sse")
	stream2 := <-up.streams
	second := "event: endpoint\ndata: messages?sessionId=s2&extra=%2F1\n\n"
	stream2 <- second
	c2.expect("relative endpoint", second)
	up.post(t, "http://"+addr+"/messages?sessionId=s2&extra=%2F1", "/messages?sessionId=s2&extra=%2F1", ping)
	stream2 <- "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	c2.expect("answer", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")

	_ = c.body.Close()
	_ = c2.body.Close()
	_ = tp.Close()
	recs := tc.records(t)
	eps := findKind(recs, capture.KindEndpoint)
	if len(eps) != 2 || eps[0].Session != "s1" || eps[0].Endpoint != "http://"+addr+"/messages?sessionId=s1&x=y" ||
		eps[1].Session != "s2" || eps[1].Endpoint != eps[1].Text {
		t.Fatalf("endpoint records: %+v %+v", eps[0], eps[1])
	}
	sum := capture.Summarize(recs)
	if len(sum.Unanswered) != 0 || sum.Requests != 2 || sum.Responses != 2 || sum.Notifications != 1 || sum.Invalid != 0 {
		t.Errorf("summary %s; %s", sum.String(), kinds(recs))
	}
	for _, r := range recs {
		if r.IsMessage() && (r.Transport != capture.TransportHTTPSSE || (r.Session != "s1" && r.Session != "s2")) {
			t.Errorf("message %d: %s session %q", r.Seq, r.Transport, r.Session)
		}
	}
}

// TestHTTPTapReplaysHTTPSSECaptures plays the client messages of the VS Code and
// Roo Code captures (HTTP+SSE) through the tap against a hand-written upstream that
// answers on the stream: every byte of the stream and of each post arrives as sent.
func TestHTTPTapReplaysHTTPSSECaptures(t *testing.T) {
	var vscode struct {
		Client []json.RawMessage `json:"client_messages"`
		Server []json.RawMessage `json:"server_messages"`
	}
	wireFixture(t, "vscode-client-2025-03-26.json", &vscode)
	var roo struct {
		Client []json.RawMessage `json:"client_messages"`
	}
	wireFixture(t, "roo-code-client-2024-11-05.json", &roo)
	for name, msgs := range map[string][]json.RawMessage{"vscode": vscode.Client, "roo": roo.Client} {
		t.Run(name, func(t *testing.T) {
			up := newSSEUpstream(t)
			tc := newTestCapture(t)
			addr, tp := startTap(t, up.url+"/sse", tc, HTTPOptions{})
			c := openSSE(t, "http://"+addr+"/sse")
			stream := <-up.streams
			upHost := strings.TrimPrefix(up.url, "http://")
			stream <- "event: endpoint\ndata: http://" + upHost + "/message?session_id=abc\n\n"
			c.expect("endpoint", "event: endpoint\ndata: http://"+addr+"/message?session_id=abc\n\n")
			answered := 0
			for _, m := range msgs {
				up.post(t, "http://"+addr+"/message?session_id=abc", "/message?session_id=abc", m) // as captured, pretty-printed
				var probe struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(m, &probe)
				if probe.ID == nil {
					continue
				}
				var reply bytes.Buffer
				if name == "vscode" && answered < len(vscode.Server) {
					_ = json.Compact(&reply, vscode.Server[answered])
				} else {
					fmt.Fprintf(&reply, `{"jsonrpc":"2.0","id":%s,"result":{}}`, probe.ID)
				}
				answered++
				ev := "event: message\ndata: " + reply.String() + "\n\n"
				stream <- ev
				c.expect("reply", ev)
			}
			_ = c.body.Close()
			_ = tp.Close()
			recs := tc.records(t)
			sum := capture.Summarize(recs)
			if len(sum.Unanswered) != 0 || sum.Requests != int64(answered) || sum.Responses != int64(answered) || sum.C2S != int64(len(msgs)) {
				t.Errorf("summary %s; %s", sum.String(), kinds(recs))
			}
			for _, r := range recs {
				if r.IsMessage() && r.Session != "abc" {
					t.Errorf("message %d: session %q, want abc", r.Seq, r.Session)
				}
			}
		})
	}
}

// TestJSONish: the Content-Types a body of JSON-RPC may have, the two common
// ones answered without parsing, agree with mime.ParseMediaType's reading.
func TestJSONish(t *testing.T) {
	for ct, want := range map[string]bool{
		"": true, "application/json": true, "Application/JSON": true,
		"application/json; charset=utf-8": true, "application/json; charset=UTF-8": true,
		"application/json;charset=utf-8": true, "application/vnd.x+json": true,
		"application/json; charset": false, "text/plain": false, "application/jsonx": false,
		"application/json ; charset=utf-8": true, "text/event-stream": false,
	} {
		if got := jsonish(ct); got != want {
			t.Errorf("jsonish(%q) = %v, want %v", ct, got, want)
		}
	}
}
