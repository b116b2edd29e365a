package wirecheck

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestConversationPerVersion runs the same conversation in every version: the valid
// messages must pass and the broken ones must be caught by the right definition.
func TestConversationPerVersion(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			w := wire{v}
			tool := obj{"name": "echo", "inputSchema": obj{"type": "object"}}
			text := []any{obj{"type": "text", "text": "hi"}}
			lines := append(w.handshake(),
				line{Client, w.req(2, "tools/list", nil), valid},
				line{Server, w.res(2, w.cacheable(obj{"tools": []any{tool}})), valid},
				line{Client, w.req("call-3", "tools/call", obj{"name": "echo", "arguments": obj{"text": "hi"},
					"_meta": obj{"progressToken": "p1"}}), valid},
				line{Server, note("notifications/progress", obj{"progressToken": "p1", "progress": 1, "total": 2}), valid},
				line{Server, w.res("call-3", obj{"content": text, "isError": false}), valid},
				line{Client, w.req(4, "tools/call", obj{"name": "missing"}), valid},
				line{Server, errResp(4, -32602, "unknown tool: missing"), valid},
				// A content item without "type".
				line{Client, w.req(5, "tools/call", obj{"name": "echo"}), valid},
				line{Server, w.res(5, obj{"content": []any{obj{"text": "untyped"}}}), bad("CallToolResult")},
				// A result of the wrong shape.
				line{Client, w.req(6, "tools/list", nil), valid},
				line{Server, w.res(6, w.cacheable(obj{"tools": "not a list"})), bad("ListToolsResult")},
				// A progress notification without its token.
				line{Server, note("notifications/progress", obj{"progress": 1}), bad("ProgressNotification")},
				// A tool without a name.
				line{Client, w.req(7, "tools/list", nil), valid},
				line{Server, w.res(7, w.cacheable(obj{"tools": []any{obj{"inputSchema": obj{"type": "object"}}}})), bad("ListToolsResult")},
				// An error without a message.
				line{Client, w.req(8, "tools/list", nil), valid},
				line{Server, `{"jsonrpc":"2.0","id":8,"error":{"code":-32603}}`, bad(w.errorEnvelope())},
			)
			c := newTestChecker(t, Server)
			converse(t, c, lines)
			if got := c.Version(); got != v {
				t.Errorf("Version() = %q, want %q", got, v)
			}
			if u := c.UnknownMethods(); len(u) != 0 {
				t.Errorf("UnknownMethods() = %v, want none", u)
			}
		})
	}
}

func (w wire) errorEnvelope() string {
	if w.version >= "2025-11-25" {
		return "JSONRPCErrorResponse"
	}
	return "JSONRPCError"
}

func TestResourceLinkOnlyFrom20250618(t *testing.T) {
	link := obj{"type": "resource_link", "uri": "file:///tmp/a.txt", "name": "a.txt"}
	for _, tc := range []struct {
		version string
		want    outcome
	}{
		{"2024-11-05", bad("CallToolResult")},
		{"2025-03-26", bad("CallToolResult")},
		{"2025-06-18", valid},
		{"2025-11-25", valid},
		{"2026-07-28", valid},
	} {
		t.Run(tc.version, func(t *testing.T) {
			w := wire{tc.version}
			converse(t, newTestChecker(t, Server), append(w.handshake(),
				line{Client, w.req(1, "tools/call", obj{"name": "files"}), valid},
				line{Server, w.res(1, obj{"content": []any{link}}), tc.want},
			))
		})
	}
}

