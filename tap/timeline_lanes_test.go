package tap

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// checkHTTPSSELane checks the timeline of a 2024-11-05 HTTP+SSE session recorded
// through the tap (TestHTTPTapLegacySSEEndToEnd): one lane, the GET /sse stream
// (standalone, the session's only stream) and the POSTs to the endpoint, each
// carrying its request.
func checkHTTPSSELane(t *testing.T, recs []*capture.Record, session string) {
	t.Helper()
	rep := timeline.Build(recs, timeline.Options{}).Report(timeline.ReportOptions{})
	if len(rep.Lanes) != 1 {
		t.Fatalf("lanes = %+v", rep.Lanes)
	}
	l := rep.Lanes[0]
	if l.Session != session || l.Transport != capture.TransportHTTPSSE || l.Streams != 1 || l.Resumptions != 0 {
		t.Errorf("lane %q %s: %d streams, %d resumptions; want session %q", l.Session, l.Transport, l.Streams, l.Resumptions, session)
	}
	get := l.Exchanges[0]
	if get.Method != http.MethodGet || get.Path != "/sse" || !get.Standalone || get.Status != 200 || get.End == "" || get.Messages == 0 {
		t.Errorf("the SSE stream = %+v", get)
	}
	posts, requests := 0, 0
	for _, x := range l.Exchanges[1:] {
		if x.Method != http.MethodPost || !strings.HasPrefix(x.Path, "/messages") || x.Stream || x.Status != http.StatusAccepted {
			t.Errorf("exchange %+v: want a POST to the endpoint answered 202", x)
		}
		posts++
		requests += x.Requests
	}
	// initialize, tools/list, two tools/call: the responses come on the stream.
	if posts < 5 || requests != 4 || get.Messages < 4+3 {
		t.Errorf("%d POSTs carrying %d requests; the stream carried %d messages", posts, requests, get.Messages)
	}
	if len(rep.Failures) != 0 {
		t.Errorf("failures = %+v", rep.Failures)
	}
}

// TestTimelineLanesResumption: a client drops a POST's SSE reply after its first
// event and resumes it with a GET carrying Last-Event-ID; the session's lane shows
// the cut POST stream with its last event id and the GET as a resumption from it.
func TestTimelineLanesResumption(t *testing.T) {
	up := demoUpstream(t)
	capt := newTestCapture(t)
	addr, tp := startTap(t, up+"/mcp", capt, HTTPOptions{})
	ctx := testkit.Context(t)
	do := func(method, sid, lastID, body string) *http.Response {
		t.Helper()
		return rawMCP(t, ctx, addr, method, sid, lastID, body)
	}
	sid := openRawSession(t, ctx, addr)

	call := do(http.MethodPost, sid, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":3},"_meta":{"progressToken":"p"}}}`)
	firstID := ""
	sc := bufio.NewScanner(call.Body)
	for firstID == "" && sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id:"); ok {
			firstID = strings.TrimSpace(id)
		}
	}
	_ = call.Body.Close() // the client drops the stream after one event
	if firstID == "" {
		t.Fatalf("the SSE reply carried no event id (%s)", call.Header.Get("Content-Type"))
	}

	resumed := do(http.MethodGet, sid, firstID, "")
	answered := false
	sc = bufio.NewScanner(resumed.Body)
	for !answered && sc.Scan() {
		answered = strings.HasPrefix(sc.Text(), "data:") && strings.Contains(sc.Text(), `"id":1`) && strings.Contains(sc.Text(), `"result"`)
	}
	_ = resumed.Body.Close()
	if resumed.StatusCode != http.StatusOK || !answered {
		t.Fatalf("the resumed stream (status %d) did not deliver the response", resumed.StatusCode)
	}
	_ = tp.Close()

	rep := timeline.Build(capt.records(t), timeline.Options{}).Report(timeline.ReportOptions{})
	var lane *timeline.Lane
	for i := range rep.Lanes {
		if rep.Lanes[i].Session == sid {
			lane = &rep.Lanes[i]
		}
	}
	if lane == nil || lane.Resumptions != 1 {
		t.Fatalf("lanes = %+v", rep.Lanes)
	}
	var post, get *timeline.LaneExchange
	for i := range lane.Exchanges {
		x := &lane.Exchanges[i]
		switch {
		case x.Method == http.MethodPost && x.Requests == 1 && x.Stream:
			post = x
		case x.Method == http.MethodGet:
			get = x
		}
	}
	if post == nil || post.LastEventID == "" || post.End == "" || post.Events < 1 {
		t.Errorf("the dropped POST stream = %+v", post)
	}
	if get == nil || get.Resumed != firstID || !get.Stream || get.Status != http.StatusOK || get.Messages == 0 {
		t.Errorf("the resuming GET = %+v (resumed from %q)", get, firstID)
	}
}

// rawMCP sends one Streamable HTTP request to the tap at addr, as a 2025-11-25
// client would, with a session id and a Last-Event-ID when given.
func rawMCP(t *testing.T, ctx context.Context, addr, method, sid, lastID, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, "http://"+addr+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// openRawSession initializes a session through the tap at addr and returns its id.
func openRawSession(t *testing.T, ctx context.Context, addr string) string {
	t.Helper()
	init := rawMCP(t, ctx, addr, http.MethodPost, "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := init.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, init.Body)
	_ = init.Body.Close()
	if sid == "" {
		t.Fatal("no session id")
	}
	_ = rawMCP(t, ctx, addr, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	return sid
}
