package web

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/protocol"
)

// maxBody bounds an API request's body.
const maxBody = 1 << 20

// pageCSP is the page's own policy: its embedded assets, its API, and frames
// from the sandbox only (the port is added per request).
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; frame-src "

// guard refuses requests whose Host is not a loopback name (DNS rebinding),
// or, for the API, whose Origin is not the page's own or that lack the token.
func (s *Server) guard(api bool, next http.HandlerFunc) http.HandlerFunc {
	var policy httpguard.Policy
	return func(w http.ResponseWriter, r *http.Request) {
		if err := policy.Check(r); err != nil {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		if api {
			if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
				http.Error(w, "forbidden origin", http.StatusForbidden)
				return
			}
			if r.Method != http.MethodGet && r.Header.Get("X-Mcpkit-Token") != s.token {
				http.Error(w, "missing or wrong token", http.StatusForbidden)
				return
			}
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next(w, r)
	}
}

func (s *Server) pageHandler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.HandleFunc("GET /{$}", s.guard(false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", pageCSP+s.sandboxOrigin(r.Host))
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFileFS(w, r, static, "index.html")
	}))
	mux.HandleFunc("GET /assets/", s.guard(false, func(w http.ResponseWriter, r *http.Request) {
		http.StripPrefix("/assets", files).ServeHTTP(w, r)
	}))
	mux.HandleFunc("GET /api/config", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"token": s.token, "sandbox": s.sandboxOrigin(r.Host), "model": s.opts.Model,
			"yes": s.opts.Yes})
	}))
	mux.HandleFunc("GET /api/servers", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		var st any = []any{}
		if s.opts.Status != nil {
			st = s.opts.Status()
		}
		writeJSON(w, st)
	}))
	mux.HandleFunc("GET /api/events", s.guard(true, s.events))
	mux.HandleFunc("POST /api/send", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Text   string            `json:"text"`
			Attach []host.Attachment `json:"attach"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		if strings.TrimSpace(in.Text) == "" {
			http.Error(w, "empty message", http.StatusBadRequest)
			return
		}
		attached, err := s.opts.Source.Attach(r.Context(), in.Attach)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		names := make([]string, len(in.Attach))
		for i, a := range in.Attach {
			names[i] = a.Server + " " + a.URI
		}
		if !s.send(s.ctx(), in.Text, attached, names) {
			http.Error(w, "a turn is running", http.StatusConflict)
			return
		}
		writeJSON(w, map[string]bool{"ok": true})
	}))
	mux.HandleFunc("POST /api/stop", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		if !s.stopTurn() {
			http.Error(w, "no turn is running", http.StatusConflict)
			return
		}
		writeJSON(w, map[string]bool{"ok": true})
	}))
	mux.HandleFunc("POST /api/approve", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			ID       string `json:"id"`
			Decision string `json:"decision"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		switch in.Decision {
		case "allow", "deny", "always":
		default:
			http.Error(w, "decision: allow, deny or always", http.StatusBadRequest)
			return
		}
		if !s.decide(in.ID, in.Decision) {
			http.Error(w, "no such approval", http.StatusNotFound)
			return
		}
		writeJSON(w, map[string]bool{"ok": true})
	}))
	mux.HandleFunc("POST /api/app", s.guard(true, s.appRequest))
	// The view's document, which the page hands to the sandbox proxy
	// (ui/notifications/sandbox-resource-ready). The token is asked: the
	// document is the server's, for this page only.
	mux.HandleFunc("GET /api/view/{id}", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Mcpkit-Token") != s.token {
			http.Error(w, "missing or wrong token", http.StatusForbidden)
			return
		}
		v := s.viewByID(r.PathValue("id"))
		if v == nil {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"html": v.html, "csp": v.approved})
	}))
	mux.HandleFunc("GET /api/catalog", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, s.catalog(r.Context()))
	}))
	mux.HandleFunc("POST /api/prompt", s.guard(true, func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Server    string            `json:"server"`
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		text, err := s.opts.Source.PromptText(r.Context(), in.Server, in.Name, in.Arguments)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		writeJSON(w, map[string]string{"text": text})
	}))
	return mux
}