func TestBatches(t *testing.T) {
	t.Run("2025-06-18 has none", func(t *testing.T) {
		w := wire{"2025-06-18"}
		batch := "[" + w.req(1, "tools/list", nil) + "," + w.req(2, "ping", nil) + "]"
		converse(t, newTestChecker(t, Server), append(w.handshake(), line{Client, batch, broken(ErrBatch)}))
	})
	t.Run("2025-03-26 checks every element", func(t *testing.T) {
		w := wire{"2025-03-26"}
		converse(t, newTestChecker(t, Server), append(w.handshake(),
			line{Client, "[" + w.req(1, "tools/list", nil) + "," + note("notifications/cancelled", obj{"requestId": 0}) + "]", valid},
			line{Server, "[" + w.res(1, obj{"tools": []any{}}) + "]", valid},
			line{Client, "[" + w.req(2, "tools/call", obj{"name": "x"}) + "," + w.req(3, "ping", nil) + "]", valid},
			line{Server, "[" + w.res(2, obj{"content": "wrong"}) + "," + w.res(3, obj{}) + "]", bad("CallToolResult")},
			line{Client, "[]", broken(ErrBatch)},
			// A batch may not mix requests and responses.
			line{Client, "[" + w.req(4, "ping", nil) + "," + w.res(99, obj{}) + "]", bad("JSONRPCMessage")},
		))
	})
	t.Run("before negotiation", func(t *testing.T) {
		w := wire{"2025-03-26"}
		converse(t, newTestChecker(t, Server), []line{{Client, "[" + w.req(1, "ping", nil) + "]", broken(ErrBatch)}})
	})
}

func TestNegotiationDowngrade(t *testing.T) {
	old := wire{"2024-11-05"}
	c := newTestChecker(t, Server)
	converse(t, c, []line{
		// The client asks for 2025-06-18; its request is checked against that version.
		{Client, old.req(1, "initialize", obj{"protocolVersion": "2025-06-18", "capabilities": obj{"elicitation": obj{}},
			"clientInfo": obj{"name": "c", "version": "1"}}), valid},
	})
	if got := c.Version(); got != "2025-06-18" {
		t.Fatalf("before the result, Version() = %q, want the asked 2025-06-18", got)
	}
	converse(t, c, []line{
		{Server, old.res(1, obj{"protocolVersion": "2024-11-05", "capabilities": obj{},
			"serverInfo": obj{"name": "s", "version": "1"}}), valid},
		{Client, old.req(2, "tools/call", obj{"name": "files"}), valid},
		{Server, old.res(2, obj{"content": []any{obj{"type": "resource_link", "uri": "file:///a", "name": "a"}}}), bad("CallToolResult")},
	})
	if got := c.Version(); got != "2024-11-05" {
		t.Errorf("Version() = %q, want the negotiated 2024-11-05", got)
	}
}

func TestInitializeNegotiatesUnknownVersion(t *testing.T) {
	for _, negotiated := range []string{"2099-01-01", statelessVersion} {
		t.Run(negotiated, func(t *testing.T) {
			w := wire{"2025-06-18"}
			c := newTestChecker(t, Server)
			converse(t, c, []line{
				{Client, w.handshake()[0].msg, valid},
				{Server, w.res(0, obj{"protocolVersion": negotiated, "capabilities": obj{},
					"serverInfo": obj{"name": "s", "version": "1"}}), broken(ErrUnknownVersion)},
			})
			if got := c.Version(); got != "2025-06-18" {
				t.Errorf("Version() = %q, want the asked 2025-06-18 kept", got)
			}
		})
	}
}

func TestWrongSender(t *testing.T) {
	legacy, stateless := wire{"2025-06-18"}, wire{statelessVersion}
	c := newTestChecker(t, Server)
	converse(t, c, append(legacy.handshake(),
		line{Server, legacy.req(1, "tools/call", obj{"name": "x"}), broken(ErrWrongSender)},
		line{Client, note("notifications/message", obj{"level": "info", "data": "x"}), broken(ErrWrongSender)},
		line{Server, legacy.req(2, "roots/list", nil), valid},
		line{Client, legacy.res(2, obj{"roots": []any{obj{"uri": "file:///src"}}}), valid},
	))
	m := newTestChecker(t, Server, InitialVersion(statelessVersion))
	converse(t, m, []line{
		// In 2026-07-28 elicitation travels inside an InputRequiredResult, never as a request.
		{Server, stateless.req(1, "elicitation/create", obj{"message": "name?", "requestedSchema": obj{"type": "object", "properties": obj{}}}), broken(ErrWrongSender)},
		{Client, note("notifications/progress", obj{"progressToken": 1, "progress": 1}), broken(ErrWrongSender)},
	})
}

