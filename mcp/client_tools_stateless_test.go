package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// A 2026-07-28 CallTool without options (struct, map or raw arguments) is
// written by hand after the session's envelope (callToolStateless); these
// tests hold it to the general path, which a request option selects.

// callOutcome is everything a caller of CallTool, and the server, can tell
// about one call.
type callOutcome struct {
	Result *protocol.CallToolResult
	Raw    string // CallToolRaw's result
	Err    string
	Code   int64 // of a *jsonrpc.Error
	Sent   []sentRequest
}

// statelessToolAnswer is a server's answer to the k-th tools/call of one
// CallTool (k from 0).
type statelessToolAnswer struct {
	name   string
	answer func(k int) (any, *jsonrpc.Error)
}

// statelessToolAnswers are servers' answers to the k-th tools/call of one
// CallTool (k from 0), covering what a 2026-07-28 client does with them.
var statelessToolAnswers = []statelessToolAnswer{
	{"complete", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"},"trace":"t1"}}`), nil
	}},
	{"no resultType", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"isError":false}`), nil
	}},
	{"isError", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"boom"}],"isError":true,"resultType":"complete"}`), nil
	}},
	{"rich", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"caf\u00e9"}],` +
			`"structuredContent":{"n":1.5,"l":[true,null]},"resultType":"complete","_meta":{"progressToken":7,"x":{"y":[1]}}}`), nil
	}},
	{"input", func(k int) (any, *jsonrpc.Error) {
		if k == 0 {
			return json.RawMessage(`{"resultType":"input_required","requestState":"s1","inputRequests":{"e1":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`), nil
		}
		return json.RawMessage(`{"content":[{"type":"text","text":"hello ada"}],"resultType":"complete"}`), nil
	}},
	{"input forever", func(k int) (any, *jsonrpc.Error) {
		return json.RawMessage(fmt.Sprintf(`{"resultType":"input_required","requestState":"s%d","inputRequests":{"e1":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}}}`, k)), nil
	}},
	{"input unanswerable", func(k int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"resultType":"input_required","inputRequests":{"r1":{"method":"roots/list"},"x":{"method":"nothing/known"}}}`), nil
	}},
	{"rpc error", func(int) (any, *jsonrpc.Error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: no")
	}},
	{"version retried", func(k int) (any, *jsonrpc.Error) {
		if k == 0 {
			return nil, unsupported(protocol.Version20260728)
		}
		return json.RawMessage(`{"content":[],"resultType":"complete"}`), nil
	}},
	{"version refused", func(int) (any, *jsonrpc.Error) { return nil, unsupported(protocol.Version20260728) }},
	{"headers refreshed", func(k int) (any, *jsonrpc.Error) {
		if k == 0 {
			return nil, jsonrpc.NewError(protocol.CodeHeaderMismatch, "header mismatch")
		}
		return json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`), nil
	}},
	{"headers mismatched", func(int) (any, *jsonrpc.Error) {
		return nil, jsonrpc.NewError(protocol.CodeHeaderMismatch, "header mismatch")
	}},
	{"not an object", func(int) (any, *jsonrpc.Error) { return json.RawMessage(`[1]`), nil }},
	{"unknown resultType", func(int) (any, *jsonrpc.Error) { return json.RawMessage(`{"resultType":"later"}`), nil }},
	{"undecodable", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":"text","resultType":"complete"}`), nil
	}},
	// Results the fast decode reads whole, whose resultType is not complete:
	// the fast path learns it from the decode, and decodes the final result
	// afresh (isError must not carry over).
	{"read whole, unknown resultType", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"x"}],"resultType":"later"}`), nil
	}},
	{"read whole, input", func(k int) (any, *jsonrpc.Error) {
		if k == 0 {
			return json.RawMessage(`{"content":[{"type":"text","text":"wait"}],"isError":true,"resultType":"input_required"}`), nil
		}
		return json.RawMessage(`{"content":[{"type":"text","text":"done"}],"resultType":"complete"}`), nil
	}},
	// resultTypes the fast decode leaves to the scan: escaped, repeated.
	{"escaped resultType", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"x"}],"resultType":"compl\u0065te"}`), nil
	}},
	{"repeated resultType", func(int) (any, *jsonrpc.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"x"}],"resultType":"input_required","resultType":"complete"}`), nil
	}},
}

// statelessToolArgs are the arguments of CallTool the fast path takes, and
// some it refuses before sending.
var statelessToolArgs = []struct {
	name, tool string
	args       any
}{
	{"struct", "regional", struct {
		Region string `json:"region"`
		Note   string `json:"note,omitempty"`
	}{"Zürich", "<a & b>"}},
	{"map", "regional", map[string]any{"region": "Genève", "limits": map[string]any{"max": 42}, "note": "x\u2028y"}},
	{"raw", "regional", json.RawMessage(`{"region":"Bern","limits":{"max":7}}`)},
	{"nil", "plain", nil},
	{"empty map", "plain", map[string]any{}},
	{"name to escape", "p\"l<a>n\u00e9", map[string]any{"q": 1}},
	{"unencodable map", "plain", map[string]any{"f": func() {}}},
	{"unmirrorable", "regional", map[string]any{"region": map[string]any{}}},
	{"not an object", "plain", json.RawMessage(`[1]`)},
}

// statelessCallOutcome connects a 2026-07-28 client to a fake server answering
// tools/call with answer, lists the tools (headerTools: "regional" mirrors
// arguments into headers) and calls tool with args, with opts.
func statelessCallOutcome(t *testing.T, answer func(k int) (any, *jsonrpc.Error), tool string, args any, opts ...mcp.RequestOption) callOutcome {
	t.Helper()
	return statelessOutcome(t, answer, func(ctx context.Context, cs *mcp.ClientSession) (*protocol.CallToolResult, json.RawMessage, error) {
		res, err := cs.CallTool(ctx, tool, args, opts...)
		return res, nil, err
	})
}

// statelessOutcome is statelessCallOutcome with the call made by call.
func statelessOutcome(t *testing.T, answer func(k int) (any, *jsonrpc.Error),
	call func(context.Context, *mcp.ClientSession) (*protocol.CallToolResult, json.RawMessage, error)) callOutcome {
	t.Helper()
	var mu sync.Mutex
	k := 0
	log := &headerConn{Conn: scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		switch m.Method {
		case protocol.MethodServerDiscover:
			return discoverResult(protocol.Version20260728), nil
		case protocol.MethodToolsList:
			return json.RawMessage(headerTools), nil
		case protocol.MethodToolsCall:
			mu.Lock()
			defer mu.Unlock()
			k++
			return answer(k - 1)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "unexpected %s", m.Method)
	})}
	cs, err := connectTo(t, log, &mcp.ClientOptions{
		ProtocolVersion: protocol.Version20260728,
		MaxInputRounds:  2,
		Logger:          slog.New(slog.DiscardHandler), // headerTools' invalid tools are left out with a warning
		ElicitationHandler: func(context.Context, *mcp.ClientSession, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "ada"}}, nil
		},
	})
	must(t, err)
	ctx := testkit.Context(t)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	log.take()
	var out callOutcome
	var raw json.RawMessage
	out.Result, raw, err = call(ctx, cs)
	out.Raw = string(raw)
	if err != nil {
		out.Err = err.Error()
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			out.Code = je.Code
		}
	}
	out.Sent = log.take()
	return out
}

func TestStatelessCallToolFastPathIsTheGeneralPath(t *testing.T) {
	for _, a := range statelessToolAnswers {
		for _, arg := range statelessToolArgs {
			t.Run(a.name+"/"+arg.name, func(t *testing.T) {
				fast := statelessCallOutcome(t, a.answer, arg.tool, arg.args)
				general := statelessCallOutcome(t, a.answer, arg.tool, arg.args, mcp.GeneralPath())
				if !reflect.DeepEqual(fast, general) {
					t.Errorf("the fast path and the general path differ:\nfast    %s\ngeneral %s", describeOutcome(fast), describeOutcome(general))
				}
				if fast.Result == nil && fast.Err == "" {
					t.Error("neither a result nor an error")
				}
			})
		}
	}
	// The cases do what they say on both paths.
	ok := statelessCallOutcome(t, statelessToolAnswers[0].answer, "regional", map[string]any{"region": "Genève"})
	if ok.Err != "" || ok.Result.Meta["trace"] != "t1" || ok.Result.Meta[protocol.MetaKeyServerInfo] == nil || len(ok.Sent) != 1 ||
		ok.Sent[0].Header.Get("Mcp-Param-Region") == "" {
		t.Errorf("complete: %s", describeOutcome(ok))
	}
	input := statelessCallOutcome(t, statelessToolAnswers[4].answer, "plain", nil)
	if input.Err != "" || len(input.Sent) != 2 || !bytes.Contains([]byte(input.Sent[1].Params), []byte(`"requestState":"s1"`)) {
		t.Errorf("input: %s", describeOutcome(input))
	}
	for name, want := range map[string]string{
		"read whole, input":              "done",
		"escaped resultType":             "x",
		"repeated resultType":            "x",
		"read whole, unknown resultType": "",
	} {
		i := slices.IndexFunc(statelessToolAnswers, func(a statelessToolAnswer) bool { return a.name == name })
		got := statelessCallOutcome(t, statelessToolAnswers[i].answer, "plain", nil)
		switch {
		case want == "" && !strings.Contains(got.Err, `unknown resultType "later"`):
			t.Errorf("%s: %s", name, describeOutcome(got))
		case want != "" && (got.Err != "" || got.Result.IsError || len(got.Result.Content) != 1 || got.Result.Content[0].Text != want):
			t.Errorf("%s: %s", name, describeOutcome(got))
		}
	}
	retried := statelessCallOutcome(t, statelessToolAnswers[10].answer, "plain", nil)
	if retried.Err != "" || len(retried.Sent) != 3 || retried.Sent[1].Method != protocol.MethodToolsList {
		t.Errorf("headers refreshed: %s", describeOutcome(retried))
	}
}

// TestStatelessCallToolRawFastPathIsTheGeneralPath: CallToolRaw with only a
// name and arguments takes CallTool's path; it answers as the general path
// does, and sends the same requests.
func TestStatelessCallToolRawFastPathIsTheGeneralPath(t *testing.T) {
	for _, a := range statelessToolAnswers {
		for _, arg := range statelessToolArgs {
			args, ok := arg.args.(json.RawMessage)
			if !ok && arg.args != nil {
				b, err := json.Marshal(arg.args)
				if err != nil {
					continue // CallToolRaw takes arguments already encoded
				}
				args = b
			}
			if len(args) > 0 && args[0] != '{' {
				continue // sent unchecked by both paths, and refused by the test's wire check
			}
			t.Run(a.name+"/"+arg.name, func(t *testing.T) {
				outcome := func(opts ...mcp.RequestOption) callOutcome {
					return statelessOutcome(t, a.answer, func(ctx context.Context, cs *mcp.ClientSession) (*protocol.CallToolResult, json.RawMessage, error) {
						raw, err := cs.CallToolRaw(ctx, &protocol.CallToolParams{Name: arg.tool, Arguments: args}, opts...)
						return nil, raw, err
					})
				}
				fast, general := outcome(), outcome(mcp.GeneralPath())
				if !reflect.DeepEqual(fast, general) {
					t.Errorf("the fast path and the general path differ:\nfast    %s raw %s\ngeneral %s raw %s", describeOutcome(fast), fast.Raw, describeOutcome(general), general.Raw)
				}
				if fast.Raw == "" && fast.Err == "" {
					t.Error("neither a result nor an error")
				}
			})
		}
	}
}

// describeOutcome prints an outcome for a failure message.
func describeOutcome(o callOutcome) string {
	res, _ := json.Marshal(o.Result)
	s := fmt.Sprintf("result %s meta %#v err %q (code %d)", res, func() any {
		if o.Result == nil {
			return nil
		}
		return o.Result.Meta
	}(), o.Err, o.Code)
	for _, r := range o.Sent {
		s += fmt.Sprintf("\n  sent %s %s %v", r.Method, r.Params, r.Header)
	}
	return s
}

// cannedConn is a connection to a server that answers each request at once,
// in Write, with the canned result of its method, allocating nothing: what
// testing.AllocsPerRun counts of a call is the client's own work.
type cannedConn struct {
	results map[string]json.RawMessage // by method

	mu   sync.Mutex
	bufs [2][]byte // answers are written into these in turn
	next int

	out    chan []byte
	closed chan struct{}
	once   sync.Once
}

func newCannedConn(results map[string]json.RawMessage) *cannedConn {
	return &cannedConn{results: results, out: make(chan []byte, 1), closed: make(chan struct{})}
}

var (
	idMember     = []byte(`"id":`)
	methodMember = []byte(`,"method":"`)
)

