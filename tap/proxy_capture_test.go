package tap

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"runtime"
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

// TestHTTPTapRecordingAllocs bounds what recording adds to an exchange, in
// allocations over the whole process (relays and recorder): the same exchanges
// through a tap that records to a file and through one that does not (14 more
// per exchange before the records came with the exchange and the headers as one
// string). Header sections that repeat on a connection cost nothing more; one
// whose Content-Length changes costs one string.
func TestHTTPTapRecordingAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures many exchanges; the race detector allocates on its own")
	}
	const n = 400
	reply := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Wed, 25 Nov 2026 13:04:05 GMT\r\nContent-Length: " +
		strconv.Itoa(len(reply)) + "\r\n\r\n" + reply)
	up := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		var line []byte
		for {
			length := 0
			for { // the head, without allocating
				l, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				line = append(line[:0], l...)
				if len(line) <= 2 {
					break
				}
				if len(line) > 16 && asciiEqualFold(line[:15], "Content-Length:") {
					for _, d := range line[15:] {
						if d >= '0' && d <= '9' {
							length = length*10 + int(d-'0')
						}
					}
				}
			}
			if _, err := br.Discard(length); err != nil {
				return
			}
			if _, err := c.Write(resp); err != nil {
				return
			}
		}
	})
	measure := func(capt *testCapture, vary bool) float64 {
		addr, _ := startTap(t, "http://"+up+"/mcp", capt, HTTPOptions{})
		rc := dialRaw(t, addr)
		reqs := make([][]byte, 2)
		for i := range reqs {
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", i) + `"}}}`
			reqs[i] = []byte("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
				"Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
		}
		buf := make([]byte, 4096)
		call := func(i int) {
			req := reqs[0]
			if vary {
				req = reqs[i%2]
			}
			if _, err := rc.c.Write(req); err != nil {
				t.Fatal(err)
			}
			want := len(resp) // relayed as it came
			for got := 0; got < want; {
				k, err := rc.br.Read(buf[:want-got])
				if err != nil {
					t.Fatal(err)
				}
				got += k
			}
		}
		for i := range 50 {
			call(i)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		for i := range n {
			call(i)
		}
		if capt != nil {
			capt.close(t) // what the recorder's goroutine does counts too
		}
		runtime.ReadMemStats(&ms)
		return float64(ms.Mallocs-before) / n
	}
	for _, vary := range []bool{false, true} {
		bare := measure(nil, vary)
		recorded := measure(newTestCapture(t), vary)
		added := recorded - bare
		t.Logf("Content-Length varies: %v; allocations per exchange: %.2f without a recorder, %.2f with one (+%.2f)", vary, bare, recorded, added)
		// The records come with the exchange; what is left is the summary's
		// entry for the request (reused only once the recorder has forgotten a
		// thousand), and slack.
		limit := 2.0
		if vary {
			limit++ // a header string for each request
		}
		if added > limit {
			t.Errorf("recording adds %.2f allocations per exchange, want at most %v", added, limit)
		}
	}
}
