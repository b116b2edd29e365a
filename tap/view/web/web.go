// Package web serves the browser view of `mcpkit tap --web` and `mcpkit tap view
// --web`: an embedded page (no CDN, no build step) with the live timeline, its
// filters, a detail pane and the analysis, fed by Server-Sent Events.
//
// The endpoints are the page (/, /static/...), the event stream (/api/events,
// filtered by its query: method, dir, session, errors=1, minLatency in ms, text),
// one entry's detail (/api/entry?id=N) and the analysis (/api/report). Every
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
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
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
}

// Handler returns the HTTP handler of the page and its API.
func Handler(o Options) http.Handler {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.ReportInterval <= 0 {
		o.ReportInterval = DefaultReportInterval
	}
	s := &server{o: o}
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

type server struct{ o Options }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *server) entry(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.URL.Query().Get("id"), 10, 64)
	if err != nil {
		http.Error(w, "id: not an entry id", http.StatusBadRequest)
		return
	}
	d, ok := s.o.Hub.Detail(id)
	if !ok {
		http.Error(w, "no such entry (it may have been evicted)", http.StatusNotFound)
		return
	}
	writeJSON(w, d)
}

func (s *server) report(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, s.o.Hub.Panel())
}

// pageState is the state event: the hub's state and this page's own losses.
type pageState struct {
	view.State
	// Shown is how many entries match the page's filter.
	Shown int `json:"shown"`
	// Behind counts the changes this page missed because it fell behind (it got a
	// fresh snapshot instead).
	Behind uint64 `json:"behind"`
}

// events streams the timeline to a page: a reset (the newest matching rows), then
// each changed row, the state, and the analysis at most every ReportInterval.
// A page that falls more than the hub remembers behind gets a fresh reset and the
// count of what it missed: nothing is buffered for it.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	f, err := view.ParseFilter(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	hub := s.o.Hub
	watch, stop := hub.Watch()
	defer stop()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: rc}

	version := hub.Version()
	var behind uint64
	reset := func() int {
		rows, matched := hub.Rows(f, s.o.MaxRows)
		if rows == nil {
			rows = []view.Row{}
		}
		st.send("reset", struct {
			Rows    []view.Row `json:"rows"`
			Matched int        `json:"matched"`
		}{rows, matched})
		return matched
	}
	shown := reset()
	st.send("state", pageState{hub.State(), shown, behind})
	st.send("report", hub.Panel())
	lastReport := time.Now()
	reportDue := false
	timer := time.NewTimer(s.o.ReportInterval)
	defer timer.Stop()
	for st.err == nil {
		select {
		case <-r.Context().Done():
			return
		case <-timer.C:
			timer.Reset(s.o.ReportInterval)
			if reportDue {
				st.send("report", hub.Panel())
				lastReport, reportDue = time.Now(), false
			}
		case <-watch:
			ids, now, missed := hub.Since(version)
			version = now
			if missed > 0 {
				behind += missed
				shown = reset()
			} else {
				for _, id := range ids {
					if row, ok := hub.Row(id, f); ok {
						st.send("row", row)
					}
				}
				if len(ids) > 0 {
					_, shown = hub.Rows(f, 0)
				}
			}
			state := hub.State()
			st.send("state", pageState{state, shown, behind})
			reportDue = true
			if state.Ended || time.Since(lastReport) >= s.o.ReportInterval {
				st.send("report", hub.Panel())
				lastReport, reportDue = time.Now(), false
			}
		}
		st.flush()
	}
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
