package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// echoServer is a server with one fast tool, "echo".
func echoServer(t testing.TB) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "echo", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
		Message string `json:"message"`
	}) (string, error) {
		return "hello " + in.Message, nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// FuzzPOSTBody sends arbitrary bodies (with the headers of either era) to a
// sessionless handler: it must answer every one with a status of the transport (never
// a 5xx), and with well-formed JSON when it answers in JSON.
func FuzzPOSTBody(f *testing.F) {
	for _, s := range []string{
		initBody("2025-06-18"),
		callBody(1, "echo", `{"message":"x"}`, ""),
		`[` + callBody(1, "echo", `{"message":"a"}`, "") + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[]`, `[1]`, `{}`, `null`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "\x00",
		statelessBody(1, "tools/call", `"name":"echo","arguments":{"message":"x"}`),
		statelessBody(2, "tools/list", ""), statelessBody(3, "ping", ""),
	} {
		f.Add(s, "", "")
		f.Add(s, "2025-03-26", "")
		f.Add(s, "2026-07-28", "tools/call")
		f.Add(s, "2026-07-28", "tools/list")
	}
	h := NewHandler(echoServer(f), &HandlerOptions{Sessionless: true, MaxBodyBytes: 1 << 16, Logger: quietLogger})
	defer h.Close()
	f.Fuzz(func(t *testing.T, body, version, method string) {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header[HeaderProtocolVersion] = []string{version}
		}
		if method != "" {
			req.Header[protocol.HeaderMethod] = []string{method}
			req.Header[protocol.HeaderName] = []string{"echo"}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		case http.StatusNotFound: // a 2026-07-28 request of a method the server lacks
		default:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		if w.Header().Get("Content-Type") == "application/json" && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("invalid JSON answer to %q: %q", body, w.Body)
		}
		if w.Code == http.StatusAccepted && w.Body.Len() != 0 {
			t.Fatalf("202 with a body for %q", body)
		}
	})
}
