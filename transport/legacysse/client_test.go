package legacysse_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// stubServer serves GET /sse with stream and POST /messages with message.
func stubServer(t *testing.T, stream, message http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", stream)
	if message != nil {
		mux.HandleFunc("POST /messages", message)
	}
	return testkit.NewServer(t, mux)
}

// sendEvents writes raw event-stream text and flushes.
func sendEvents(w http.ResponseWriter, text string) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	_, _ = io.WriteString(w, text)
	_ = http.NewResponseController(w).Flush()
}

func dial(t *testing.T, url string, opts *legacysse.ClientOptions) transport.Conn {
	t.Helper()
	if opts == nil {
		opts = &legacysse.ClientOptions{}
	}
	opts.Logger = quiet
	conn, err := legacysse.NewClientConn(testkit.Context(t), url, opts)
	if err != nil {
		t.Fatalf("NewClientConn: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// relay serves a proxy in front of target (a server's base URL) that passes requests
// and streamed responses through as they come, except POSTs whose body refuse
// matches, which it answers 502 "boom".
func relay(t testing.TB, target string, refuse func(body []byte) bool) *httptest.Server {
	t.Helper()
	return testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if refuse != nil && refuse(body) {
				http.Error(w, "boom", http.StatusBadGateway)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), r.Body)
		req.Header = r.Header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				_, _ = w.Write(buf[:n])
				_ = http.NewResponseController(w).Flush()
			}
			if err != nil {
				return
			}
		}
	}))
}

func TestRefusedPostFailsOneRequest(t *testing.T) {
	url, _ := serveDemo(t, nil)
	proxy := relay(t, strings.TrimSuffix(url, "/sse"), func(body []byte) bool { return bytes.Contains(body, []byte("refuse-me")) })

	cs, _ := connectClient(t, proxy.URL+"/sse")
	_, err := cs.CallTool(testkit.Context(t), "echo", map[string]any{"message": "refuse-me"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || !strings.Contains(rpcErr.Message, "502") {
		t.Fatalf("refused call: %v, want a -32603 error naming HTTP 502", err)
	}
	var data struct {
		Status int    `json:"httpStatus"`
		Body   string `json:"body"`
	}
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.Status != 502 || data.Body != "boom" {
		t.Errorf("error data %s", rpcErr.Data)
	}
	// The connection goes on.
	if res := callTool(t, cs, "echo", map[string]any{"message": "again"}); res.Content[0].Text != "hello again" {
		t.Errorf("echo after a refusal = %+v", res)
	}
}

func TestRefusalRepliesKeepIDs(t *testing.T) {
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, "event: endpoint\ndata: /messages\n\n")
		<-r.Context().Done()
	}, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusNotFound)
	})
	conn := dial(t, ts.URL+"/sse", nil)
	ctx := testkit.Context(t)
	for _, id := range []string{`0`, `"0"`, `"abc"`} {
		if err := conn.Write(ctx, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)); err != nil {
			t.Fatalf("Write of a refused request = %v, want nil", err)
		}
		reply, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal(reply, &m); err != nil || string(m.ID) != id || m.Error == nil {
			t.Errorf("reply %s, want an error for id %s", reply, id)
		}
	}
	// A batch gets one reply per request in it.
	if err := conn.Write(ctx, []byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"b"}]`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":1`, `"id":2`} {
		if reply, err := conn.Read(ctx); err != nil || !strings.Contains(string(reply), want) {
			t.Errorf("batch reply %s %v, want %s", reply, err, want)
		}
	}
	// A notification has nobody to answer: Write reports the refusal.
	err := conn.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	var serr *legacysse.StatusError
	if !errors.As(err, &serr) || serr.StatusCode != http.StatusNotFound || serr.Method != "POST" || serr.Body != "gone" {
		t.Errorf("refused notification: %v, want a POST 404 StatusError", err)
	}
}

