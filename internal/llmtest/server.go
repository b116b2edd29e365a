// Package llmtest starts, inside a test, HTTP servers that speak the exact
// wire formats of the OpenAI Chat Completions and Anthropic Messages APIs,
// scripted per test: the n-th request gets the n-th reply. Replies are
// streams built like real captures (OpenAI chat.completion.chunk events with
// tool-call arguments cut mid-token, Anthropic's message_start ...
// message_stop with input_json_delta fragments), written to the connection in
// small pieces that end anywhere, even inside a line, as a network delivers
// them.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Reply is a scripted answer.
type Reply struct {
	// Status is the HTTP status; zero means 200.
	Status int
	// Header holds extra response headers (Retry-After, say).
	Header map[string]string
	// Body is the answer: a text/event-stream body when Status is 200 (see
	// the fixture builders), else an error body (JSON).
	Body string
	// Check, when set, looks at the request's decoded JSON body.
	Check func(t testing.TB, body map[string]any)
}

// Request is a request the server received.
type Request struct {
	// Path is the URL path.
	Path string
	// Query is the URL's query, as sent.
	Query string
	// Header is the request's header.
	Header http.Header
	// Body is the raw body.
	Body []byte
	// JSON is the decoded body.
	JSON map[string]any
}

// Server is a scripted provider endpoint on 127.0.0.1, closed when the test
// ends.
type Server struct {
	// URL is the server's root URL.
	URL string

	t       testing.TB
	path    string
	headers map[string]string // headers every request must carry
	mu      sync.Mutex
	replies []Reply
	reqs    []Request
}

// NewOpenAI starts a Chat Completions endpoint: POST /v1/chat/completions,
// with "Authorization: Bearer KEY" when key is not empty. Its base URL (for
// llm/openai) is URL + "/v1".
func NewOpenAI(t testing.TB, key string, replies ...Reply) *Server {
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	return start(t, "/v1/chat/completions", h, replies)
}

// NewAnthropic starts a Messages endpoint: POST /v1/messages, with the
// x-api-key header and anthropic-version 2023-06-01.
func NewAnthropic(t testing.TB, key string, replies ...Reply) *Server {
	return start(t, "/v1/messages", map[string]string{"X-Api-Key": key, "Anthropic-Version": "2023-06-01"}, replies)
}

func start(t testing.TB, path string, headers map[string]string, replies []Reply) *Server {
	s := &Server{t: t, path: path, headers: headers, replies: replies}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// BaseURL is the base URL a client of this server is configured with.
func (s *Server) BaseURL() string {
	if s.path == "/v1/chat/completions" {
		return s.URL + "/v1"
	}
	return s.URL
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is how many scripted replies have not been used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &req.JSON)
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	var reply *Reply
	if len(s.replies) > 0 {
		reply = &s.replies[0]
		s.replies = s.replies[1:]
	}
	s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != s.path {
		s.t.Errorf("llmtest: unexpected %s %s (want POST %s)", r.Method, r.URL.Path, s.path)
		writeError(w, http.StatusNotFound, "not_found_error", "no route "+r.URL.Path)
		return
	}
	for k, v := range s.headers {
		if got := r.Header.Get(k); got != v {
			s.t.Errorf("llmtest: header %s is %q, want %q", k, got, v)
			writeError(w, http.StatusUnauthorized, "authentication_error", "bad "+k)
			return
		}
	}
	if req.JSON == nil {
		s.t.Errorf("llmtest: the request body is not a JSON object: %s", body)
	}
	if reply == nil {
		s.t.Errorf("llmtest: request %d is beyond the script: %s", len(s.Requests()), body)
		writeError(w, http.StatusInternalServerError, "api_error", "the test script has no more replies")
		return
	}
	if reply.Check != nil {
		reply.Check(s.t, req.JSON)
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	writeInPieces(w, r, reply.Body)
}

// writeInPieces writes body in pieces of 1 to 61 bytes, flushing each, so
// that pieces end inside lines, JSON tokens and CRLF pairs alike.
func writeInPieces(w http.ResponseWriter, r *http.Request, body string) {
	rc := http.NewResponseController(w)
	sizes := []int{7, 61, 1, 23, 2, 40, 13, 3, 31, 5}
	for i := 0; len(body) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(body))
		if _, err := io.WriteString(w, body[:n]); err != nil || r.Context().Err() != nil {
			return
		}
		_ = rc.Flush()
		body = body[n:]
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

// Fragments cuts s into the pieces a model streams it in: two to six bytes
// each, cut without regard for JSON tokens (inside keys, strings, numbers,
// escapes), as providers' tokenizers do.
func Fragments(s string) []string {
	sizes := []int{2, 4, 3, 6, 1, 5}
	var out []string
	for i := 0; len(s) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// Messages returns the "messages" of a decoded request body.
func Messages(body map[string]any) []map[string]any {
	list, _ := body["messages"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// lines joins SSE lines with LF.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
