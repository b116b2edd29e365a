package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// httpTSReport is the JSON object http_ts_client.mjs prints: the steps of
// ts-client.mjs's report, and every HTTP exchange the SDK made.
type httpTSReport struct {
	tsReport
	Mode            string         `json:"mode"`
	Exchanges       []httpExchange `json:"exchanges"`
	TransportErrors []tsError      `json:"transportErrors"`
}

// tsInitialize is the value of the script's initialize step.
type tsInitialize struct {
	AskedVersion    string                  `json:"askedVersion"`
	ProtocolVersion string                  `json:"protocolVersion"`
	ServerInfo      protocol.Implementation `json:"serverInfo"`
	SessionID       *string                 `json:"sessionId"`
}

// tsCount is the value of the script's count step.
type tsCount struct {
	tsToolResult
	Order []string `json:"order"`
}

// runHTTPTSClient runs http_ts_client.mjs in mode ("streamable" or "sse") against url,
// asking for protocol version version (empty: the SDK's newest), and returns its
// report. The node process is bounded by testTimeout and its
// process group is killed at cleanup. On failure the exchanges are logged.
func runHTTPTSClient(t *testing.T, node, mode, url, version string) *httpTSReport {
	t.Helper()
	var r httpTSReport
	stderr, waitErr := runNodeReport(t, []string{"MCP_INTEROP_PROTOCOL_VERSION=" + version}, &r, node, "http_ts_client.mjs", mode, url)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr of node:\n%s", stderr)
			for i := range r.Exchanges {
				e := &r.Exchanges[i]
				t.Logf("exchange %d: %s\n\trequest headers %v\n\tresponse headers %v\n\tresponse body %q",
					i, e, e.RequestHeaders, e.ResponseHeaders, clip([]byte(e.ResponseBody), 4000))
			}
			t.Logf("transport errors: %+v", r.TransportErrors)
		}
	})
	if waitErr != nil || len(r.Unexpected) > 0 {
		t.Errorf("http_ts_client.mjs: exit %v; steps that failed unexpectedly: %v", waitErr, r.Unexpected)
		for _, name := range r.Unexpected {
			t.Errorf("  %s: %+v %s", name, r.Steps[name].Error, r.Steps[name].UnexpectedValue)
		}
	}
	if r.CloseError != nil {
		t.Errorf("closing the TypeScript client: %+v", r.CloseError)
	}
	return &r
}

// httpConfig is one way of configuring mcpkit's Streamable HTTP handler, with what
// the TypeScript client must see.
type httpConfig struct {
	name string
	opts streamable.HandlerOptions
	// version is the protocol version the client asks for; empty means the SDK's
	// newest (2025-11-25).
	version string
	// echoType and countType are the media types of the answers to the POSTs of the
	// echo call (and initialize: no progress) and the count call (progress before
	// the result).
	echoType, countType string
	// progressOnGET: the count call's progress travels on the GET stream, not on the
	// POST's answer (ResponseAlwaysJSON: a JSON body carries only the response).
	progressOnGET bool
}

const (
	mediaJSON = "application/json"
	mediaSSE  = "text/event-stream"
)

// TestTypeScriptHTTPClientAgainstMcpkit drives mcpkit's HTTP handlers, serving the
// demo server in-process on 127.0.0.1, with the official TypeScript SDK client
// (http_ts_client.mjs): StreamableHTTPClientTransport against streamable.Handler in
// four configurations, and SSEClientTransport against legacysse.Handler.
//
// For each it checks what the SDK reports (negotiated version, session id present iff
// stateful, tools/list, echo, count with its progress before its result, test_throw
// as an isError result, an unknown tool as JSON-RPC error -32602, demo://readme) and
// what went over the wire: the media type of every answer (JSON or an event stream,
// as the response mode says), which stream carried the progress notifications, the
// session and protocol-version headers, the status of every request, and for
// stateful sessions that DELETE ends the session (a later POST with its id gets 404).
func TestTypeScriptHTTPClientAgainstMcpkit(t *testing.T) {
	node := requirePeers(t)
	configs := []httpConfig{
		{name: "stateful auto", opts: streamable.HandlerOptions{ResponseMode: streamable.ResponseAuto},
			echoType: mediaJSON, countType: mediaSSE},
		{name: "stateful always-json", opts: streamable.HandlerOptions{ResponseMode: streamable.ResponseAlwaysJSON},
			echoType: mediaJSON, countType: mediaJSON, progressOnGET: true},
		{name: "stateful always-sse", opts: streamable.HandlerOptions{ResponseMode: streamable.ResponseAlwaysSSE},
			echoType: mediaSSE, countType: mediaSSE},
		{name: "sessionless auto", opts: streamable.HandlerOptions{Sessionless: true},
			echoType: mediaJSON, countType: mediaSSE},
		// The older versions that have Streamable HTTP: no priming events.
		{name: "stateful auto 2025-06-18", opts: streamable.HandlerOptions{ResponseMode: streamable.ResponseAuto}, version: "2025-06-18",
			echoType: mediaJSON, countType: mediaSSE},
		{name: "stateful auto 2025-03-26", opts: streamable.HandlerOptions{ResponseMode: streamable.ResponseAuto}, version: "2025-03-26",
			echoType: mediaJSON, countType: mediaSSE},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			base, _ := serveDemoHTTP(t, cfg.opts)
			r := runHTTPTSClient(t, node, "streamable", base+"/mcp", cfg.version)
			checkDemoSteps(t, r, cfg.version)
			checkStreamableExchanges(t, r, &cfg)
		})
	}
	t.Run("legacy sse", func(t *testing.T) {
		t.Parallel()
		base, _ := serveDemoHTTP(t, streamable.HandlerOptions{})
		r := runHTTPTSClient(t, node, "sse", base+"/sse", "")
		checkDemoSteps(t, r, "")
		checkLegacyExchanges(t, r)
	})
}