func TestDialFailures(t *testing.T) {
	silent := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, ": ping\n\nevent: message\ndata: {}\n\n") // never an endpoint
		<-r.Context().Done()
	}, nil)
	start := time.Now()
	_, err := legacysse.NewClientConn(testkit.Context(t), silent.URL+"/sse", &legacysse.ClientOptions{EndpointTimeout: 50 * time.Millisecond, Logger: quiet})
	if !errors.Is(err, legacysse.ErrEndpointTimeout) {
		t.Errorf("no endpoint: %v, want ErrEndpointTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("NewClientConn took %v despite a 50ms endpoint timeout", d)
	}

	ctx, cancel := context.WithCancel(testkit.Context(t))
	cancel()
	if _, err := legacysse.NewClientConn(ctx, silent.URL+"/sse", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled NewClientConn: %v, want context.Canceled", err)
	}

	notFound := testkit.NewServer(t, http.NotFoundHandler())
	var serr *legacysse.StatusError
	if _, err := legacysse.NewClientConn(testkit.Context(t), notFound.URL+"/sse", nil); !errors.As(err, &serr) || serr.StatusCode != 404 || serr.Method != "GET" {
		t.Errorf("404 stream: %v, want a GET 404 StatusError", err)
	}

	jsonServer := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}, nil)
	if _, err := legacysse.NewClientConn(testkit.Context(t), jsonServer.URL+"/sse", nil); err == nil || !strings.Contains(err.Error(), "content type") {
		t.Errorf("JSON answer: %v, want a content type error", err)
	}

	elsewhere := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, "event: endpoint\ndata: http://attacker.example/collect\n\n")
		<-r.Context().Done()
	}, nil)
	if _, err := legacysse.NewClientConn(testkit.Context(t), elsewhere.URL+"/sse", &legacysse.ClientOptions{Logger: quiet}); err == nil || !strings.Contains(err.Error(), "origin") {
		t.Errorf("cross-origin endpoint: %v, want it refused", err)
	}
	conn, err := legacysse.NewClientConn(testkit.Context(t), elsewhere.URL+"/sse", &legacysse.ClientOptions{AllowCrossOriginEndpoint: true, Logger: quiet})
	if err != nil {
		t.Errorf("cross-origin endpoint allowed by option: %v", err)
	} else {
		_ = conn.Close()
	}

	if _, err := legacysse.NewClientConn(testkit.Context(t), "http://127.0.0.1:1/sse", &legacysse.ClientOptions{Logger: quiet}); err == nil {
		t.Error("NewClientConn to a closed port succeeded")
	}
}

func TestHeadersOnEveryRequest(t *testing.T) {
	got := make(chan string, 2)
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		got <- "GET " + r.Header.Get("Authorization") + " " + r.Header.Get("Accept")
		sendEvents(w, "event: endpoint\ndata: /messages\n\n")
		<-r.Context().Done()
	}, func(w http.ResponseWriter, r *http.Request) {
		got <- "POST " + r.Header.Get("Authorization") + " " + r.Header.Get("Content-Type")
		w.WriteHeader(http.StatusAccepted)
	})
	conn := dial(t, ts.URL+"/sse", &legacysse.ClientOptions{Header: http.Header{"Authorization": {"Bearer t0k"}}})
	if err := conn.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GET Bearer t0k text/event-stream", "POST Bearer t0k application/json"} {
		if g := <-got; g != want {
			t.Errorf("request %q, want %q", g, want)
		}
	}
}

func TestReadAfterServerEndsStream(t *testing.T) {
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, "event: endpoint\ndata: /messages\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"last\"}\n\n")
	}, nil)
	conn := dial(t, ts.URL+"/sse", nil)
	ctx := testkit.Context(t)
	if msg, err := conn.Read(ctx); err != nil || !strings.Contains(string(msg), "last") {
		t.Fatalf("Read = %q %v", msg, err)
	}
	if _, err := conn.Read(ctx); err != io.EOF {
		t.Errorf("Read at the end of the stream = %v, want io.EOF", err)
	}
}

