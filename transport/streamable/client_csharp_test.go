package streamable

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// clientCapture is the layout of the Streamable HTTP wire captures (package testkit): HTTP
// exchanges recorded between a real client and server.
type clientCapture struct {
	Exchanges []clientExchange `json:"exchanges"`
}

type clientExchange struct {
	Note    string `json:"note"`
	Request struct {
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status   int               `json:"status"`
		Headers  map[string]string `json:"headers"`
		BodyText string            `json:"body_text"`
	} `json:"response"`
}

func loadClientCapture(t *testing.T, name string) clientCapture {
	t.Helper()
	var c clientCapture
	testkit.LoadWireCapture(t, name, &c)
	if len(c.Exchanges) == 0 {
		t.Fatalf("%s holds no exchanges", name)
	}
	return c
}

// clientReplayer answers each request with the recorded response of the first
// unused exchange with the same HTTP method, JSON-RPC method and tool name. The
// recorded request id and progress token in the response are replaced by the ones
// the client actually sent.
type clientReplayer struct {
	t    *testing.T
	mu   sync.Mutex
	ex   []clientExchange
	used []bool
	gets chan struct{}
}

func (p *clientReplayer) serve(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	i, rec, ok := p.match(r.Method, msg)
	if !ok {
		if r.Method != http.MethodDelete {
			p.t.Errorf("no recorded exchange for %s %+v", r.Method, msg)
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	for k, v := range p.ex[i].Response.Headers {
		switch k {
		case "Transfer-Encoding", "Content-Length", "Content-Encoding":
		default:
			w.Header().Set(k, v)
		}
	}
	w.WriteHeader(p.ex[i].Response.Status)
	_, _ = w.Write([]byte(p.rewrite(p.ex[i].Response.BodyText, rec, msg)))
	if r.Method == http.MethodGet {
		p.gets <- struct{}{}
	}
}

func (p *clientReplayer) match(method string, msg *jsonrpc.Message) (int, *jsonrpc.Message, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, e := range p.ex {
		if p.used[i] || e.Request.Method != method {
			continue
		}
		var rec *jsonrpc.Message
		if method == http.MethodPost {
			var err error
			if rec, err = jsonrpc.Decode(e.Request.Body); err != nil || msg == nil || rec.Method != msg.Method ||
				clientToolName(rec.Params) != clientToolName(msg.Params) {
				continue
			}
		}
		p.used[i] = true
		return i, rec, true
	}
	return 0, nil, false
}

func (p *clientReplayer) unused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i, u := range p.used {
		if !u {
			out = append(out, p.ex[i].Note)
		}
	}
	return out
}

func clientToolName(params json.RawMessage) string {
	var v struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(params, &v)
	return v.Name
}

func clientProgressToken(params json.RawMessage) json.RawMessage {
	var v struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &v)
	return v.Meta.Token
}

// rewrite puts the live request's id and progress token into a recorded SSE body.
func (p *clientReplayer) rewrite(body string, rec, live *jsonrpc.Message) string {
	if rec == nil || live == nil {
		return body
	}
	recID, liveID := string(rec.ID.AppendJSON(nil)), live.ID.AppendJSON(nil)
	liveToken := clientProgressToken(live.Params)
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			p.t.Fatalf("recorded data %q: %v", data, err)
		}
		if rec.IsRequest() && string(m["id"]) == recID {
			m["id"] = liveID
		}
		if string(m["method"]) == `"notifications/progress"` {
			var params map[string]json.RawMessage
			_ = json.Unmarshal(m["params"], &params)
			params["progressToken"] = liveToken
			m["params"], _ = json.Marshal(params)
		}
		out, _ := json.Marshal(m)
		lines[i] = "data: " + string(out)
	}
	return strings.Join(lines, "\n")
}

// The whole recorded conversation with the C# server, driven by the mcp client:
// SSE answers to every request, an SSE body (repeating the initialize response) for
// notifications/initialized, GET refused with 405, progress before a result, a tool
// error result and a JSON-RPC error.
func TestClientReplaysCSharpServer(t *testing.T) {
	ctx := testkit.Context(t)
	capt := loadClientCapture(t, testkit.CaptureCSharpStreamableHTTP)
	rp := &clientReplayer{t: t, ex: capt.Exchanges, used: make([]bool, len(capt.Exchanges)), gets: make(chan struct{}, 10)}
	f := newClientFake(t, rp.serve)

	sink := &clientLogSink{}
	logger := slog.New(sink)
	conn := clientDial(t, f.URL, &ClientOptions{Logger: logger, ReconnectDelay: time.Millisecond, MaxReconnectDelay: time.Millisecond})
	cs, err := mcp.NewClient(protocol.Implementation{Name: "LINQPad.ScriptHost", Version: "1.0.0.0"}, &mcp.ClientOptions{Logger: logger, ProtocolVersion: protocol.LatestLegacy}).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.ProtocolVersion(); v != "2025-06-18" {
		t.Fatalf("negotiated %q", v)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "echo,test_throw,count,echo_ip" {
		t.Fatalf("tools %s", got)
	}

	res, err := cs.CallTool(ctx, "echo", map[string]any{"message": ".NET is awesome!"})
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "hello .NET is awesome!" {
		t.Fatalf("echo: %+v, %v", res, err)
	}

	var progress []string
	res, err = cs.CallTool(ctx, "count", map[string]any{"n": 5},
		mcp.WithProgress(func(p *protocol.ProgressParams) {
			progress = append(progress, fmt.Sprintf("%g/%g %s", p.Progress, p.Total, p.Message))
		}))
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "5" {
		t.Fatalf("count: %+v, %v", res, err)
	}
	want := "0/5 Step 0 of 5|1/5 Step 1 of 5|2/5 Step 2 of 5|3/5 Step 3 of 5|4/5 Step 4 of 5"
	if got := strings.Join(progress, "|"); got != want {
		t.Fatalf("progress %q, want %q", got, want)
	}

	res, err = cs.CallTool(ctx, "test_throw", nil)
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "test_throw") {
		t.Fatalf("test_throw: %+v, %v", res, err)
	}

	_, err = cs.CallTool(ctx, "not-existing-tool", nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "not-existing-tool") {
		t.Fatalf("unknown tool: %v, want -32602", err)
	}

	select {
	case <-rp.gets:
	case <-ctx.Done():
		t.Fatal("the client never asked for the GET stream")
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	if left := rp.unused(); len(left) != 0 {
		t.Errorf("exchanges never replayed: %q", left)
	}
	if n := len(f.requests(http.MethodGet)); n != 1 {
		t.Errorf("%d GETs: a 405 must not be retried", n)
	}
	session := capt.Exchanges[0].Response.Headers["Mcp-Session-Id"]
	for i, r := range f.requests("") {
		if i == 0 || r.Method == http.MethodDelete {
			continue
		}
		if r.Header.Get(HeaderSessionID) != session || r.Header.Get("MCP-Protocol-Version") != "2025-06-18" {
			t.Errorf("request %d (%s %s) lacks the session headers: %v", i, r.Method, clientMethodOf(r), r.Header)
		}
	}
	// The repeated initialize response was dropped by the transport, so the JSON-RPC
	// layer never saw a response to no pending call.
	if w := sink.messages(); w != "" {
		t.Errorf("warnings logged: %s", w)
	}
}

func clientMethodOf(r clientSeen) string {
	if r.Msg == nil {
		return ""
	}
	return r.Msg.Method
}