// checkDemoSteps checks what the SDK reported of the steps every mode runs.
func checkDemoSteps(t *testing.T, r *httpTSReport, version string) {
	t.Helper()
	var init tsInitialize
	if r.value(t, "initialize", &init) {
		if version != "" && init.AskedVersion != version {
			t.Errorf("initialize: the script asked for %q, want %q", init.AskedVersion, version)
		}
		if init.AskedVersion == "" || init.ProtocolVersion != init.AskedVersion {
			t.Errorf("initialize: asked for %q, negotiated %q; mcpkit supports the SDK's newest version", init.AskedVersion, init.ProtocolVersion)
		}
		if init.ServerInfo.Name != "mcpkit-demo" {
			t.Errorf("initialize: serverInfo.name = %q, want mcpkit-demo", init.ServerInfo.Name)
		}
	}
	var list struct {
		Names []string `json:"names"`
	}
	if r.value(t, "listTools", &list) {
		requireAll(t, "tools/list", list.Names, "echo", "count", "test_throw", "echo_ip", "add")
	}
	var echo tsToolResult
	if r.value(t, "echo", &echo) && (echo.Text != "hello hi" || echo.IsError) {
		t.Errorf("echo {message: hi} = %+v, want text \"hello hi\"", echo)
	}
	var count tsCount
	late, others := splitLateProgress(t, r.TransportErrors)
	if r.value(t, "count", &count) {
		// The SDK settles a response at once but hands a notification to its
		// handler in a microtask: progress read in the same chunk as the result
		// (under load, events written apart are read together) is dropped and
		// reported as "unknown token" (late). Delivered + late must be [0 1 2] in
		// order, and the wire must carry all three before the result.
		var values []float64
		for _, p := range slices.Concat(count.Progress, late) {
			values = append(values, p.Progress)
			if p.Total != 3 || p.Message == "" {
				t.Errorf("count progress %+v: want total 3 and a message", p)
			}
		}
		if !reflect.DeepEqual(values, []float64{0, 1, 2}) {
			t.Errorf("count {n: 3}: progress values %v (the last %d dropped by the SDK as late), want [0 1 2]", values, len(late))
		}
		var want []string
		for _, p := range count.Progress {
			want = append(want, fmt.Sprintf("progress %g", p.Progress))
		}
		if want = append(want, "result"); !reflect.DeepEqual(count.Order, want) {
			t.Errorf("count {n: 3}: the client saw %q, want %q (every delivered progress before the result)", count.Order, want)
		}
		if len(late) > 0 {
			checkProgressBeforeResult(t, r.Exchanges)
		}
		if count.Text != "3" || count.IsError {
			t.Errorf("count {n: 3} = %+v, want text \"3\"", count.tsToolResult)
		}
	}
	var thrown tsToolResult
	if r.value(t, "testThrow", &thrown) && (!thrown.IsError || thrown.Text == "") {
		t.Errorf("test_throw = %+v, want an isError result with a message", thrown)
	}
	if code, _ := r.errorCode(t, "unknownTool"); code != -32602 {
		t.Errorf("calling an unknown tool: code %d, want -32602 (invalid params)", code)
	}
	var readme []protocol.ResourceContents
	if r.value(t, "readReadme", &readme) {
		if len(readme) != 1 || readme[0].URI != "demo://readme" || readme[0].MimeType != "text/plain" ||
			readme[0].Text != "mcpkit demo server: every MCP feature in one place." {
			t.Errorf("resources/read demo://readme = %+v", readme)
		}
	}
	if len(others) > 0 {
		t.Errorf("the SDK's transport reported errors: %+v", others)
	}
}