func TestUnknownMethods(t *testing.T) {
	w := wire{"2025-06-18"}
	c := newTestChecker(t, Server)
	converse(t, c, append(w.handshake(),
		line{Client, w.req(1, "vendor/frobnicate", obj{"x": 1}), valid},
		line{Server, w.res(1, obj{"anything": true}), valid},
		line{Server, note("notifications/vendor/ping", nil), valid},
		// The envelope is still checked.
		line{Client, `{"jsonrpc":"1.0","id":2,"method":"vendor/other"}`, bad("JSONRPCRequest")},
	))
	want := []string{"notifications/vendor/ping", "vendor/frobnicate", "vendor/other"}
	if got := c.UnknownMethods(); !slices.Equal(got, want) {
		t.Errorf("UnknownMethods() = %v, want %v", got, want)
	}

	strict := newTestChecker(t, Server, RejectUnknownMethods())
	converse(t, strict, append(w.handshake(), line{Client, w.req(1, "vendor/frobnicate", nil), broken(ErrUnknownMethod)}))
}

func TestMalformedMessages(t *testing.T) {
	w := wire{"2025-06-18"}
	converse(t, newTestChecker(t, Server), append(w.handshake(),
		line{Client, `{"jsonrpc":"2.0","id":1,"method":`, broken(ErrMalformed)},
		line{Client, `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, broken(ErrMalformed)},
		line{Client, w.req(2, "ping", nil), valid},
		line{Server, `{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":1,"message":"x"}}`, broken(ErrMalformed)},
		line{Client, w.req(3, "ping", nil), valid},
		line{Client, w.req(3, "tools/list", nil), broken(ErrMalformed)}, // id 3 is still pending
		line{Client, `{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}`, broken(ErrMalformed)},
		line{Client, `{"jsonrpc":"2.0","method":"tools/list"}`, broken(ErrMalformed)},
		line{Client, `"just a string"`, bad("JSONRPCMessage")},
		line{Client, `{"jsonrpc":"2.0"}`, bad("JSONRPCMessage")},
		line{Client, `{"jsonrpc":"2.0","id":true,"method":"ping"}`, bad("JSONRPCRequest")},
		line{Server, w.res(77, obj{}), broken(ErrUnmatchedResponse)},
		line{Server, errResp(78, -32600, "x"), broken(ErrUnmatchedResponse)},
	))
}

func TestIDTypesAreKept(t *testing.T) {
	w := wire{"2025-06-18"}
	converse(t, newTestChecker(t, Server), append(w.handshake(),
		line{Client, w.req(5, "tools/list", nil), valid},
		// "5" (a string) does not answer 5 (a number).
		line{Server, w.res("5", obj{"tools": []any{}}), broken(ErrUnmatchedResponse)},
		line{Server, w.res(5, obj{"tools": []any{}}), valid},
	))
}

func TestErrorWithoutID(t *testing.T) {
	parseError := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`
	for _, tc := range []struct {
		version string
		want    outcome
	}{
		{"2024-11-05", bad("JSONRPCError")}, // id is required before 2025-11-25
		{"2025-06-18", bad("JSONRPCError")},
		{"2025-11-25", valid},
		{"2026-07-28", valid},
	} {
		t.Run(tc.version, func(t *testing.T) {
			c := newTestChecker(t, Server, InitialVersion(tc.version))
			converse(t, c, []line{{Server, parseError, tc.want}})
		})
	}
}

// TestErrorWithNullID: JSON-RPC 2.0 answers a request it could not read with id
// null, a valid message in every version; the error object is still checked.
func TestErrorWithNullID(t *testing.T) {
	refused := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: No valid session ID provided"}}`
	noCode := `{"jsonrpc":"2.0","id":null,"error":{"message":"no code"}}`
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			c := newTestChecker(t, Server, InitialVersion(version))
			def := "JSONRPCErrorResponse"
			if version < "2025-11-25" {
				def = "JSONRPCError"
			}
			converse(t, c, []line{{Server, refused, valid}, {Server, noCode, bad(def)}})
		})
	}
}

func TestObserveLearnsWithoutValidating(t *testing.T) {
	w := wire{"2025-06-18"}
	c := newTestChecker(t, Server)
	for _, l := range w.handshake() {
		c.Observe(map[Side]Direction{Client: Incoming, Server: Outgoing}[l.from], []byte(l.msg))
	}
	c.Observe(Incoming, []byte(w.req(1, "tools/call", obj{"nameless": true}))) // invalid, not reported
	if got := c.Version(); got != "2025-06-18" {
		t.Fatalf("Version() = %q after observing the handshake", got)
	}
	converse(t, c, []line{{Server, w.res(1, obj{"content": 42}), bad("CallToolResult")}})
}

