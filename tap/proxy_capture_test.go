package tap

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// exchangeScript is the traffic of TestHTTPTapCaptureBytes: requests sent on one
// connection, and the upstream's answer to each (header lines, then the body).
var exchangeScript = []struct{ request, respHeader, respBody string }{
	{
		"POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Mcp-Protocol-Version: 2025-06-18\r\nAuthorization: Bearer s3cret\r\nContent-Length: 40\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"Content-Type: application/json\r\nDate: Wed, 25 Nov 2026 13:04:05 GMT\r\nMcp-Session-Id: abc\r\n", `{"jsonrpc":"2.0","id":1,"result":{}}`,
	},
	{ // the same header lines again
		"POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Mcp-Protocol-Version: 2025-06-18\r\nAuthorization: Bearer s3cret\r\nContent-Length: 40\r\n\r\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		"Content-Type: application/json\r\nDate: Wed, 25 Nov 2026 13:04:05 GMT\r\nMcp-Session-Id: abc\r\n", `{"jsonrpc":"2.0","id":2,"result":{}}`,
	},
	{ // other values, names in other spellings, repeated and unusual fields
		"POST /mcp HTTP/1.1\r\nhost: HOST\r\ncontent-type: application/json\r\nx-weird-CASE: 1\r\nCookie: a=1; b=2\r\nX-Api-Key: k\r\n" +
			"x-multi: one\r\nX-Multi: two\r\nUser-Agent: test/1\r\nFoo Bar: spaced\r\nmcp-session-id: abc\r\nContent-Length: 41\r\n\r\n" + `{"jsonrpc":"2.0","id":33,"method":"ping"}`,
		"content-type: application/json\r\nSet-Cookie: sid=xyz; Path=/; HttpOnly\r\nset-cookie: other=1\r\nX-Trace: \"q\\u\"\r\n" +
			"date: Wed, 25 Nov 2026 13:04:06 GMT\r\n", `{"jsonrpc":"2.0","id":33,"result":{}}`,
	},
	{ // a body that is not JSON, no Content-Type
		"POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Length: 3\r\n\r\nabc",
		"Content-Type: text/plain\r\n", "no",
	},
}

// wantCaptureRedacted and wantCaptureKept are the capture lines of exchangeScript,
// with redaction and without, times replaced by T and the tap's address by HOST.
const wantCaptureRedacted = `{"seq":1,"t":"T","dir":"c2s","transport":"streamable-http","session":"conn-1","msg":{"jsonrpc":"2.0","id":1,"method":"ping"},"size":40,"http":{"exchange":1,"method":"POST","path":"/mcp","contentType":"application/json","headers":{"Accept":["application/json, text/event-stream"],"Authorization":["Bearer [REDACTED]"],"Content-Length":["40"],"Content-Type":["application/json"],"Host":["HOST"],"Mcp-Protocol-Version":["2025-06-18"]}}}
{"seq":2,"t":"T","dir":"s2c","transport":"streamable-http","session":"abc","msg":{"jsonrpc":"2.0","id":1,"result":{}},"size":36,"http":{"exchange":1,"method":"POST","path":"/mcp","status":200,"contentType":"application/json","headers":{"Content-Length":["36"],"Content-Type":["application/json"],"Date":["Wed, 25 Nov 2026 13:04:05 GMT"],"Mcp-Session-Id":["abc"]}}}
{"seq":3,"t":"T","dir":"c2s","transport":"streamable-http","session":"conn-1","msg":{"jsonrpc":"2.0","id":2,"method":"ping"},"size":40,"http":{"exchange":2,"method":"POST","path":"/mcp","contentType":"application/json","headers":{"Accept":["application/json, text/event-stream"],"Authorization":["Bearer [REDACTED]"],"Content-Length":["40"],"Content-Type":["application/json"],"Host":["HOST"],"Mcp-Protocol-Version":["2025-06-18"]}}}
{"seq":4,"t":"T","dir":"s2c","transport":"streamable-http","session":"abc","msg":{"jsonrpc":"2.0","id":2,"result":{}},"size":36,"http":{"exchange":2,"method":"POST","path":"/mcp","status":200,"contentType":"application/json","headers":{"Content-Length":["36"],"Content-Type":["application/json"],"Date":["Wed, 25 Nov 2026 13:04:05 GMT"],"Mcp-Session-Id":["abc"]}}}
{"seq":5,"t":"T","dir":"c2s","transport":"streamable-http","session":"abc","msg":{"jsonrpc":"2.0","id":33,"method":"ping"},"size":41,"http":{"exchange":3,"method":"POST","path":"/mcp","contentType":"application/json","headers":{"Content-Length":["41"],"Content-Type":["application/json"],"Cookie":["a=[REDACTED]; b=[REDACTED]"],"Foo Bar":["spaced"],"Host":["HOST"],"Mcp-Session-Id":["abc"],"User-Agent":["test/1"],"X-Api-Key":["[REDACTED]"],"X-Multi":["one","two"],"X-Weird-Case":["1"]}}}
{"seq":6,"t":"T","dir":"s2c","transport":"streamable-http","session":"abc","msg":{"jsonrpc":"2.0","id":33,"result":{}},"size":37,"http":{"exchange":3,"method":"POST","path":"/mcp","status":200,"contentType":"application/json","headers":{"Content-Length":["37"],"Content-Type":["application/json"],"Date":["Wed, 25 Nov 2026 13:04:06 GMT"],"Set-Cookie":["sid=[REDACTED]; Path=/; HttpOnly","other=[REDACTED]"],"X-Trace":["\"q\\u\""]}}}
{"seq":7,"t":"T","dir":"c2s","transport":"streamable-http","session":"conn-1","raw":"abc","invalid":true,"size":3,"http":{"exchange":4,"method":"POST","path":"/mcp","headers":{"Content-Length":["3"],"Host":["HOST"]}}}
{"seq":8,"t":"T","kind":"http","dir":"s2c","transport":"streamable-http","session":"conn-1","size":2,"http":{"exchange":4,"method":"POST","path":"/mcp","status":200,"contentType":"text/plain","headers":{"Content-Length":["2"],"Content-Type":["text/plain"]}}}
`