// lateProgressError is how the SDK reports a progress notification it
// received after the response of its request; the notification follows.
const lateProgressError = "Received a progress notification for an unknown token: "

// splitLateProgress returns the progress the SDK reported as late (in the
// order reported) and every other error.
func splitLateProgress(t *testing.T, errs []tsError) (late []tsProgress, others []tsError) {
	t.Helper()
	for _, e := range errs {
		body, ok := strings.CutPrefix(e.Message, lateProgressError)
		if !ok {
			others = append(others, e)
			continue
		}
		var n struct {
			Params tsProgress `json:"params"`
		}
		if err := json.Unmarshal([]byte(body), &n); err != nil {
			t.Errorf("the SDK's late-progress report does not end in a notification: %q: %v", e.Message, err)
			continue
		}
		late = append(late, n.Params)
	}
	return late, others
}

// checkProgressBeforeResult checks on the wire that the count call's three
// progress notifications came before its result, in one response body (the
// POST's SSE stream, or the HTTP+SSE GET stream).
func checkProgressBeforeResult(t *testing.T, exchanges []httpExchange) {
	t.Helper()
	result := `"result":{"content":[{"type":"text","text":"3"}]`
	for _, e := range exchanges {
		end := strings.Index(e.ResponseBody, result)
		if end < 0 {
			continue
		}
		at := 0
		for i := range 3 {
			j := strings.Index(e.ResponseBody[at:end], fmt.Sprintf(`"progress":%d,"total":3`, i))
			if j < 0 {
				t.Errorf("on the wire, progress %d of the count call is not before its result (%s)", i, e.String())
				return
			}
			at += j
		}
		return
	}
	t.Errorf("no response body carries the count call's result %s", result)
}

// toolCallExchange returns the POST that called the named tool.
func toolCallExchange(r *httpTSReport, tool string) (*httpExchange, rpcMessage) {
	for i := range r.Exchanges {
		e := &r.Exchanges[i]
		if m, ok := e.request(); ok && e.Method == "POST" && m.Method == "tools/call" && m.Params.Name == tool {
			return e, m
		}
	}
	return nil, rpcMessage{}
}

// progressFor returns the values of the progress notifications for token in msgs,
// and whether the response to id came after all of them.
func progressFor(msgs []rpcMessage, token, id json.RawMessage) (values []float64, responseLast bool) {
	responseAt := -1
	lastProgress := -1
	for i, m := range msgs {
		switch {
		case m.Method == "notifications/progress" && bytes.Equal(m.Params.ProgressToken, token):
			values = append(values, m.Params.Progress)
			lastProgress = i
		case m.isResponse() && bytes.Equal(m.ID, id):
			responseAt = i
		}
	}
	return values, responseAt > lastProgress
}