func (c *cannedConn) Write(ctx context.Context, msg []byte) error {
	// jsonrpc.AppendRequest writes {"jsonrpc":"2.0","id":ID,"method":"M",...;
	// notifications have no id and get no answer.
	i, j := bytes.Index(msg, idMember), bytes.Index(msg, methodMember)
	if i < 0 || j < i {
		return nil
	}
	id := msg[i+len(idMember) : j]
	method := msg[j+len(methodMember):]
	method = method[:bytes.IndexByte(method, '"')]
	result, ok := c.results[string(method)]
	if !ok {
		return fmt.Errorf("canned: no answer to %s", method)
	}
	c.mu.Lock()
	b := append(c.bufs[c.next][:0], `{"jsonrpc":"2.0","id":`...)
	b = append(append(append(b, id...), `,"result":`...), result...)
	b = append(b, '}')
	c.bufs[c.next] = b
	c.next ^= 1
	c.mu.Unlock()
	select {
	case c.out <- b:
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	}
}

func (c *cannedConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.out:
		return b, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *cannedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// metaSink keeps what the baseline decodes.
var metaSink protocol.Meta

func TestStatelessCallToolAllocatesAsLegacyPlusItsMeta(t *testing.T) {
	if mcp.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers: the counts vary")
	}
	const (
		text     = `{"type":"text","text":"hello world"}`
		meta2026 = `{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}`
	)
	legacy := newCannedConn(map[string]json.RawMessage{
		protocol.MethodInitialize: json.RawMessage(`{"protocolVersion":"` + protocol.LatestLegacy + `","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`),
		protocol.MethodToolsCall:  json.RawMessage(`{"content":[` + text + `]}`),
	})
	stateless := newCannedConn(map[string]json.RawMessage{
		protocol.MethodServerDiscover: json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","_meta":` + meta2026 + `}`),
		protocol.MethodToolsCall:      json.RawMessage(`{"content":[` + text + `],"resultType":"complete","_meta":` + meta2026 + `}`),
	})
	ctx := context.Background()
	connect := func(conn transport.Conn, version string) *mcp.ClientSession {
		cs, err := connectTo(t, conn, &mcp.ClientOptions{ProtocolVersion: version})
		must(t, err)
		return cs
	}
	legacyCS, statelessCS := connect(legacy, protocol.LatestLegacy), connect(stateless, protocol.Version20260728)
	// What the 2026-07-28 result needs beyond the legacy one: its _meta, decoded.
	metaBytes := []byte(meta2026)
	metaAllocs := testing.AllocsPerRun(100, func() {
		if err := metaSink.UnmarshalJSON(metaBytes); err != nil {
			t.Fatal(err)
		}
	})
	counts := make(map[string][2]float64) // by shape: legacy, 2026-07-28
	for _, v := range []struct {
		name string
		args any
	}{
		{"raw", json.RawMessage(`{"message":"world"}`)},
		{"struct", struct {
			Message string `json:"message"`
		}{"world"}},
		{"map", map[string]any{"message": "world"}},
	} {
		count := func(cs *mcp.ClientSession, opts ...mcp.RequestOption) float64 {
			return testing.AllocsPerRun(200, func() {
				res, err := cs.CallTool(ctx, "echo", v.args, opts...)
				if err != nil || res.Content[0].Text != "hello world" {
					t.Fatal(res, err)
				}
			})
		}
		l, s, g := count(legacyCS), count(statelessCS), count(statelessCS, mcp.GeneralPath())
		t.Logf("%s: legacy %.0f, 2026-07-28 %.0f (general path %.0f), its _meta %.0f", v.name, l, s, g, metaAllocs)
		if s > l+metaAllocs {
			t.Errorf("%s: a 2026-07-28 CallTool allocates %.0f times, more than the legacy one's %.0f and its result's _meta's %.0f", v.name, s, l, metaAllocs)
		}
		// Arguments a program builds cost nothing more than arguments it
		// hands over encoded: they are encoded into pooled buffers.
		counts[v.name] = [2]float64{l, s}
		if raw := counts["raw"]; l > raw[0] || s > raw[1] {
			t.Errorf("%s arguments: %.0f and %.0f allocations (legacy, 2026-07-28), more than raw JSON's %.0f and %.0f", v.name, l, s, raw[0], raw[1])
		}
	}
}

