package resource_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/auth/authtest"
)

// The scopes of methods and tools come from the body as the server reads it:
// headers that name another method or tool change nothing, every message of a
// batch counts, keys are matched as the server's decoders match them, and a
// body the server could read in two ways, or not at all, is refused.
func TestMethodScopesReadTheBody(t *testing.T) {
	f := newFixture(t)
	read := f.token(t, authtest.Claims{})
	write := f.token(t, authtest.Claims{Scope: "mcp:read mcp:write"})
	all := f.token(t, authtest.Claims{Scope: "mcp:read mcp:write files:read"})
	const (
		callDelete = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete"}}`
		listTools  = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		readRes    = `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a"}}`
	)
	tests := []struct {
		name   string
		token  string
		header map[string]string
		body   string
		status int
		scope  string // the challenge's scope parameter, for 403
	}{
		{"header names a harmless method", read, map[string]string{"Mcp-Method": "tools/list"}, callDelete, 403, "mcp:read mcp:write"},
		{"header names a harmless tool", read, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo"}, callDelete, 403, "mcp:read mcp:write"},
		{"header names a guarded tool the body does not call", read, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "delete"}, listTools, 200, ""},
		{"batch", read, nil, `[` + listTools + `,` + callDelete + `]`, 403, "mcp:read mcp:write"},
		{"batch with space around", read, nil, " \n[ " + callDelete + " ]\n", 403, "mcp:read mcp:write"},
		{"batch needs every message's scopes", write, nil, `[` + callDelete + `,` + readRes + `,` + callDelete + `]`, 403, "mcp:read mcp:write files:read"},
		{"batch with every scope", all, nil, `[` + callDelete + `,` + readRes + `]`, 200, ""},
		{"batch of harmless messages", read, nil, `[` + listTools + `,{"jsonrpc":"2.0","id":9,"result":{}}]`, 200, ""},
		{"empty batch", read, nil, `[]`, 200, ""},
		{"batch in a batch runs nothing", read, nil, `[[` + callDelete + `]]`, 200, ""},
		{"escaped method key", read, nil, `{"jsonrpc":"2.0","id":2,"\u006dethod":"tools/call","params":{"name":"delete"}}`, 403, "mcp:read mcp:write"},
		{"escaped method", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools\/call","params":{"name":"delete"}}`, 403, "mcp:read mcp:write"},
		{"escaped tool name", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"d\u0065lete"}}`, 403, "mcp:read mcp:write"},
		{"tool name key up to case", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"NAME":"delete"}}`, 403, "mcp:read mcp:write"},
		{"name of something else than a tool", read, nil, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"delete"}}`, 200, ""},
		{"case-variant method after the method", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","Method":"tools/list","params":{"name":"delete"}}`, 400, ""},
		{"case-variant method alone", read, nil, `{"jsonrpc":"2.0","id":2,"METHOD":"tools/call","params":{"name":"delete"}}`, 400, ""},
		{"duplicate method", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/list","method":"tools/call","params":{"name":"delete"}}`, 400, ""},
		{"duplicate params", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"},"params":{"name":"delete"}}`, 400, ""},
		{"case-variant params", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"},"Params":{"name":"delete"}}`, 400, ""},
		{"two tool names", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","Name":"delete"}}`, 400, ""},
		{"duplicate in a batch", read, nil, `[` + listTools + `,{"jsonrpc":"2.0","id":2,"method":"tools/call","method":"tools/list"}]`, 400, ""},
		{"not JSON", read, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call"`, 400, ""},
		{"trailing data", read, nil, listTools + ` ` + callDelete, 400, ""},
		{"empty", read, nil, ``, 400, ""},
		{"a scalar", read, nil, `5`, 200, ""},
		{"method that is not a string", read, nil, `{"jsonrpc":"2.0","id":2,"method":["tools/call"],"params":{"name":"delete"}}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer "+tt.token)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			f.h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (%s; %s)", rec.Code, tt.status, rec.Header().Get("WWW-Authenticate"), rec.Body)
			}
			ch := rec.Header().Get("WWW-Authenticate")
			switch tt.status {
			case 200:
				if want := f.as.Issuer + "#alice|app|" + tt.body; rec.Body.String() != want {
					t.Errorf("handler saw %q, want %q", rec.Body.String(), want)
				}
			case 403:
				if !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="`+tt.scope+`"`) {
					t.Errorf("challenge %q, want insufficient_scope for %q", ch, tt.scope)
				}
			case 400:
				if !strings.Contains(ch, `error="invalid_request"`) || strings.Contains(rec.Body.String(), "#alice") {
					t.Errorf("challenge %q, body %q: want invalid_request, and the handler not reached", ch, rec.Body)
				}
			}
		})
	}
}
