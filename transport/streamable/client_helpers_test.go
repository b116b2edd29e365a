package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// clientSeen is one request a fake server received.
type clientSeen struct {
	Method string
	Header http.Header
	Body   []byte
	Msg    *jsonrpc.Message // the decoded body of a POST with a single message
}

// clientFake is an httptest server on 127.0.0.1 that records every request and
// answers with the handler the test gives.
type clientFake struct {
	*httptest.Server
	mu      sync.Mutex
	seen    []clientSeen
	handler clientHandler
}

type clientHandler func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message)

func newClientFake(t testing.TB, h clientHandler) *clientFake {
	t.Helper()
	f := &clientFake{handler: h}
	f.Server = testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body)) // handlers may read it again
		s := clientSeen{Method: r.Method, Header: r.Header.Clone(), Body: body}
		if len(body) > 0 && !jsonrpc.IsBatch(body) {
			s.Msg, _ = jsonrpc.Decode(body)
		}
		f.mu.Lock()
		f.seen = append(f.seen, s)
		h := f.handler
		f.mu.Unlock()
		h(w, r, s.Msg)
	}))
	return f
}

// setHandler replaces the handler for the requests that follow.
func (f *clientFake) setHandler(h clientHandler) {
	f.mu.Lock()
	f.handler = h
	f.mu.Unlock()
}

// requests returns the requests received so far with the given HTTP method (all
// when method is empty).
func (f *clientFake) requests(method string) []clientSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []clientSeen
	for _, s := range f.seen {
		if method == "" || s.Method == method {
			out = append(out, s)
		}
	}
	return out
}

// posts returns the POSTs of one JSON-RPC method.
func (f *clientFake) posts(method string) []clientSeen {
	var out []clientSeen
	for _, s := range f.requests(http.MethodPost) {
		if s.Msg != nil && s.Msg.Method == method {
			out = append(out, s)
		}
	}
	return out
}

const clientTestSession = "sess-1"

// clientInitResult is the InitializeResult the fake servers send.
const clientInitResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`

// clientBasic answers the lifecycle like a plain server: initialize with JSON and
// a session id, notifications and responses with 202, GET with 405, DELETE with
// 200. Everything else goes to other, or gets a JSON reply with an empty result.
func clientBasic(other clientHandler) clientHandler {
	return func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		switch {
		case r.Method == http.MethodGet:
			w.Header().Set("Allow", "POST")
			w.WriteHeader(http.StatusMethodNotAllowed)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		case msg != nil && msg.Method == "initialize":
			w.Header().Set(HeaderSessionID, clientTestSession)
			clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, json.RawMessage(clientInitResult))))
		case msg != nil && !msg.IsRequest():
			w.WriteHeader(http.StatusAccepted)
		case other != nil:
			other(w, r, msg)
		case msg != nil:
			clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, nil)))
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}
}

func clientReplyJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// clientStartSSE begins an event stream reply.
func clientStartSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// clientEvent writes one raw event block (without its final blank line) and flushes.
func clientEvent(w http.ResponseWriter, block string) {
	_, _ = io.WriteString(w, block+"\n\n")
	w.(http.Flusher).Flush()
}

// clientDataEvent writes an event whose data is msg, with an id when id is set.
func clientDataEvent(w http.ResponseWriter, id, msg string) {
	if id != "" {
		clientEvent(w, "id: "+id+"\ndata: "+msg)
		return
	}
	clientEvent(w, "data: "+msg)
}

func clientProgress(token string, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`, token, n)
}

// clientDial returns a ClientConn to url, closed at cleanup.
// Its diagnostics are discarded unless opts names a Logger.
func clientDial(t testing.TB, url string, opts *ClientOptions) *ClientConn {
	t.Helper()
	if opts == nil {
		opts = &ClientOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c, err := NewClientConn(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func clientWrite(t testing.TB, ctx context.Context, c *ClientConn, msg string) {
	t.Helper()
	if err := c.Write(ctx, []byte(msg)); err != nil {
		t.Fatalf("Write(%s): %v", msg, err)
	}
}

// clientReadMsg reads and decodes the next message.
func clientReadMsg(t testing.TB, ctx context.Context, c *ClientConn) *jsonrpc.Message {
	t.Helper()
	data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	m, err := jsonrpc.Decode(data)
	if err != nil {
		t.Fatalf("Read returned %s: %v", data, err)
	}
	return m
}

// clientHandshake runs initialize (id 1) and notifications/initialized over c.
func clientHandshake(t testing.TB, ctx context.Context, c *ClientConn) {
	t.Helper()
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(1) || m.Error != nil {
		t.Fatalf("initialize answered %+v", m)
	}
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// clientLogSink records log records at warn level and above.
type clientLogSink struct {
	mu       sync.Mutex
	warnings []string
}

func (s *clientLogSink) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (s *clientLogSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	s.warnings = append(s.warnings, r.Message)
	s.mu.Unlock()
	return nil
}
func (s *clientLogSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *clientLogSink) WithGroup(string) slog.Handler      { return s }

func (s *clientLogSink) messages() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.warnings, "; ")
}

// clientWaitClosed blocks until the request's client went away (the handler's
// context ended), so a handler holding a stream open ends with the test.
func clientWaitClosed(r *http.Request) { <-r.Context().Done() }