// checkStreamableExchanges checks the HTTP exchanges of the Streamable HTTP modes.
func checkStreamableExchanges(t *testing.T, r *httpTSReport, cfg *httpConfig) {
	t.Helper()
	stateful := !cfg.opts.Sessionless
	var init tsInitialize
	if !r.value(t, "initialize", &init) {
		return
	}
	sessionID := ""
	if init.SessionID != nil {
		sessionID = *init.SessionID
	}
	if stateful != (sessionID != "") {
		t.Errorf("session id %q; want one iff the handler is stateful (%v)", sessionID, stateful)
	}

	// Every exchange: status, session and version headers.
	var sawInit, sawGet, sawDelete bool
	for i := range r.Exchanges {
		e := &r.Exchanges[i]
		if e.FetchError != "" {
			t.Errorf("%s: the request failed: %s", e, e.FetchError)
			continue
		}
		if e.Path != "/mcp" {
			t.Errorf("%s: a request off the MCP endpoint", e)
		}
		if got := e.ResponseHeaders["mcp-session-id"]; got != "" && got != sessionID {
			t.Errorf("%s: response Mcp-Session-Id %q, want %q", e, got, sessionID)
		}
		if stateful && e.contentType() == mediaSSE {
			checkPriming(t, e, protocol.Compare(init.ProtocolVersion, "2025-11-25") >= 0)
		}
		m, hasBody := e.request()
		if hasBody && m.Method == "initialize" {
			sawInit = true
			if e.Status != 200 || e.contentType() != cfg.echoType {
				t.Errorf("%s: initialize answered %d %s, want 200 %s", e, e.Status, e.contentType(), cfg.echoType)
			}
			if stateful && e.ResponseHeaders["mcp-session-id"] == "" {
				t.Errorf("%s: a stateful initialize response without Mcp-Session-Id", e)
			}
			continue
		}
		if got := e.RequestHeaders["mcp-session-id"]; got != sessionID {
			t.Errorf("%s: the SDK sent Mcp-Session-Id %q, want %q", e, got, sessionID)
		}
		if got := e.RequestHeaders["mcp-protocol-version"]; got != init.ProtocolVersion {
			t.Errorf("%s: the SDK sent MCP-Protocol-Version %q, want %q", e, got, init.ProtocolVersion)
		}
		want := 200
		switch {
		case e.Method == "GET":
			sawGet = true
			if !stateful {
				want = 405 // no GET stream without a session
			} else if e.contentType() != mediaSSE {
				t.Errorf("%s: the GET stream answered as %q", e, e.contentType())
			}
		case e.Method == "DELETE":
			sawDelete = true
			if e.Status == 204 {
				want = 204
			}
		case hasBody && m.ID == nil:
			want = 202 // a notification
		case hasBody && m.Method != "":
			if ct := e.contentType(); ct != mediaJSON && ct != mediaSSE {
				t.Errorf("%s: a request answered as %q", e, ct)
			}
		}
		if e.Status != want {
			t.Errorf("%s: status %d, want %d", e, e.Status, want)
		}
	}
	if !sawInit || !sawGet {
		t.Errorf("the SDK made no initialize POST (%v) or no GET (%v)", sawInit, sawGet)
	}
	if sawDelete != stateful {
		t.Errorf("the SDK sent DELETE: %v; want it iff there is a session (%v)", sawDelete, stateful)
	}

	var get struct {
		Status *int `json:"status"`
	}
	if r.value(t, "getStream", &get) {
		want := 200
		if !stateful {
			want = 405
		}
		if get.Status == nil || *get.Status != want {
			t.Errorf("the SDK's GET stream was answered %v, want %d", get.Status, want)
		}
	}

	if e, _ := toolCallExchange(r, "echo"); e == nil {
		t.Error("no POST called echo")
	} else if e.contentType() != cfg.echoType {
		t.Errorf("%s: echo (no progress) answered as %q, want %q", e, e.contentType(), cfg.echoType)
	}

	// Where the count call's progress travelled.
	e, req := toolCallExchange(r, "count")
	switch {
	case e == nil:
		t.Error("no POST called count")
	case req.Params.Meta.ProgressToken == nil:
		t.Errorf("%s: the SDK asked for no progress", e)
	case e.contentType() != cfg.countType:
		t.Errorf("%s: count (with progress) answered as %q, want %q", e, e.contentType(), cfg.countType)
	case cfg.progressOnGET:
		// A JSON body carries the response alone; the handler documents that what a
		// tool sends before it goes to the session's GET stream.
		if msgs := e.messages(t); len(msgs) != 1 || !msgs[0].isResponse() || !bytes.Equal(msgs[0].ID, req.ID) {
			t.Errorf("%s: the JSON body must be the response alone: %s", e, e.ResponseBody)
		}
		var onGet []float64
		for i := range r.Exchanges {
			if g := &r.Exchanges[i]; g.Method == "GET" {
				v, _ := progressFor(g.messages(t), req.Params.Meta.ProgressToken, req.ID)
				onGet = append(onGet, v...)
			}
		}
		if !reflect.DeepEqual(onGet, []float64{0, 1, 2}) {
			t.Errorf("progress on the GET stream: %v, want [0 1 2]", onGet)
		}
	default:
		values, last := progressFor(e.messages(t), req.Params.Meta.ProgressToken, req.ID)
		if !reflect.DeepEqual(values, []float64{0, 1, 2}) || !last {
			t.Errorf("%s: the event stream carried progress %v (response last: %v), want [0 1 2] then the response:\n%s",
				e, values, last, e.ResponseBody)
		}
	}

	checkTerminated(t, r, stateful)
}

// checkTerminated checks the script's last steps: terminateSession (DELETE)
// leaves the SDK without a session id, and a POST naming the ended session
// gets 404 (a stateful session; a sessionless one has no id to end).
func checkTerminated(t *testing.T, r *httpTSReport, stateful bool) {
	t.Helper()
	if status, body, ok := terminatedStatus(t, r, stateful); ok && status != 404 {
		t.Errorf("a POST with the id of the session DELETE ended got %d %s, want 404", status, body)
	}
}