// appRequest carries a view's request that the page forwards: tools/call,
// resources/read, ui/update-model-context.
func (s *Server) appRequest(w http.ResponseWriter, r *http.Request) {
	var in struct {
		View   string          `json:"view"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	v := s.viewByID(in.View)
	if v == nil {
		writeJSON(w, map[string]any{"error": appError{-32602, "no such view"}})
		return
	}
	var result any
	var aerr *appError
	switch in.Method {
	case "tools/call":
		var p protocol.CallToolParams
		if err := json.Unmarshal(in.Params, &p); err != nil || p.Name == "" {
			aerr = &appError{-32602, "tools/call: invalid params"}
			break
		}
		result, aerr = s.appCall(r.Context(), v, &p)
	case "resources/read":
		var p protocol.ReadResourceParams
		if err := json.Unmarshal(in.Params, &p); err != nil || p.URI == "" {
			aerr = &appError{-32602, "resources/read: invalid params"}
			break
		}
		result, aerr = s.appRead(r.Context(), v, p.URI)
	case "ui/update-model-context":
		s.mu.Lock()
		s.context[v.id] = string(in.Params)
		s.mu.Unlock()
		result = map[string]any{}
	default:
		aerr = &appError{-32601, "method not found: " + in.Method}
	}
	if aerr != nil {
		writeJSON(w, map[string]any{"error": aerr})
		return
	}
	writeJSON(w, map[string]any{"result": result})
}

// events streams the conversation's events as server-sent events, from the
// Last-Event-ID (or ?from=) on: a page that reloads gets the conversation.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
	if f := r.URL.Query().Get("from"); f != "" {
		from, _ = strconv.Atoi(f)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	httpguard.ClearBodyDeadline(w)
	wake := s.hub.subscribe()
	defer s.hub.unsubscribe(wake)
	for {
		evs, next, closed := s.hub.since(from)
		for i, b := range evs {
			fmt.Fprintf(w, "id: %d\ndata: %s\n\n", next-len(evs)+i+1, b)
		}
		from = next
		fl.Flush()
		if closed {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case _, ok := <-wake:
			if !ok {
				return
			}
		}
	}
}

// sandboxHandler serves the views' sandbox proxy (the MCP Apps spec's, for
// a host that is a web page): GET /proxy/{id}?parent=ORIGIN is a document on
// the sandbox origin, framed only by the page at ORIGIN, with the policy the
// view's resource declared; it loads the view the page sends it into an inner
// iframe, which inherits that policy, and relays the messages.
func (s *Server) sandboxHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /proxy/{id}", s.guard(false, func(w http.ResponseWriter, r *http.Request) {
		v := s.viewByID(r.PathValue("id"))
		if v == nil {
			http.NotFound(w, r)
			return
		}
		parent, ok := s.pageOrigin(r.URL.Query().Get("parent"))
		if !ok {
			http.Error(w, "parent: not this host's page", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", v.csp+"; frame-ancestors "+parent)
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(strings.Replace(proxyHTML, "{{PAGE_ORIGIN}}", parent, 1)))
	}))
	return mux
}

// pageOrigin returns origin when it is this host's page's: http, a loopback
// name, the page's port, nothing else.
func (s *Server) pageOrigin(origin string) (string, bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		u.Port() != s.pagePort || !httpguard.IsLoopbackHost(u.Host) || !loopbackName.MatchString(u.Hostname()) {
		return "", false
	}
	return "http://" + u.Host, true
}

// loopbackName is the characters a page's host name may have in the
// proxy's script and policy.
var loopbackName = regexp.MustCompile(`^[A-Za-z0-9.:-]+$`)

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v); err != nil {
		http.Error(w, "bad JSON: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
