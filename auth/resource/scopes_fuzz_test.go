package resource

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// FuzzBodyScopes checks bodyScopes against the server's own decoders: for a
// body it accepts, every request the JSON-RPC decoder finds in it (alone or in a
// batch) needs no scope that bodyScopes left out — its method's, and for
// tools/call the scopes of the tool protocol.CallToolParams decodes.
func FuzzBodyScopes(f *testing.F) {
	o := &Options{
		MethodScopes: map[string][]string{"tools/call": {"call"}, "resources/read": {"read"}, "prompts/get": {"prompt"}},
		ToolScopes:   map[string][]string{"admin": {"admin"}, "a": {"a"}, "Admin": {"Admin"}},
	}
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"tools/list","params":{"Name":"admin"}}`,
		`{"jsonrpc":"2.0","id":1,"\u006dethod":"tools\/call","params":{"n\u0061me":"Admin"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"prompts/get","params":null}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got []string
		if err := o.bodyScopes(body, &got); err != nil {
			return // refused: nothing runs
		}
		var msgs []*jsonrpc.Message
		if jsonrpc.IsBatch(body) {
			ms, errs, err := jsonrpc.DecodeBatch(body)
			if err != nil {
				return
			}
			for i, m := range ms {
				if errs == nil || errs[i] == nil {
					msgs = append(msgs, m)
				}
			}
		} else if m, err := jsonrpc.Decode(body); err == nil {
			msgs = append(msgs, m)
		}
		for _, m := range msgs {
			if m == nil || m.Method == "" {
				continue
			}
			need := o.MethodScopes[m.Method]
			if m.Method == "tools/call" {
				var p protocol.CallToolParams
				if len(m.Params) > 0 && json.Unmarshal(m.Params, &p) == nil {
					need = append(slices.Clone(need), o.ToolScopes[p.Name]...)
				}
			}
			for _, s := range need {
				if !slices.Contains(got, s) {
					t.Fatalf("%q: the server runs %s (params %s), which needs %q; bodyScopes said %q", body, m.Method, m.Params, s, got)
				}
			}
		}
	})
}
