package tap

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// TestTimelineOfARealSession analyses a legacy session recorded through the HTTP
// tap: every request pairs, progress groups under its call, and the session's
// lane holds its POSTs and the DELETE.
func TestTimelineOfARealSession(t *testing.T) {
	up := demoUpstream(t)
	capt := newTestCapture(t)
	addr, tp := startTap(t, up+"/mcp", capt, HTTPOptions{})
	conn, err := streamable.NewClientConn(testkit.Context(t), "http://"+addr+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, conn, "2025-11-25")
	_ = tp.Close()
	recs := capt.records(t)
	rep := timeline.Build(recs, timeline.Options{Schema: true}).Report(timeline.ReportOptions{})
	s := timeline.Build(recs, timeline.Options{}).Snapshot()
	var count *timeline.Entry
	for _, e := range s.Entries {
		if e.Kind == timeline.KindRequest && e.State != timeline.StateAnswered {
			t.Errorf("entry %s %s: %s", e.ID, e.Method, e.State)
		}
		if e.Method == "tools/call" && strings.Contains(string(e.Message.Params), `"count"`) {
			count = e
		}
	}
	if count == nil || len(count.Notifications) != 3 || count.FirstProgress < 0 || count.Latency <= 0 {
		t.Fatalf("the count call = %+v", count)
	}
	if len(rep.Lanes) != 1 || rep.Lanes[0].Session == "" {
		t.Fatalf("lanes = %+v", rep.Lanes)
	}
	var methods []string
	for _, x := range rep.Lanes[0].Exchanges {
		methods = append(methods, x.Method)
		if x.Exchange == count.Exchange && !x.Stream {
			t.Errorf("the count call's exchange is not an SSE stream: %+v", x)
		}
	}
	if methods[0] != http.MethodPost || methods[len(methods)-1] != http.MethodDelete {
		t.Errorf("lane exchanges = %v", methods)
	}
	if rep.Progress.Count != 1 || len(rep.Failures) != 0 {
		t.Errorf("progress %+v, failures %+v", rep.Progress, rep.Failures)
	}
}

// TestTimelineFlagsSessionLost: a server that forgets a session that had worked
// (a balancer sending the client to a replica without it) answers 404; the report
// names it session-lost.
func TestTimelineFlagsSessionLost(t *testing.T) {
	up := demoUpstream(t)
	var lost atomic.Bool
	front := rawProxy(t, up, func(w http.ResponseWriter, r *http.Request) bool {
		if lost.Load() && r.Header.Get("Mcp-Session-Id") != "" {
			http.Error(w, "session not found", http.StatusNotFound)
			return true
		}
		return false
	})
	capt := newTestCapture(t)
	addr, tp := startTap(t, front+"/mcp", capt, HTTPOptions{})
	ctx := testkit.Context(t)
	conn, err := streamable.NewClientConn(ctx, "http://"+addr+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connectClient(t, conn, "2025-11-25")
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	lost.Store(true)
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Fatal("tools/list on a lost session succeeded")
	}
	_ = cs.Close()
	_ = tp.Close()
	rep := timeline.Build(capt.records(t), timeline.Options{}).Report(timeline.ReportOptions{})
	f := failures(rep, timeline.FailSessionLost)
	if len(f) == 0 || f[0].Session == "" || len(f[0].Records) != 2 {
		t.Fatalf("failures = %+v", rep.Failures)
	}
	if len(failures(rep, timeline.FailUnanswered)) != 0 {
		t.Errorf("a refused request is not unanswered: %+v", rep.Failures)
	}
}

// TestTimelineFlagsStreamCut: the upstream breaks a POST's SSE reply before the
// response; the report names it stream-cut and the request unanswered.
func TestTimelineFlagsStreamCut(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, _, err := readRequest(br); err != nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		ev := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n"
		_, _ = fmt.Fprintf(c, "%x\r\n%s\r\n", len(ev), ev)
		_ = c.Close() // cut: no final chunk
	})
	capt := newTestCapture(t)
	tapAddr, tp := startTap(t, "http://"+addr+"/mcp", capt, HTTPOptions{})
	req, _ := http.NewRequestWithContext(testkit.Context(t), http.MethodPost, "http://"+tapAddr+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	_ = tp.Close()
	rep := timeline.Build(capt.records(t), timeline.Options{}).Report(timeline.ReportOptions{})
	cut := failures(rep, timeline.FailStreamCut)
	if len(cut) != 1 || !strings.Contains(cut[0].Detail, "tools/call id 1") {
		t.Fatalf("failures = %+v", rep.Failures)
	}
	if len(failures(rep, timeline.FailUnanswered)) != 1 {
		t.Errorf("failures = %+v", rep.Failures)
	}
	if x := rep.Lanes[0].Exchanges[0]; !x.Stream || x.Messages != 2 || !strings.HasPrefix(x.End, capture.EndUpstreamLost) {
		t.Errorf("lane exchange = %+v", x)
	}
}

func failures(rep *timeline.Report, name string) []timeline.Failure {
	var out []timeline.Failure
	for _, f := range rep.Failures {
		if f.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// TestTimelineFlagsSecondStreamRefused: a client opens a second standalone GET
// stream on a session that has one; the server refuses it with 409.
func TestTimelineFlagsSecondStreamRefused(t *testing.T) {
	up := demoUpstream(t)
	capt := newTestCapture(t)
	addr, tp := startTap(t, up+"/mcp", capt, HTTPOptions{})
	ctx := testkit.Context(t)
	do := func(method, sid, body string) *http.Response {
		t.Helper()
		return rawMCP(t, ctx, addr, method, sid, "", body)
	}
	sid := openRawSession(t, ctx, addr)
	first := do(http.MethodGet, sid, "")
	second := do(http.MethodGet, sid, "")
	_, _ = io.Copy(io.Discard, second.Body)
	_ = second.Body.Close()
	_ = first.Body.Close()
	if first.StatusCode != http.StatusOK || second.StatusCode != http.StatusConflict {
		t.Fatalf("GET statuses %d, %d", first.StatusCode, second.StatusCode)
	}
	_ = tp.Close()
	rep := timeline.Build(capt.records(t), timeline.Options{}).Report(timeline.ReportOptions{})
	f := failures(rep, timeline.FailSecondStreamRefused)
	if len(f) != 1 || f[0].Session != sid || len(f[0].Records) != 2 {
		t.Fatalf("failures = %+v\nlanes %+v", rep.Failures, rep.Lanes)
	}
}

// rawProxy is a reverse proxy to upstream that lets intercept answer a request
// first; stopped at cleanup.
func rawProxy(t *testing.T, upstream string, intercept func(http.ResponseWriter, *http.Request) bool) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r) {
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// connectClient connects an mcpkit client over conn.
func connectClient(t *testing.T, conn transport.Conn, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(protocol.Implementation{Name: "tap-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	cs, err := client.Connect(testkit.Context(t), conn)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
