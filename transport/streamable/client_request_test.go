package streamable

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// checkClientRequest fails when what WriteRequest learns of a request from
// its writer (clientRequest) differs from what Write learns by reading the
// message the connection engine encodes from the same id, method and params.
func checkClientRequest(t *testing.T, id jsonrpc.ID, method string, params json.RawMessage) {
	t.Helper()
	msg := jsonrpc.AppendRequest(nil, id, method, params)
	read, err := clientClassify(msg)
	if err != nil {
		t.Fatalf("Write refuses %s: %v", msg, err)
	}
	given := clientRequest(id, method, params)
	if !reflect.DeepEqual(read, given) {
		t.Fatalf("for %s\nWrite reads        %+v\nWriteRequest takes %+v", msg, read, given)
	}
}

func TestClientRequestIsWhatWriteReads(t *testing.T) {
	for _, c := range []struct {
		id     jsonrpc.ID
		method string
		params string
	}{
		{jsonrpc.Int64ID(1), protocol.MethodToolsCall, `{"name":"echo","arguments":{"message":"hi"}}`},
		{jsonrpc.Int64ID(2), protocol.MethodToolsCall, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{}}`},
		{jsonrpc.StringID("a\"b"), protocol.MethodResourcesRead, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"uri":"file:///x"}`},
		{jsonrpc.Int64ID(3), protocol.MethodInitialize, `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`},
		{jsonrpc.Int64ID(4), protocol.MethodPing, ``},
		{jsonrpc.Int64ID(5), protocol.MethodToolsList, `{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`},
		{jsonrpc.Int64ID(6), protocol.MethodToolsCall, `{"NAME":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"y"}`},
		{jsonrpc.Int64ID(7), "odd/method\u2028", `[1,2]`},
	} {
		checkClientRequest(t, c.id, c.method, json.RawMessage(c.params))
	}
}

// FuzzClientRequest: for any id, method and valid JSON params, WriteRequest
// learns what Write would have read.
func FuzzClientRequest(f *testing.F) {
	f.Add(int64(1), "", protocol.MethodToolsCall, []byte(`{"name":"echo","arguments":{"message":"hi"}}`))
	f.Add(int64(0), "s", protocol.MethodToolsCall, []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get weather"}`))
	f.Add(int64(-9), "", protocol.MethodInitialize, []byte(`{}`))
	f.Add(int64(3), "", "prompts/get", []byte(`{"name":"Grüße","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	f.Fuzz(func(t *testing.T, n int64, s, method string, params []byte) {
		if t := bytes.TrimLeft(params, " \t\r\n"); len(params) > 0 && (!json.Valid(params) || t[0] != '{' && t[0] != '[') {
			return // the engine hands over only params its caller vouches for: an object or array
		}
		if !utf8.ValidString(s) || !utf8.ValidString(method) || method == "" {
			return // the engine's ids are numbers, its methods MCP's: never empty, always UTF-8
		}
		id := jsonrpc.Int64ID(n)
		if s != "" {
			id = jsonrpc.StringID(s)
		}
		checkClientRequest(t, id, method, params)
	})
}

// BenchmarkClientLearnsRequest is what the client learns of a tools/call it
// posts, in each era: "read" by reading the message (Write), "given" from
// its writer (WriteRequest).
func BenchmarkClientLearnsRequest(b *testing.B) {
	for _, era := range []struct{ name, params string }{
		{"legacy", `{"name":"echo","arguments":{"message":"hello world"}}`},
		{"2026", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}},"name":"echo","arguments":{"message":"hello world"}}`},
	} {
		id, params := jsonrpc.Int64ID(12345), json.RawMessage(era.params)
		msg := jsonrpc.AppendRequest(nil, id, protocol.MethodToolsCall, params)
		b.Run(era.name+"/read", func(b *testing.B) {
			var out clientOutgoing
			for b.Loop() {
				out, _ = clientClassify(msg)
			}
			if out.nrequests != 1 || out.stateless != (era.name == "2026") {
				b.Fatal(out)
			}
		})
		b.Run(era.name+"/given", func(b *testing.B) {
			var out clientOutgoing
			for b.Loop() {
				out = clientRequest(id, protocol.MethodToolsCall, params)
			}
			if out.nrequests != 1 || out.stateless != (era.name == "2026") {
				b.Fatal(out)
			}
		})
	}
}