// TestCallToolRawAllocatesAsCallTool: CallToolRaw with only a name and
// arguments (what a gateway forwards) takes CallTool's path in both eras: it
// allocates the result it returns and nothing else (the general path boxes
// the params and the result besides).
func TestCallToolRawAllocatesAsCallTool(t *testing.T) {
	if mcp.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers: the counts vary")
	}
	result := `{"content":[{"type":"text","text":"hello world"}],"resultType":"complete"}`
	ctx := context.Background()
	for _, era := range []struct {
		version string
		results map[string]json.RawMessage
	}{
		{protocol.LatestLegacy, map[string]json.RawMessage{
			protocol.MethodInitialize: json.RawMessage(`{"protocolVersion":"` + protocol.LatestLegacy + `","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`),
			protocol.MethodToolsCall:  json.RawMessage(result),
		}},
		{protocol.Version20260728, map[string]json.RawMessage{
			protocol.MethodServerDiscover: json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete"}`),
			protocol.MethodToolsCall:      json.RawMessage(result),
		}},
	} {
		cs, err := connectTo(t, newCannedConn(era.results), &mcp.ClientOptions{ProtocolVersion: era.version})
		must(t, err)
		p := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"world"}`)}
		raw := func(opts ...mcp.RequestOption) float64 {
			return testing.AllocsPerRun(200, func() {
				if res, err := cs.CallToolRaw(ctx, p, opts...); err != nil || len(res) != len(result) {
					t.Fatal(string(res), err)
				}
			})
		}
		fast, general := raw(), raw(mcp.GeneralPath())
		t.Logf("%s: CallToolRaw %.0f (general path %.0f)", era.version, fast, general)
		if fast > 1 {
			t.Errorf("%s: CallToolRaw allocates %.0f times, want 1 (the result; the general path: %.0f)", era.version, fast, general)
		}
	}
}
