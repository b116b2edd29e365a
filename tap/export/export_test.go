package export_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/export"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const testTimeout = 30 * time.Second

// recordHTTP runs a client session (protocol version, "" for stateless) through a
// real HTTP tap in front of the demo server, with a secret in the URL's query and
// in an Authorization header, and returns the capture the tap wrote.
func recordHTTP(t *testing.T, version string) (capture.Header, []*capture.Record) {
	t.Helper()
	return recordTap(t, false, version)
}

// recordTap records a session through an HTTP tap: over Streamable HTTP, or over
// the 2024-11-05 HTTP+SSE transport when legacy is set.
func recordTap(t *testing.T, legacy bool, version string) (capture.Header, []*capture.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	srv, err := demo.NewServer(&demo.Options{CountInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var handler interface {
		http.Handler
		Close() error
	}
	endpoint := "/mcp"
	if legacy {
		handler, endpoint = legacysse.NewHandler(srv, nil), "/sse"
	} else {
		handler = streamable.NewHandler(srv, nil)
	}
	up := httptest.NewServer(handler)
	defer func() { _ = handler.Close(); up.Close() }()

	path := filepath.Join(t.TempDir(), "capture.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := capture.NewRecorder(capture.Options{Out: f, Header: capture.Header{Tool: "test", Mode: "http", Redacted: true}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.URL + endpoint)
	tp, err := tap.NewHTTPTap(tap.HTTPOptions{Upstream: u, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- tp.Serve(ln) }()

	var conn transport.Conn
	if legacy {
		conn, err = legacysse.NewClientConn(ctx, "http://"+ln.Addr().String()+"/sse", nil)
	} else {
		conn, err = streamable.NewClientConn(ctx, "http://"+ln.Addr().String()+"/mcp?api_key=sekrit-key",
			&streamable.ClientOptions{Header: http.Header{"Authorization": {"Bearer sekrit-token"}}})
	}
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(protocol.Implementation{Name: "export-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	cs, err := client.Connect(ctx, conn)
	if err != nil {
		t.Fatalf("connecting through the tap: %v", err)
	}
	if res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "through the tap"}); err != nil || res.IsError {
		t.Fatalf("echo: %+v %v", res, err)
	}
	progress := 0
	if _, err := cs.CallTool(ctx, "count", map[string]any{"n": 3}, mcp.WithProgress(func(*protocol.ProgressParams) { progress++ })); err != nil || progress != 3 {
		t.Fatalf("count: %v, %d progress notifications", err, progress)
	}
	if res, err := cs.CallTool(ctx, "no-such-tool", nil); err == nil && !res.IsError {
		t.Fatalf("calling a tool that does not exist succeeded: %+v", res)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tp.Close(); err != nil && !strings.Contains(err.Error(), "closed") {
		t.Errorf("closing the tap: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	hdr, recs, err := capture.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return hdr, recs
}

// exchanges counts the distinct HTTP exchanges of a capture.
func exchanges(recs []*capture.Record) int {
	seen := map[uint64]bool{}
	for _, r := range recs {
		if r.HTTP != nil {
			seen[r.HTTP.Exchange] = true
		}
	}
	return len(seen)
}

// TestHARFromHTTPTap exports a capture of a real HTTP tap as HAR and checks it
// against HAR 1.2: one entry per exchange, the SSE reply as text/event-stream with
// the events' data, bodies as sent, and nothing the capture redacted.
func TestHARFromHTTPTap(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			h, recs := recordHTTP(t, version)
			var out bytes.Buffer
			if err := export.HAR(&out, h, recs); err != nil {
				t.Fatal(err)
			}
			log := checkHAR(t, out.Bytes())
			entries := log["entries"].([]any)
			if want := exchanges(recs); len(entries) != want {
				t.Errorf("%d entries, want one per HTTP exchange: %d", len(entries), want)
			}
			text := out.String()
			if strings.Contains(text, "sekrit") {
				t.Errorf("the HAR holds a secret the capture redacted")
			}
			if !strings.Contains(text, "Bearer [REDACTED]") || !strings.Contains(text, `"value": "[REDACTED]"`) {
				t.Errorf("the redacted Authorization header or api_key parameter is missing")
			}
			var sse, echo bool
			for _, e := range entries {
				e := e.(map[string]any)
				req, resp := e["request"].(map[string]any), e["response"].(map[string]any)
				content := resp["content"].(map[string]any)
				body, _ := content["text"].(string)
				if pd, ok := req["postData"].(map[string]any); ok && strings.Contains(pd["text"].(string), `"message":"through the tap"`) {
					echo = strings.Contains(body, "hello through the tap") && resp["status"].(float64) == 200
				}
				if content["mimeType"] == "text/event-stream" && strings.Count(body, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"") == 3 {
					sse = strings.Contains(body, `"result"`)
				}
			}
			if !echo || !sse {
				t.Errorf("echo entry found: %v; SSE entry with 3 progress events and the result: %v\n%s", echo, sse, text)
			}
		})
	}
}

// TestHARFromHTTPSSE: over the 2024-11-05 HTTP+SSE transport, the GET stream's
// entry holds the endpoint event (as relayed) and the replies; the client's POSTs
// are entries of their own with the server's 202.
func TestHARFromHTTPSSE(t *testing.T) {
	h, recs := recordTap(t, true, "2024-11-05")
	var out bytes.Buffer
	if err := export.HAR(&out, h, recs); err != nil {
		t.Fatal(err)
	}
	entries := checkHAR(t, out.Bytes())["entries"].([]any)
	if want := exchanges(recs); len(entries) != want {
		t.Errorf("%d entries, want one per HTTP exchange: %d", len(entries), want)
	}
	var stream bool
	posts := 0
	for _, e := range entries {
		e := e.(map[string]any)
		req, resp := e["request"].(map[string]any), e["response"].(map[string]any)
		content := resp["content"].(map[string]any)
		body, _ := content["text"].(string)
		switch req["method"] {
		case http.MethodGet:
			stream = content["mimeType"] == "text/event-stream" && strings.HasPrefix(body, "event: endpoint\ndata: /messages?sessionId=") &&
				strings.Contains(body, "\n\ndata: {\"jsonrpc\":\"2.0\"") && strings.Contains(body, "hello through the tap")
		case http.MethodPost:
			if resp["status"].(float64) == http.StatusAccepted && strings.HasPrefix(req["url"].(string), "http://127.0.0.1:") {
				posts++
			}
		}
	}
	if !stream || posts < 4 {
		t.Errorf("GET stream entry right: %v; %d POST entries answered 202, want 4 at least\n%s", stream, posts, out.String())
	}
}

// TestHARFromStdio: a stdio capture gives one synthetic entry per request, with
// its response, marked as synthetic; a request never answered has status 0.
func TestHARFromStdio(t *testing.T) {
	base := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	msg := func(seq uint64, dir, m string) *capture.Record {
		return &capture.Record{Seq: seq, Time: base.Add(time.Duration(seq) * time.Millisecond), Dir: dir,
			Transport: capture.TransportStdio, Session: "stdio", Msg: []byte(m)}
	}
	recs := []*capture.Record{
		msg(1, capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		{Seq: 2, Time: base.Add(2 * time.Millisecond), Kind: capture.KindStderr, Transport: capture.TransportStdio, Session: "stdio", Text: "listing"},
		msg(4, capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`),
		msg(5, capture.ClientToServer, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`),
		msg(6, capture.ClientToServer, `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
	}
	var out bytes.Buffer
	if err := export.HAR(&out, capture.Header{Mode: "stdio", Command: []string{"srv"}}, recs); err != nil {
		t.Fatal(err)
	}
	entries := checkHAR(t, out.Bytes())["entries"].([]any)
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2 (one per request)", len(entries))
	}
	e0, e1 := entries[0].(map[string]any), entries[1].(map[string]any)
	r0 := e0["response"].(map[string]any)
	if e0["request"].(map[string]any)["url"] != "http://stdio.invalid/tools/list" || r0["status"].(float64) != 200 ||
		r0["content"].(map[string]any)["text"] != `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` || e0["time"].(float64) != 3 {
		t.Errorf("entry 0: %v", e0)
	}
	if note := e0["_mcpkit"].(map[string]any); note["synthetic"] != true || note["note"] != export.StdioNote {
		t.Errorf("entry 0 note: %v", note)
	}
	if e1["response"].(map[string]any)["status"].(float64) != 0 {
		t.Errorf("the unanswered ping: %v", e1)
	}
}

// normalize makes a capture deterministic for a golden file. The client is
// sequential but the tap records each exchange on its own connection, so records
// of different exchanges (a reply and the client's next request, the GET stream)
// interleave differently from run to run: keep the messages, order them by
// exchange, then number them again, derive the times from the numbers, name the
// sessions by order of appearance and fix the addresses.
func normalize(h *capture.Header, recs []*capture.Record) []*capture.Record {
	base := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	h.Time, h.Listen, h.Upstream = base, "127.0.0.1:8081", "http://127.0.0.1:8080/mcp"
	var msgs []*capture.Record
	for _, r := range recs {
		if r.IsMessage() {
			msgs = append(msgs, r)
		}
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].HTTP.Exchange < msgs[j].HTTP.Exchange })
	sessions := map[string]string{}
	for i, r := range msgs {
		r.Seq = uint64(i + 1)
		r.Time = base.Add(time.Duration(r.Seq) * time.Millisecond)
		if _, ok := sessions[r.Session]; !ok {
			prefix := "session-"
			if strings.HasPrefix(r.Session, "conn-") {
				prefix = "conn-" // the tap's name for a connection without a session
			}
			sessions[r.Session] = fmt.Sprintf("%s%d", prefix, len(sessions)+1)
		}
		r.Session = sessions[r.Session]
	}
	return msgs
}

// TestMarkdownGolden renders a capture of a real HTTP tap (a legacy session) as
// Markdown and compares it with the golden file, after asserting what a reader
// needs is in it.
func TestMarkdownGolden(t *testing.T) {
	h, recs := recordHTTP(t, "2025-11-25")
	recs = normalize(&h, recs)
	var out bytes.Buffer
	if err := export.Markdown(&out, h, recs); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{
		"## Session `session-2` (streamable-http)\n\n### 1. `initialize` (id 1, client → server)",
		"`tools/call` (id ",
		`"text": "hello through the tap"`,
		"- ← `notifications/progress` at +",
		"**ERROR**",
		"0 requests without a response",
		"Response after ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	if strings.Contains(md, "sekrit") {
		t.Error("the transcript holds a redacted secret")
	}
	golden := filepath.Join("testdata", "session.md")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if md != string(want) {
		t.Errorf("the transcript differs from %s (go test -update rewrites it):\n%s", golden, md)
	}
}
