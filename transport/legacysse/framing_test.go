package legacysse_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// framing describes how a hand-written old HTTP+SSE server frames its stream.
type framing struct {
	name       string
	eol        string // line end: "\n", "\r\n" or "\r"
	sep        string // what follows the colon of a field: " " or ""
	pings      bool   // a ": ping" comment (and a blank line) before every event
	ids        bool   // an id field on every event
	untyped    bool   // message events carry no event field
	splitData  bool   // message data is split over two data lines
	streamPath string // the path (and query) the client dials
	endpoint   func(r *http.Request) string
	postPath   string            // where the server expects POSTs
	postQuery  map[string]string // query parameters the POSTs must carry
	postStatus int               // what a POST is answered with
}

func (f framing) frame(typ, id, data string) string {
	var b strings.Builder
	if f.pings {
		b.WriteString(": ping" + f.eol + f.eol)
	}
	if f.ids {
		b.WriteString("id:" + f.sep + id + f.eol)
	}
	if typ != "" {
		b.WriteString("event:" + f.sep + typ + f.eol)
	}
	lines := []string{data}
	if i := strings.IndexByte(data, ','); f.splitData && i > 0 {
		lines = []string{data[:i+1], data[i+1:]} // JSON is still valid joined with LF
	}
	for _, l := range lines {
		b.WriteString("data:" + f.sep + l + f.eol)
	}
	b.WriteString(f.eol)
	return b.String()
}

// oldServer answers initialize, tools/list, tools/call and ping with canned results.
func oldServer(t *testing.T, f framing) http.Handler {
	replies := make(chan string, 16)
	streamPath, _, _ := strings.Cut(f.streamPath, "?")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == streamPath:
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			_, _ = io.WriteString(w, f.frame("endpoint", "session-1", f.endpoint(r)))
			http.NewResponseController(w).Flush()
			for {
				select {
				case msg := <-replies:
					typ := "message"
					if f.untyped {
						typ = ""
					}
					_, _ = io.WriteString(w, f.frame(typ, "session-1", msg))
					http.NewResponseController(w).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPost && r.URL.Path == f.postPath:
			for k, v := range f.postQuery {
				if got := r.URL.Query().Get(k); got != v {
					t.Errorf("%s: POST query %s=%q, want %q", f.name, k, got, v)
					http.NotFound(w, r)
					return
				}
			}
			body, _ := io.ReadAll(r.Body)
			msg, err := jsonrpc.Decode(body)
			if err != nil {
				t.Errorf("%s: POST body %q: %v", f.name, body, err)
				http.Error(w, "bad", http.StatusBadRequest)
				return
			}
			if msg.IsRequest() {
				replies <- string(jsonrpc.AppendResult(nil, msg.ID, cannedResult(msg.Method)))
			}
			w.WriteHeader(f.postStatus)
			if f.postStatus == http.StatusOK {
				_, _ = io.WriteString(w, "Accepted")
			}
		default:
			t.Errorf("%s: unexpected %s %s", f.name, r.Method, r.URL)
			http.NotFound(w, r)
		}
	})
}

func cannedResult(method string) json.RawMessage {
	switch method {
	case "initialize":
		return json.RawMessage(`{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"old-server","version":"0.1"}}`)
	case "tools/list":
		return json.RawMessage(`{"tools":[{"name":"greet","inputSchema":{"type":"object"}}]}`)
	case "tools/call":
		return json.RawMessage(`{"content":[{"type":"text","text":"old server says hi"}]}`)
	default:
		return json.RawMessage(`{}`)
	}
}

func TestDialFramingVariants(t *testing.T) {
	plain := framing{eol: "\n", sep: " ", streamPath: "/sse", postPath: "/messages",
		endpoint:  func(*http.Request) string { return "/messages?sessionId=s1" },
		postQuery: map[string]string{"sessionId": "s1"}, postStatus: http.StatusAccepted}
	variant := func(name string, change func(*framing)) framing {
		f := plain
		f.name = name
		change(&f)
		return f
	}
	cases := []framing{
		variant("LF with spaces", func(*framing) {}),
		variant("CRLF", func(f *framing) { f.eol = "\r\n" }),
		variant("lone CR", func(f *framing) { f.eol = "\r" }),
		variant("no space after colon", func(f *framing) { f.sep = ""; f.eol = "\r\n" }),
		variant("ping comments and ids", func(f *framing) { f.pings = true; f.ids = true }),
		variant("untyped events, data split over lines", func(f *framing) { f.untyped = true; f.splitData = true; f.sep = "" }),
		variant("relative endpoint with its own query under a sub-path", func(f *framing) {
			f.streamPath = "/sub/dir/sse?token=t"
			f.endpoint = func(*http.Request) string { return "messages?session=abc&x=1" }
			f.postPath = "/sub/dir/messages"
			f.postQuery = map[string]string{"session": "abc", "x": "1"}
		}),
		variant("absolute endpoint URL", func(f *framing) {
			f.endpoint = func(r *http.Request) string { return "http://" + r.Host + "/rpc?sid=9" }
			f.postPath = "/rpc"
			f.postQuery = map[string]string{"sid": "9"}
		}),
		variant("POST answered 200 with a body", func(f *framing) { f.postStatus = http.StatusOK }),
		variant("everything at once", func(f *framing) {
			f.eol, f.sep, f.pings, f.ids, f.untyped, f.splitData = "\r\n", "", true, true, true, true
			f.streamPath = "/a/b/events"
			f.endpoint = func(*http.Request) string { return "../post?session=abc&x=1" }
			f.postPath = "/a/post"
			f.postQuery = map[string]string{"session": "abc", "x": "1"}
		}),
	}
	for _, f := range cases {
		t.Run(f.name, func(t *testing.T) {
			ts := testkit.NewServer(t, oldServer(t, f))
			ctx := testkit.Context(t)
			conn, err := legacysse.NewClientConn(ctx, ts.URL+f.streamPath, &legacysse.ClientOptions{Logger: quiet})
			if err != nil {
				t.Fatalf("NewClientConn: %v", err)
			}
			cs, err := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Logger: quiet}).Connect(ctx, conn)
			if err != nil {
				_ = conn.Close()
				t.Fatalf("initialize: %v", err)
			}
			defer cs.Close()
			if name := cs.InitializeResult().ServerInfo.Name; name != "old-server" {
				t.Errorf("server %q", name)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "greet" {
				t.Fatalf("tools/list = %+v %v", tools, err)
			}
			res, err := cs.CallTool(ctx, "greet", nil)
			if err != nil || res.Content[0].Text != "old server says hi" {
				t.Fatalf("tools/call = %+v %v", res, err)
			}
		})
	}
}
