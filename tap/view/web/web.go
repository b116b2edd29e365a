// Package web serves the browser view of `mcpkit tap --web` and `mcpkit tap view
// --web`: an embedded page (no CDN, no build step) with the live timeline, its
// filters, a detail pane and the analysis, fed by Server-Sent Events.
//
// The endpoints are the page (/, /static/...), the event stream (/api/events,
// filtered by its query: method, dir, session, errors=1, minLatency in ms, text),
// one entry's detail (/api/entry?id=N), the analysis (/api/report), one session
// drawn as a sequence of steps between client and server (/api/sequence?session=ID) and the token
// cost of the capture's tool lists (/api/tokens?format=openai|anthropic&encoding=
// o200k_base|cl100k_base, counted when asked: the page asks when its token tab
// shows, and again when a tools/list answer arrives), the servers' duplicate tool
// names and MCP App views (/api/catalog), and a view's document for a static
// preview (/app?entry=N&uri=ui://…, see apps.go). Every
// request passes the Host/Origin policy of package httpguard (loopback hosts only
// on a loopback listener, DNS rebinding refused) and no response carries CORS
// headers: captures may hold secrets, so no other origin may read them.
package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/llm/tokens"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

//go:embed static
var static embed.FS

// Defaults of Options.
const (
	// DefaultMaxRows is how many of the newest matching entries a page gets when it
	// (re)loads; later entries arrive one by one.
	DefaultMaxRows = 2000
	// DefaultReportInterval is how often at most a page gets a fresh analysis.
	DefaultReportInterval = time.Second
	// DefaultMaxPages is how many pages may follow the timeline at once.
	DefaultMaxPages = 16
	// writeTimeout bounds one write to a page: a page that stops reading is
	// dropped rather than held.
	writeTimeout = 30 * time.Second
)

// Options configures a Handler.
type Options struct {
	// Hub is the timeline the page shows.
	Hub *view.Hub
	// Policy is the Host/Origin policy; the zero Policy is loopback-only.
	Policy httpguard.Policy
	// MaxRows and ReportInterval: zero means the defaults.
	MaxRows        int
	ReportInterval time.Duration
	// MaxPages bounds the live event streams (open pages) at once; one more
	// gets 503 with Retry-After. Each costs a filter pass over the timeline per
	// update, taken from the same CPU as the tap's relay. Zero means
	// DefaultMaxPages.
	MaxPages int
}

// Handler returns the HTTP handler of the page and its API.
func Handler(o Options) http.Handler {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.ReportInterval <= 0 {
		o.ReportInterval = DefaultReportInterval
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	s := &server{o: o, pages: make(chan struct{}, o.MaxPages)}
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	mux.Handle("GET /static/", files)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, sub, "index.html")
	})
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/entry", s.entry)
	mux.HandleFunc("GET /api/report", s.report)
	mux.HandleFunc("GET /api/sequence", s.sequence)
	mux.HandleFunc("GET /api/tokens", s.tokens)
	mux.HandleFunc("GET /api/catalog", s.catalog)
	mux.HandleFunc("GET /app", s.app)
	return guard(&o.Policy, mux)
}

// guard applies the Host/Origin policy and the headers every answer carries.
func guard(p *httpguard.Policy, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := p.Check(r); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

type server struct {
	o     Options
	pages chan struct{} // a token per live event stream
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// entryOf returns the entry whose id the query parameter param holds, or
// answers why not.
func (s *server) entryOf(w http.ResponseWriter, r *http.Request, param string) (*timeline.Entry, bool) {
	id, err := view.ParseEntryID(r.URL.Query().Get(param))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	e, ok := s.o.Hub.Model().Entry(id)
	if !ok {
		http.Error(w, "no such entry (it may have been evicted)", http.StatusNotFound)
	}
	return e, ok
}

func (s *server) entry(w http.ResponseWriter, r *http.Request) {
	e, ok := s.entryOf(w, r, "id")
	if !ok {
		return
	}
	p := entryPage{Detail: view.DetailOf(e)}
	p.Preview, _ = view.PreviewOf(s.o.Hub.Model().Snapshot(), e)
	writeJSON(w, p)
}

func (s *server) report(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, view.PanelOf(s.o.Hub.Model().Snapshot()))
}

// sequence draws one session (?session=ID; the first when absent).
func (s *server) sequence(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, view.SequenceOf(s.o.Hub.Model().Snapshot(), r.URL.Query().Get("session")))
}

// tokens counts what the capture's tool lists cost in a model's context; the
// first request loads the tokenizer (in this request's goroutine).
func (s *server) tokens(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := view.TokensOf(s.o.Hub.Model().Snapshot(), tokens.Format(q.Get("format")), tokens.Encoding(q.Get("encoding")))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, p)
}

