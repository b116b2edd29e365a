package mcp_test

import (
	"strings"
	"testing"
)

// initialize carries the version, capabilities and client name: without params it
// is refused with -32602, and the session stays uninitialized.
func TestInitializeWithoutParamsIsInvalid(t *testing.T) {
	c := rawConn(t, toolServer(t))
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":null}`,
	} {
		if got := roundTrip(t, c, msg); !strings.Contains(got, `"error":{"code":-32602`) {
			t.Errorf("message %d: %s", i, got)
		}
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); !strings.Contains(got, `"code":-32600`) {
		t.Errorf("tools/list after a refused initialize: %s", got)
	}
}

// Params of the wrong JSON type are reported by JSON member, never by Go struct
// field or Go type.
func TestInvalidParamsNameJSONMembers(t *testing.T) {
	c := uncheckedConn(t, toolServer(t))
	roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	tests := []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":7}}`, "invalid params: name: got number, want string"},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":5}}`, "invalid params: uri: got number, want string"},
		{`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":1}}`, "invalid params: level: got number, want string"},
		{`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":1}}}`, "invalid params: ref.type: got number, want string"},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":[]}}`, "invalid params: cursor: got array, want string"},
	}
	for _, tt := range tests {
		got := roundTrip(t, c, tt.msg)
		if !strings.Contains(got, `"code":-32602,"message":"`+tt.want+`"`) {
			t.Errorf("%s\n answered %s\n want the message %q", tt.msg, got, tt.want)
		}
		if strings.Contains(got, "Go ") || strings.Contains(got, "Params") {
			t.Errorf("%s: answer names Go types: %s", tt.msg, got)
		}
	}
}