// TestHTTPTapCaptureBytes pins the bytes the tap records for HTTP exchanges with
// their headers (canonical names, repeated fields, redaction, escaping), on one
// connection where header sections repeat and change.
func TestHTTPTapCaptureBytes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noRedact bool
		want     string
	}{
		{"redacted", false, wantCaptureRedacted},
		{"kept", true, strings.NewReplacer(
			"Bearer [REDACTED]", "Bearer s3cret", "a=[REDACTED]; b=[REDACTED]", "a=1; b=2", `"X-Api-Key":["[REDACTED]"]`, `"X-Api-Key":["k"]`,
			"sid=[REDACTED]", "sid=xyz", "other=[REDACTED]", "other=1").Replace(wantCaptureRedacted)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := rawServer(t, func(c net.Conn) {
				br := bufio.NewReader(c)
				for _, ex := range exchangeScript {
					if err := skipRequest(br); err != nil {
						return
					}
					if err := writeResponse(c, http.StatusOK, ex.respHeader, ex.respBody); err != nil {
						return
					}
				}
			})
			capt := newTestCapture(t)
			sub := capt.rec.Subscribe(64)
			addr, _ := startTap(t, "http://"+up+"/mcp", capt, HTTPOptions{NoRedact: tc.noRedact})
			rc := dialRaw(t, addr)
			for _, ex := range exchangeScript {
				rc.send(strings.ReplaceAll(ex.request, "HOST", addr))
				if resp, body := rc.response(http.MethodPost); resp.StatusCode != http.StatusOK || string(body) != ex.respBody {
					t.Fatalf("response %d %q", resp.StatusCode, body)
				}
			}
			text := capt.text(t)
			_, lines, _ := strings.Cut(text, "\n") // after the header line
			lines = regexp.MustCompile(`"t":"[^"]*"`).ReplaceAllString(lines, `"t":"T"`)
			lines = strings.ReplaceAll(lines, addr, "HOST")
			if lines != tc.want {
				t.Errorf("capture:\n%s\nwant:\n%s", lines, tc.want)
			}
			// A subscriber sees the headers the capture holds.
			var live []*capture.Record
			for r := range sub.C {
				live = append(live, r)
			}
			_, written, err := capture.ReadFile(capt.path)
			if err != nil || len(live) != len(written) {
				t.Fatalf("%d records live, %d written (%v)", len(live), len(written), err)
			}
			for i, r := range live {
				if !reflect.DeepEqual(r.HTTP.Headers, written[i].HTTP.Headers) {
					t.Errorf("record %d: a subscriber saw headers %v, the capture holds %v", i+1, r.HTTP.Headers, written[i].HTTP.Headers)
				}
			}
		})
	}
}

// skipRequest reads a request with a Content-Length body, without judging its
// header lines (net/http refuses some the tap relays).
func skipRequest(br *bufio.Reader) error {
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(value))
		}
	}
	_, err := io.CopyN(io.Discard, br, int64(length))
	return err
}