// pageState is the state event: the hub's state and this page's own view of it.
type pageState struct {
	view.State
	// Shown is how many entries match the page's filter.
	Shown int `json:"shown"`
	// Behind counts the matching entries that came and went out of the page's
	// window (MaxRows) before the page could be sent them: it was too slow.
	Behind int64 `json:"behind"`
}

// minUpdateInterval spaces a page's updates: changes in between are sent together.
const minUpdateInterval = 50 * time.Millisecond

// events streams the timeline to a page: a reset (the newest MaxRows matching
// rows), then the rows that changed, appeared or left the window, the state, and
// the analysis at most every ReportInterval. Nothing is queued for a page: each
// update compares the page's window with a fresh snapshot, so a page that falls
// behind gets the newest state and the count of entries it never saw (Behind).
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	f, err := view.ParseFilter(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case s.pages <- struct{}{}:
		defer func() { <-s.pages }()
	default:
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("too many open pages (at most %d): close one", s.o.MaxPages), http.StatusServiceUnavailable)
		return
	}
	hub, model := s.o.Hub, s.o.Hub.Model()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w)}

	win := &window{max: s.o.MaxRows, shown: map[timeline.EntryID]*timeline.Entry{}}
	var lastReport time.Time
	reportDue := true
	tick := time.NewTimer(0)
	defer tick.Stop()
	ready := false // the tick passed since the last update
	first := true
	changed := model.Changed()
	for st.err == nil {
		if first || (ready && changed == nil) {
			changed = model.Changed() // taken before the snapshot: no change is missed
			snap := model.Snapshot()
			win.update(st, snap.Apply(f), f, first)
			st.send("state", pageState{hub.State(snap), win.matched, win.behind})
			if reportDue && (hub.Ended() || time.Since(lastReport) >= s.o.ReportInterval) {
				st.send("report", view.PanelOf(snap))
				lastReport, reportDue = time.Now(), false
			}
			st.flush()
			first, ready = false, false
			tick.Reset(minUpdateInterval)
		}
		var ended <-chan struct{}
		if !hub.Ended() {
			ended = hub.Done()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			ready = true
			if reportDue {
				if rest := s.o.ReportInterval - time.Since(lastReport); rest > 0 {
					tick.Reset(rest) // the report is due then
				} else {
					changed = nil // send it now
				}
			}
		case <-changed:
			changed, reportDue = nil, true
		case <-ended:
			changed, reportDue = nil, true
		}
	}
}

// window is what one page shows: the newest max matching entries.
type window struct {
	max     int
	shown   map[timeline.EntryID]*timeline.Entry
	newest  timeline.EntryID // the newest entry the page was told of
	matched int
	behind  int64
}

// update sends the page what changed between its window and entries (the
// matching entries of a fresh snapshot, oldest first): a reset the first time,
// then the rows that appeared or changed and, with Match false, those that left.
func (w *window) update(st *stream, entries []*timeline.Entry, f timeline.Filter, reset bool) {
	w.matched = len(entries)
	if len(entries) > w.max {
		// Entries newer than the page had seen that fall before the window were
		// never sent: the page was behind.
		for _, e := range entries[:len(entries)-w.max] {
			if !reset && after(e.ID, w.newest) {
				w.behind++
			}
		}
		entries = entries[len(entries)-w.max:]
	}
	next := make(map[timeline.EntryID]*timeline.Entry, len(entries))
	rows := make([]view.Row, 0, len(entries))
	for _, e := range entries {
		next[e.ID] = e
		if w.shown[e.ID] != e {
			rows = append(rows, view.RowOf(e, true))
		}
		if after(e.ID, w.newest) {
			w.newest = e.ID
		}
	}
	if reset {
		st.send("reset", struct {
			Rows []view.Row `json:"rows"`
		}{rows})
	} else {
		for id, e := range w.shown {
			if _, ok := next[id]; !ok {
				st.send("row", view.RowOf(e, false))
			}
		}
		for i := range rows {
			st.send("row", rows[i])
		}
	}
	w.shown = next
}

func after(a, b timeline.EntryID) bool {
	return a.Seq > b.Seq || (a.Seq == b.Seq && a.Part > b.Part)
}

// stream writes SSE events, each within writeTimeout; the first error ends it.
type stream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
	err error
}

func (s *stream) send(event string, v any) {
	if s.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		s.err = fmt.Errorf("encoding the %s event: %w", event, err)
		return
	}
	s.buf = append(s.buf[:0], "event: "...)
	s.buf = append(s.buf, event...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, data...) // JSON holds no raw line break
	s.buf = append(s.buf, "\n\n"...)
	if err := s.rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
		return
	}
	if _, err := s.w.Write(s.buf); err != nil {
		s.err = err
	}
}

func (s *stream) flush() {
	if s.err == nil {
		if err := s.rc.Flush(); err != nil {
			s.err = err
		}
	}
}