func TestReadAfterStreamIsCut(t *testing.T) {
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		rw, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer rw.Close()
		b := bufio.NewWriter(rw)
		body := "event: endpoint\ndata: /messages\n\n"
		_, _ = io.WriteString(b, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		_, _ = io.WriteString(b, strconv.FormatInt(int64(len(body)), 16)+"\r\n"+body+"\r\n")
		_, _ = io.WriteString(b, "40\r\nevent: message\ndata: {\"half") // the connection dies mid-chunk
		_ = b.Flush()
	}, nil)
	conn := dial(t, ts.URL+"/sse", nil)
	_, err := conn.Read(testkit.Context(t))
	if err == nil || err == io.EOF {
		t.Errorf("Read after a cut stream = %v, want an error other than io.EOF", err)
	}
}

func TestOversizedMessageIsSkipped(t *testing.T) {
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		big := `{"jsonrpc":"2.0","method":"big","params":{"p":"` + strings.Repeat("x", 200) + `"}}`
		sendEvents(w, "event: endpoint\ndata: /messages\n\nevent: message\ndata: "+big+"\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"small\"}\n\n")
		<-r.Context().Done()
	}, nil)
	conn := dial(t, ts.URL+"/sse", &legacysse.ClientOptions{MaxMessageSize: 100})
	ctx := testkit.Context(t)
	if _, err := conn.Read(ctx); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Errorf("Read of an oversized message = %v, want ErrMessageTooLarge", err)
	}
	if msg, err := conn.Read(ctx); err != nil || !strings.Contains(string(msg), "small") {
		t.Errorf("Read after the oversized message = %q %v", msg, err)
	}
}

func TestCloseUnblocksReadAndWrite(t *testing.T) {
	posted := make(chan struct{})
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, "event: endpoint\ndata: /messages\n\n")
		<-r.Context().Done()
	}, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // so that the server notices the client leaving
		close(posted)
		<-r.Context().Done() // never answers
	})
	conn := dial(t, ts.URL+"/sse", nil)
	readErr := make(chan error, 1)
	go func() { _, err := conn.Read(context.Background()); readErr <- err }()
	writeErr := make(chan error, 1)
	go func() { writeErr <- conn.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"x"}`)) }()
	<-posted

	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan error{"Read": readErr, "Write": writeErr} {
		select {
		case err := <-ch:
			if name == "Read" && err != io.EOF || name == "Write" && !errors.Is(err, io.ErrClosedPipe) {
				t.Errorf("pending %s after Close = %v", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("pending %s not unblocked by Close", name)
		}
	}
	if _, err := conn.Read(testkit.Context(t)); err != io.EOF {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
	if err := conn.Write(testkit.Context(t), []byte(`{}`)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write after Close = %v, want io.ErrClosedPipe", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestReadHonoursContext(t *testing.T) {
	ts := stubServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, "event: endpoint\ndata: /messages\n\n")
		<-r.Context().Done()
	}, nil)
	conn := dial(t, ts.URL+"/sse", nil)
	ctx, cancel := context.WithCancel(testkit.Context(t))
	cancel()
	if _, err := conn.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context = %v", err)
	}
}

// TestClientClosesSession checks the whole loop: closing the mcp client ends the
// stream, and the handler frees the session.
func TestClientClosesSession(t *testing.T) {
	url, h := serveDemo(t, nil)
	cs, _ := connectClient(t, url)
	if h.SessionCount() != 1 {
		t.Fatalf("SessionCount = %d", h.SessionCount())
	}
	_ = cs.Close()
	h.waitFreed(t)
	if _, err := cs.ListTools(testkit.Context(t), nil); err == nil {
		t.Error("a call on a closed session succeeded")
	}
}
