package export

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the members this
// export writes. Members whose name starts with "_" are custom, as the spec allows.
type (
	harFile struct {
		Log harLog `json:"log"`
	}
	harLog struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Pages   []harPage  `json:"pages"`
		Entries []harEntry `json:"entries"`
		Comment string     `json:"comment,omitempty"`
	}
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harPage struct {
		StartedDateTime string         `json:"startedDateTime"`
		ID              string         `json:"id"`
		Title           string         `json:"title"`
		PageTimings     harPageTimings `json:"pageTimings"`
	}
	harPageTimings struct {
		OnContentLoad float64 `json:"onContentLoad"`
		OnLoad        float64 `json:"onLoad"`
	}
	harEntry struct {
		Pageref         string      `json:"pageref,omitempty"`
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
		MCPKit          *harNote    `json:"_mcpkit,omitempty"`
	}
	harRequest struct {
		Method      string       `json:"method"`
		URL         string       `json:"url"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []harNV      `json:"cookies"`
		Headers     []harNV      `json:"headers"`
		QueryString []harNV      `json:"queryString"`
		PostData    *harPostData `json:"postData,omitempty"`
		HeadersSize int64        `json:"headersSize"`
		BodySize    int64        `json:"bodySize"`
	}
	harPostData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	harResponse struct {
		Status      int        `json:"status"`
		StatusText  string     `json:"statusText"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []harNV    `json:"cookies"`
		Headers     []harNV    `json:"headers"`
		Content     harContent `json:"content"`
		RedirectURL string     `json:"redirectURL"`
		HeadersSize int64      `json:"headersSize"`
		BodySize    int64      `json:"bodySize"`
	}
	harContent struct {
		Size     int64  `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
		Comment  string `json:"comment,omitempty"`
	}
	harNV struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	harTimings struct {
		Blocked float64 `json:"blocked"`
		DNS     float64 `json:"dns"`
		Connect float64 `json:"connect"`
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
	// harNote is the custom "_mcpkit" member of an entry.
	harNote struct {
		Synthetic bool     `json:"synthetic,omitempty"`
		Transport string   `json:"transport,omitempty"`
		Session   string   `json:"session,omitempty"`
		Dir       string   `json:"dir,omitempty"`
		Exchange  uint64   `json:"exchange,omitempty"`
		Events    []string `json:"events,omitempty"`
		Note      string   `json:"note,omitempty"`
	}
)

// StdioNote is the note on the synthetic entries of a stdio capture.
const StdioNote = "synthetic: stdio carries no HTTP; this entry is one JSON-RPC request (postData) and its response (content), timed from request to response"

// HAR writes the capture (its header h and records recs) to w as a HAR 1.2 log.
//
// An HTTP capture gives one entry per HTTP exchange: the request with its headers
// and body (the client's JSON-RPC message or batch), the response with its status,
// headers and body; a response that was an event stream has the mime type
// text/event-stream and, as text, the events relayed (id, event and data lines).
// A stdio capture gives one synthetic entry per request: POST to
// http://stdio.invalid/METHOD with the request as body and the response (status
// 200; 0 when none came) as content, marked in "_mcpkit". Notifications and
// stderr lines of a stdio capture have no entry. Headers, paths and bodies are
// written as the capture holds them, redacted or not.
func HAR(w io.Writer, h capture.Header, recs []*capture.Record) error {
	f := harFile{Log: harLog{
		Version: "1.2",
		Creator: harCreator{Name: "mcpkit tap export", Version: capture.Format},
		Pages:   []harPage{},
		Entries: []harEntry{},
	}}
	if h.Tool != "" {
		f.Log.Comment = "captured by " + h.Tool
	}
	if h.Redacted {
		f.Log.Comment = strings.TrimPrefix(f.Log.Comment+"; secrets redacted", "; ")
	}
	if h.Mode == "stdio" || (h.Mode == "" && !hasHTTP(recs)) {
		f.Log.Entries = stdioEntries(recs)
	} else {
		f.Log.Entries = httpEntries(h, recs)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("export: writing HAR: %w", err)
	}
	return nil
}

func hasHTTP(recs []*capture.Record) bool {
	for _, r := range recs {
		if r.HTTP != nil {
			return true
		}
	}
	return false
}

func harTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z07:00") }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stdioEntries makes one synthetic entry per request of a stdio capture.
func stdioEntries(recs []*capture.Record) []harEntry {
	pairs, _ := pairRequests(recs)
	out := make([]harEntry, 0, len(pairs))
	for _, x := range pairs {
		e := harEntry{
			StartedDateTime: harTime(x.Time),
			Request: harRequest{
				Method: http.MethodPost, URL: "http://stdio.invalid/" + x.Method, HTTPVersion: "HTTP/1.1",
				Cookies: []harNV{}, Headers: []harNV{}, QueryString: []harNV{},
				PostData:    &harPostData{MimeType: "application/json", Text: string(x.Message.Raw)},
				HeadersSize: -1, BodySize: int64(len(x.Message.Raw)),
			},
			Response: harResponse{
				HTTPVersion: "HTTP/1.1", Cookies: []harNV{}, Headers: []harNV{},
				Content: harContent{MimeType: "application/json"}, HeadersSize: -1, BodySize: -1,
			},
			Timings: harTimings{Blocked: -1, DNS: -1, Connect: -1},
			MCPKit:  &harNote{Synthetic: true, Transport: x.Transport, Session: x.Record.Session, Dir: x.Dir, Note: StdioNote},
		}
		if x.Response != nil {
			lat := ms(x.Latency)
			e.Time, e.Timings.Wait = lat, lat
			e.Response.Status, e.Response.StatusText = http.StatusOK, http.StatusText(http.StatusOK)
			e.Response.Content.Text = string(x.Response.Raw)
			e.Response.Content.Size = int64(len(x.Response.Raw))
			e.Response.BodySize = e.Response.Content.Size
		} else {
			e.Comment = "no response was captured"
		}
		out = append(out, e)
	}
	return out
}

// httpEntries makes one entry per HTTP exchange of an HTTP capture.
func httpEntries(h capture.Header, recs []*capture.Record) []harEntry {
	byExch := map[uint64][]*capture.Record{}
	var order []uint64
	for _, r := range recs {
		if r.HTTP == nil || r.HTTP.Exchange == 0 {
			continue
		}
		n := r.HTTP.Exchange
		if byExch[n] == nil {
			order = append(order, n)
		}
		byExch[n] = append(byExch[n], r)
	}
	out := make([]harEntry, 0, len(order))
	for _, n := range order {
		out = append(out, httpEntry(h, n, byExch[n]))
	}
	return out
}

// httpEntry builds the entry of one exchange from its records (in order).
func httpEntry(h capture.Header, n uint64, rs []*capture.Record) harEntry {
	first := rs[0]
	e := harEntry{
		StartedDateTime: harTime(first.Time),
		Request: harRequest{
			Method: first.HTTP.Method, HTTPVersion: "HTTP/1.1",
			Cookies: []harNV{}, Headers: []harNV{}, QueryString: []harNV{}, HeadersSize: -1, BodySize: 0,
		},
		Response: harResponse{HTTPVersion: "HTTP/1.1", Cookies: []harNV{}, Headers: []harNV{}, HeadersSize: -1, BodySize: -1},
		Timings:  harTimings{Blocked: -1, DNS: -1, Connect: -1},
		MCPKit:   &harNote{Transport: first.Transport, Session: first.Session, Exchange: n},
	}
	var reqBody, respBody []string
	var reqType string
	var respStart, last time.Time
	stream := false
	for _, r := range rs {
		last = r.Time
		if r.Dir == capture.ClientToServer {
			if len(e.Request.Headers) == 0 && r.HTTP.Headers != nil {
				e.Request.Headers = nameValues(r.HTTP.Headers)
			}
			if r.IsMessage() {
				reqBody = append(reqBody, body(r))
				reqType = r.HTTP.ContentType
			}
			if r.Kind != "" {
				e.MCPKit.Events = append(e.MCPKit.Events, event(r))
			}
			continue
		}
		if respStart.IsZero() {
			respStart = r.Time
		}
		if r.HTTP.Status != 0 && e.Response.Status == 0 {
			e.Response.Status = r.HTTP.Status
		}
		if len(e.Response.Headers) == 0 && r.HTTP.Headers != nil {
			e.Response.Headers = nameValues(r.HTTP.Headers)
		}
		if e.Response.Content.MimeType == "" && r.HTTP.ContentType != "" {
			e.Response.Content.MimeType = r.HTTP.ContentType
		}
		switch r.Kind {
		case capture.KindStreamOpen:
			stream = true
		case "":
			if stream {
				respBody = append(respBody, sseEvent(r.HTTP, body(r)))
			} else {
				respBody = append(respBody, body(r))
			}
		case capture.KindEndpoint:
			respBody = append(respBody, sseEvent(&capture.HTTPInfo{EventID: r.HTTP.EventID, Event: "endpoint"}, r.Endpoint))
		case capture.KindHTTP, capture.KindStreamClose:
			if r.Kind == capture.KindHTTP && r.Size > 0 {
				e.Response.Content.Comment = fmt.Sprintf("a body of %d bytes that the capture does not hold", r.Size)
				e.Response.Content.Size = r.Size
			}
			if r.Kind == capture.KindStreamClose {
				e.MCPKit.Events = append(e.MCPKit.Events, event(r))
			}
		case capture.KindUpstreamError:
			if e.Response.Status == 0 {
				e.Response.Status = http.StatusBadGateway
			}
			e.Response.Content.Text = r.Text
			e.MCPKit.Events = append(e.MCPKit.Events, event(r))
		default:
			e.MCPKit.Events = append(e.MCPKit.Events, event(r))
		}
	}
	e.Request.URL = requestURL(h, first.HTTP.Path, e.Request.Headers)
	e.Request.QueryString = query(first.HTTP.Path)
	if len(reqBody) > 0 {
		text := strings.Join(reqBody, "\n")
		if reqType == "" {
			reqType = "application/json"
		}
		e.Request.PostData = &harPostData{MimeType: reqType, Text: text}
		e.Request.BodySize = int64(len(text))
	}
	if stream {
		e.Response.Content.MimeType = "text/event-stream"
	}
	if len(respBody) > 0 {
		sep := "\n"
		if stream {
			sep = ""
		}
		e.Response.Content.Text = strings.Join(respBody, sep)
		e.Response.Content.Size = int64(len(e.Response.Content.Text))
	}
	if e.Response.Content.MimeType == "" {
		e.Response.Content.MimeType = "application/octet-stream"
	}
	e.Response.StatusText = http.StatusText(e.Response.Status)
	if respStart.IsZero() {
		respStart = last
	}
	e.Timings.Send = 0
	e.Timings.Wait = ms(respStart.Sub(first.Time))
	e.Timings.Receive = ms(last.Sub(respStart))
	e.Time = e.Timings.Wait + e.Timings.Receive
	return e
}

// body is a message's text as the capture holds it.
func body(r *capture.Record) string {
	switch {
	case r.Raw != "":
		return r.Raw
	case len(r.Msg) > 0:
		return string(r.Msg)
	case len(r.Raw64) > 0:
		return fmt.Sprintf("[%d bytes that are not UTF-8]", len(r.Raw64))
	}
	return ""
}

// sseEvent writes an event back in the SSE framing: id, event and data lines.
func sseEvent(info *capture.HTTPInfo, data string) string {
	var b strings.Builder
	if info.EventID != "" {
		b.WriteString("id: " + info.EventID + "\n")
	}
	if info.Event != "" {
		b.WriteString("event: " + info.Event + "\n")
	}
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// event describes an event record in a line.
func event(r *capture.Record) string {
	s := r.Kind
	if r.Text != "" {
		s += ": " + r.Text
	}
	if r.LastEventID != "" {
		s += " (Last-Event-ID " + r.LastEventID + ")"
	}
	return s
}

func nameValues(hdr map[string][]string) []harNV {
	names := make([]string, 0, len(hdr))
	for k := range hdr {
		names = append(names, k)
	}
	sort.Strings(names)
	out := []harNV{}
	for _, k := range names {
		for _, v := range hdr[k] {
			out = append(out, harNV{Name: k, Value: v})
		}
	}
	return out
}

// requestURL is the URL the client asked for: the tap's address (the Host
// header, else the capture's listen address) and the recorded path.
func requestURL(h capture.Header, path string, headers []harNV) string {
	host := h.Listen
	for _, nv := range headers {
		if strings.EqualFold(nv.Name, "Host") {
			host = nv.Value
		}
	}
	if host == "" {
		host = "localhost"
	}
	if strings.HasPrefix(host, ":") {
		host = "127.0.0.1" + host
	}
	return "http://" + host + path
}

func query(path string) []harNV {
	out := []harNV{}
	_, q, ok := strings.Cut(path, "?")
	if !ok {
		return out
	}
	for _, part := range strings.Split(q, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, harNV{Name: k, Value: v})
	}
	return out
}
