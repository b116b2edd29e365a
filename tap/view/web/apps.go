package web

import (
	"net/http"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/tap/view"
)

// previewPolicy is the Content-Security-Policy of a previewed view: the
// restrictive default of MCP Apps (inline scripts and styles, data: images;
// no network), whatever domains the view declares — a preview runs no server
// behind the view, so it has nothing to fetch, and a capture may hold a view
// from a server nobody vetted —, framed by the page only, and sandboxed
// (an opaque origin, scripts only) even when opened on its own.
var previewPolicy = apps.ContentSecurityPolicy(nil) + "; frame-ancestors 'self'; sandbox allow-scripts"

// entryPage is the detail of an entry and, when the entry shows an MCP App's
// view the capture holds, what previews it.
type entryPage struct {
	view.Detail
	Preview *view.AppPreview `json:"preview,omitempty"`
}

// catalog sends the duplicate tool names and the views of the capture.
func (s *server) catalog(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, view.CatalogOf(s.o.Hub.Model().Snapshot()))
}

// app serves the document of the view ?uri= that the resources/read entry
// ?entry= holds, for the page's preview frame: under previewPolicy, as HTML
// whatever the server wrote.
func (s *server) app(w http.ResponseWriter, r *http.Request) {
	e, ok := s.entryOf(w, r, "entry")
	if !ok {
		return
	}
	doc, _, err := view.AppDocument(e, r.URL.Query().Get("uri"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", previewPolicy)
	h.Del("X-Frame-Options") // frame-ancestors 'self' says it: the page may frame it
	h.Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(doc))
}
