package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// headerTool is the specification's example tool with x-mcp-header.
var headerTool = &protocol.Tool{
	Name: "execute_sql",
	InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {
			"region": {"type": "string", "x-mcp-header": "Region"},
			"priority": {"type": "integer", "x-mcp-header": "Priority"},
			"query": {"type": "string"}
		},
		"required": ["region", "query"]
	}`),
}

func TestCheckParamHeaders(t *testing.T) {
	for _, tc := range []struct {
		name    string
		header  http.Header
		args    string
		wantErr string // "" for success; otherwise a part of the message
	}{
		{"match", http.Header{"Mcp-Param-Region": {"us-west1"}}, `{"region":"us-west1","query":"q"}`, ""},
		{"match both", http.Header{"Mcp-Param-Region": {"=?base64?dXMtd2VzdDE=?="}, "Mcp-Param-Priority": {"3.0"}}, `{"region":"us-west1","priority":3,"query":"q"}`, ""},
		{"optional absent", http.Header{"Mcp-Param-Region": {"eu"}}, `{"region":"eu","priority":null}`, ""},
		{"missing header", http.Header{}, `{"region":"us-west1","query":"q"}`, "Mcp-Param-Region header missing"},
		{"mismatch", http.Header{"Mcp-Param-Region": {"foo"}}, `{"region":"bar"}`, `Mcp-Param-Region header value "foo" does not match body value`},
		{"header without argument", http.Header{"Mcp-Param-Region": {"eu"}, "Mcp-Param-Priority": {"1"}}, `{"region":"eu"}`, "Mcp-Param-Priority header sent, but the argument"},
		{"invalid characters", http.Header{"Mcp-Param-Region": {"é"}}, `{"region":"é"}`, "must be Base64-encoded"},
		{"sent twice", http.Header{"Mcp-Param-Region": {"Hello", "Hello"}}, `{"region":"Hello"}`, "sent 2 times"},
	} {
		err := checkParamHeaders(tc.header, headerTool, json.RawMessage(tc.args))
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != protocol.CodeHeaderMismatch || !strings.HasPrefix(e.Message, "Header mismatch: ") || !strings.Contains(e.Message, tc.wantErr) {
			t.Errorf("%s: error %v, want a -32020 \"Header mismatch: ...%s...\"", tc.name, err, tc.wantErr)
		}
	}
}

func TestParamHeaderSpecs(t *testing.T) {
	specs, err := paramHeaderSpecs(headerTool)
	if err != nil || len(specs) != 2 || specs[0].Header() != "Mcp-Param-Priority" || specs[1].Header() != "Mcp-Param-Region" {
		t.Fatalf("paramHeaderSpecs = %+v, %v", specs, err)
	}
	if specs, err := paramHeaderSpecs(&protocol.Tool{Name: "plain"}); err != nil || specs != nil {
		t.Fatalf("a tool without inputSchema: %+v, %v", specs, err)
	}
	bad := &protocol.Tool{Name: "bad", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`)}
	if _, err := paramHeaderSpecs(bad); !errors.Is(err, protocol.ErrInvalidParamHeader) {
		t.Fatalf("a number-typed declaration: %v, want ErrInvalidParamHeader", err)
	}
	// Such a tool can never be called correctly: every call is a mismatch.
	var e *jsonrpc.Error
	if err := checkParamHeaders(http.Header{"Mcp-Param-N": {"1"}}, bad, json.RawMessage(`{"n":1}`)); !errors.As(err, &e) || e.Code != protocol.CodeHeaderMismatch {
		t.Fatalf("call of a tool with an invalid declaration: %v", err)
	}
}

func TestCheckParamHeaderSpecsNoDeclarations(t *testing.T) {
	// Without declarations, headers are never looked at (nor are the arguments).
	if err := checkParamHeaderSpecs(http.Header{"Mcp-Param-X": {"é"}}, nil, json.RawMessage(`not json`)); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkCheckParamHeaderSpecs(b *testing.B) {
	specs, err := paramHeaderSpecs(headerTool)
	if err != nil {
		b.Fatal(err)
	}
	h := http.Header{"Mcp-Param-Region": {"us-west1"}, "Mcp-Param-Priority": {"3"}}
	args := json.RawMessage(`{"region":"us-west1","priority":3,"query":"SELECT * FROM users"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := checkParamHeaderSpecs(h, specs, args); err != nil {
			b.Fatal(err)
		}
	}
}

// checkParamHeaders (test helper) checks the Mcp-Param-{Name} headers of a call of tool
// with arguments args. It computes the declarations on every call; the
// request path uses checkParamHeaderSpecs with declarations computed once. A
// tool with an invalid declaration fails every call with -32020, since no
// conforming client can mirror its headers.
func checkParamHeaders(h http.Header, tool *protocol.Tool, args json.RawMessage) error {
	specs, err := paramHeaderSpecs(tool)
	if err != nil {
		return headerMismatch(err)
	}
	return checkParamHeaderSpecs(h, specs, args)
}
