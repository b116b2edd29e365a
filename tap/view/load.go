package view

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// maxUnreadable bounds the unreadable lines a capture may have before reading it
// stops: a file that is not a capture at all is an error, not a million rows.
const maxUnreadable = 1000

// ReadFile reads a capture for the views. A line that cannot be read (a torn
// last line, a line edited by hand) does not stop it: it becomes a record of
// kind timeline.EventUnreadable, which the views show, in its place. Only a file
// that cannot be opened, has no capture header, or has more than maxUnreadable
// such lines is an error.
func ReadFile(path string) (capture.Header, []*capture.Record, error) {
	f, cr, err := openCapture(path)
	if err != nil {
		return capture.Header{}, nil, err
	}
	defer f.Close()
	var recs []*capture.Record
	err = readRecords(path, cr, func(r *capture.Record) { recs = append(recs, r) })
	return cr.Header(), recs, err
}

// OpenFile opens a capture for the views: it reads the header at once and
// returns a hub (not live) and feed, which reads the records into the hub's
// timeline as ReadFile reads them and then ends the hub. Run feed in a goroutine:
// a view shows its first screen at once and fills while the capture loads (the
// hub's State says Loading). An error that stops the reading becomes the last
// row (timeline.EventUnreadable).
func OpenFile(path string, opts timeline.Options) (*Hub, func(), error) {
	f, cr, err := openCapture(path)
	if err != nil {
		return nil, nil, err
	}
	hub := NewHub(cr.Header(), false, opts)
	feed := func() {
		defer hub.End()
		defer f.Close()
		model := hub.Model()
		var last uint64
		err := readRecords(path, cr, func(r *capture.Record) { last = r.Seq; model.Add(r) })
		if err != nil {
			model.Add(&capture.Record{Seq: last, Kind: timeline.EventUnreadable, Text: "reading stopped: " + err.Error()})
		}
	}
	return hub, feed, nil
}

func openCapture(path string) (*os.File, *capture.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	cr, err := capture.NewReader(f)
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, cr, nil
}

// readRecords gives each record of cr to add, an unreadable line as a record of
// kind timeline.EventUnreadable.
func readRecords(path string, cr *capture.Reader, add func(*capture.Record)) error {
	bad := 0
	var seq uint64
	for {
		r, err := cr.Next()
		if errors.Is(err, io.EOF) {
			if cr.Cut() {
				// What a crash or a full disk leaves: shown as a row like any
				// line that cannot be read.
				add(&capture.Record{Seq: seq, Kind: timeline.EventUnreadable, Text: fmt.Sprintf("capture line %d is cut short (the tap was stopped or its disk filled up)", cr.Line())})
			}
			return nil
		}
		if err != nil {
			// A line the reader could not take names its number; an error
			// without one is the file's (I/O), and ends the reading.
			if !strings.HasPrefix(err.Error(), "capture line ") || bad == maxUnreadable {
				return fmt.Errorf("%s: %w", path, err)
			}
			bad++
			add(&capture.Record{Seq: seq, Kind: timeline.EventUnreadable, Text: err.Error()})
			continue
		}
		seq = r.Seq
		add(r)
	}
}