// terminatedStatus checks that the SDK let go of its session after
// terminateSession and returns what the script's POST naming the ended
// session got; ok is false when there is nothing to check (sessionless, or a
// failure already reported).
func terminatedStatus(t *testing.T, r *httpTSReport, stateful bool) (status int, body string, ok bool) {
	t.Helper()
	var term struct {
		SessionIDBefore *string `json:"sessionIdBefore"`
		SessionIDAfter  *string `json:"sessionIdAfter"`
	}
	if r.value(t, "terminate", &term) && term.SessionIDAfter != nil {
		t.Errorf("the SDK still holds session %q after terminateSession", *term.SessionIDAfter)
	}
	var after struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	if !stateful {
		if _, ok := r.Steps["afterTerminate"]; ok {
			t.Error("a sessionless session had an id to terminate")
		}
		return 0, "", false
	}
	if _, ok := r.Steps["afterTerminate"]; !ok {
		t.Error("the script did not check the session after terminating it")
		return 0, "", false
	}
	if !r.value(t, "afterTerminate", &after) {
		return 0, "", false
	}
	return after.Status, after.Body, true
}

// checkPriming checks how an event stream of a stateful session starts: with a
// priming event (an id, no data) and a retry field for clients of 2025-11-25 and
// later, so that they can resume before the first message; with a message for older
// clients, which would not expect an event without data.
func checkPriming(t *testing.T, e *httpExchange, want bool) {
	t.Helper()
	dec := sse.NewDecoder(strings.NewReader(e.ResponseBody))
	first, err := dec.Next()
	if errors.Is(err, io.EOF) && !want {
		return // a GET stream on which nothing was sent yet
	}
	if err != nil {
		t.Errorf("%s: no first event (%v) in %q", e, err, clip([]byte(e.ResponseBody), 200))
		return
	}
	_, hasRetry := dec.Retry()
	primed := first.ID != "" && len(first.Data) == 0
	if primed != want || hasRetry != want {
		t.Errorf("%s: the stream starts with a priming event: %v, with a retry field: %v; want %v for this version:\n%q",
			e, primed, hasRetry, want, clip([]byte(e.ResponseBody), 200))
	}
}

// checkLegacyExchanges checks the HTTP exchanges of the HTTP+SSE transport: one GET
// stream, whose endpoint event names the URL every POST goes to; each POST accepted
// with 202; every response on the stream, count's after its progress.
func checkLegacyExchanges(t *testing.T, r *httpTSReport) {
	t.Helper()
	var init tsInitialize
	if r.value(t, "initialize", &init) && init.SessionID != nil {
		t.Errorf("HTTP+SSE has no Mcp-Session-Id, but the SDK reports %q", *init.SessionID)
	}
	if len(r.Exchanges) == 0 {
		t.Fatal("no HTTP exchange recorded")
	}
	stream := &r.Exchanges[0]
	if stream.Method != "GET" || stream.Path != "/sse" || stream.Status != 200 || stream.contentType() != mediaSSE {
		t.Fatalf("first exchange %s, want GET /sse answered 200 %s", stream, mediaSSE)
	}
	first, err := sse.NewDecoder(strings.NewReader(stream.ResponseBody)).Next()
	if err != nil && !errors.Is(err, io.EOF) || first.Type != "endpoint" || !strings.HasPrefix(string(first.Data), "/messages?sessionId=") {
		t.Fatalf("the stream's first event is %q %q (%v), want the endpoint /messages?sessionId=…", first.Type, first.Data, err)
	}
	endpoint := string(first.Data)

	onStream := stream.messages(t)
	answers := map[string]int{}
	for _, m := range onStream {
		if m.isResponse() {
			answers[string(m.ID)]++
		}
	}
	for i := range r.Exchanges[1:] {
		e := &r.Exchanges[i+1]
		if e.Method != "POST" || e.Path != endpoint || e.Status != 202 {
			t.Errorf("%s: want a POST to %s accepted with 202", e, endpoint)
		}
		if m, ok := e.request(); ok && m.Method != "" && m.ID != nil && answers[string(m.ID)] != 1 {
			t.Errorf("%s: its request was answered %d times on the stream, want once", e, answers[string(m.ID)])
		}
	}
	if e, req := toolCallExchange(r, "count"); e == nil {
		t.Error("no POST called count")
	} else if values, last := progressFor(onStream, req.Params.Meta.ProgressToken, req.ID); !reflect.DeepEqual(values, []float64{0, 1, 2}) || !last {
		t.Errorf("the stream carried count's progress %v (response last: %v), want [0 1 2] then the response", values, last)
	}
	if _, ok := r.Steps["terminate"]; ok {
		t.Error("HTTP+SSE has no session to terminate")
	}
}