func TestInitialVersion(t *testing.T) {
	if _, err := NewChecker(Server, InitialVersion("1999-01-01")); err == nil {
		t.Error("NewChecker accepted an initial version with no schema")
	}
	if _, err := NewChecker(Side(9)); err == nil {
		t.Error("NewChecker accepted an invalid side")
	}
	c := newTestChecker(t, Client, InitialVersion("2025-03-26"))
	if got := c.Version(); got != "2025-03-26" {
		t.Errorf("Version() = %q", got)
	}
	w := wire{"2025-03-26"}
	converse(t, c, []line{
		{Client, w.req(1, "tools/call", obj{"name": "x"}), valid},
		{Server, w.res(1, obj{"content": []any{obj{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}}), valid},
	})
}

func TestFormatsAreAsserted(t *testing.T) {
	for _, v := range []string{"2025-06-18", statelessVersion} { // a draft-07 and a 2020-12 schema
		t.Run(v, func(t *testing.T) {
			w := wire{v}
			converse(t, newTestChecker(t, Server, InitialVersion(v)), []line{
				{Client, w.req(1, "tools/call", obj{"name": "x"}), valid},
				{Server, w.res(1, obj{"content": []any{obj{"type": "image", "data": "not base64!", "mimeType": "image/png"}}}), bad("CallToolResult")},
				{Client, w.req(2, "resources/list", nil), valid},
				{Server, w.res(2, w.cacheable(obj{"resources": []any{obj{"uri": "relative/path", "name": "r"}}})), bad("ListResourcesResult")},
			})
		})
	}
}

func TestViolationMessage(t *testing.T) {
	w := wire{"2025-06-18"}
	c := newTestChecker(t, Server, InitialVersion("2025-06-18"))
	c.Observe(Incoming, []byte(w.req(1, "tools/call", obj{"name": "x"})))
	msg := []byte(w.res(1, obj{"content": []any{obj{"text": "untyped"}}}))
	err := c.Check(Outgoing, msg)
	vs := violations(err)
	if len(vs) != 1 {
		t.Fatalf("want one violation, got %d: %v", len(vs), err)
	}
	v := vs[0]
	if v.Version != "2025-06-18" || v.Sender != Server || v.Method != "tools/call" || v.Definition != "CallToolResult" {
		t.Errorf("violation fields = %+v", v)
	}
	msg[0] = 'X' // the violation keeps its own copy
	text := v.Error()
	for _, want := range []string{"server message (tools/call)", "2025-06-18 CallToolResult", "untyped", `{"id":1`} {
		if !strings.Contains(text, want) {
			t.Errorf("Error() lacks %q:\n%s", want, text)
		}
	}
}

func TestConcurrentChecks(t *testing.T) {
	w := wire{"2025-06-18"}
	c := newTestChecker(t, Server)
	converse(t, c, w.handshake())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 8 {
				id := fmt.Sprintf("g%d-%d", g, i)
				errs <- errors.Join(
					c.Check(Incoming, []byte(w.req(id, "tools/call", obj{"name": "x"}))),
					c.Check(Outgoing, []byte(w.res(id, obj{"content": []any{}}))))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkCheckToolCall measures checking one tools/call request and its result, as
// a wrapped server does for every call.
func BenchmarkCheckToolCall(b *testing.B) {
	w := wire{"2025-06-18"}
	c := newTestChecker(b, Server, InitialVersion("2025-06-18"))
	req := []byte(w.req(1, "tools/call", obj{"name": "echo", "arguments": obj{"text": "hi"}}))
	res := []byte(w.res(1, obj{"content": []any{obj{"type": "text", "text": "hi"}}}))
	b.ReportAllocs()
	for b.Loop() {
		if err := errors.Join(c.Check(Incoming, req), c.Check(Outgoing, res)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewChecker measures the per-connection cost once the schemas are loaded.
func BenchmarkNewChecker(b *testing.B) {
	newTestChecker(b, Server)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewChecker(Server); err != nil {
			b.Fatal(err)
		}
	}
}
