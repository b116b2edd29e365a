package rpcconn

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// TestRequestEncoder checks that a request with params encoded in place is
// byte for byte what AppendRequest makes of json.Marshal's params, and that an
// encoder reused after a longer message writes only the new one.
func TestRequestEncoder(t *testing.T) {
	e := encoders.Get().(*requestEncoder)
	for _, params := range []any{
		nil,
		json.RawMessage(`{"a":1}`),
		[]byte(`{"b":2}`),
		map[string]any{"html": "<&>", "n": 1.5},
		struct {
			Name string `json:"name"`
		}{"x"},
		(*struct{})(nil),
	} {
		got, err := e.request(jsonrpc.StringID("k"), "tools/call", params)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := marshal(params)
		if want := jsonrpc.AppendRequest(nil, jsonrpc.StringID("k"), "tools/call", p); string(got) != string(want) {
			t.Errorf("%#v: got %s, want %s", params, got, want)
		}
	}
	if _, err := e.request(jsonrpc.Int64ID(1), "m", func() {}); err == nil {
		t.Error("params encoding/json cannot encode gave no error")
	}
}
