package view

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// STAND-IN until tap/timeline lands: one row per record, no pairing.

// Filter selects the entries a view shows.
type Filter struct {
	Method, Dir, Session, Text string
	ErrorsOnly                 bool
	MinLatency                 time.Duration
}

// ParseFilter reads a filter from query parameters.
func ParseFilter(q url.Values) (*Filter, error) {
	f := &Filter{Method: q.Get("method"), Dir: q.Get("dir"), Session: q.Get("session"), Text: q.Get("text"), ErrorsOnly: q.Get("errors") == "1"}
	if s := q.Get("minLatency"); s != "" {
		ms, err := strconv.ParseFloat(s, 64)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("minLatency %q: not a number of milliseconds", s)
		}
		f.MinLatency = time.Duration(ms * float64(time.Millisecond))
	}
	return f, nil
}

type model struct {
	recs []*capture.Record
}

func newModel() *model { return &model{} }

func (m *model) add(r *capture.Record) []uint64 {
	if !r.IsMessage() {
		return nil
	}
	m.recs = append(m.recs, r)
	return []uint64{r.Seq}
}

func (m *model) size() (int, int64) { return len(m.recs), 0 }

func (m *model) toRow(r *capture.Record, f *Filter) Row {
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(r.Msg, &msg)
	row := Row{ID: r.Seq, Seq: r.Seq, Time: r.Time.UTC().Format("15:04:05.000"), Dir: r.Dir, DirLabel: r.Dir, Method: msg.Method, Session: r.Session, Status: "ok", Kind: "request"}
	row.Match = f == nil || (strings.Contains(row.Method, f.Method) && (f.Dir == "" || f.Dir == r.Dir))
	return row
}

func (m *model) rows(f *Filter, limit int) ([]Row, int) {
	var out []Row
	for _, r := range m.recs {
		if row := m.toRow(r, f); row.Match {
			out = append(out, row)
		}
	}
	n := len(out)
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, n
}

func (m *model) row(id uint64, f *Filter) (Row, bool) {
	for _, r := range m.recs {
		if r.Seq == id {
			return m.toRow(r, f), true
		}
	}
	return Row{}, false
}

func (m *model) detail(id uint64) (Detail, bool) {
	for _, r := range m.recs {
		if r.Seq == id {
			return Detail{Title: "record " + strconv.FormatUint(id, 10), Sections: []Section{{Label: "message", JSON: string(r.Msg)}}}, true
		}
	}
	return Detail{}, false
}

func (m *model) panel() Panel { return Panel{} }
