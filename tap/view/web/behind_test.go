package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

// gatedWriter holds a response's writes while its gate is shut, and says when a
// write is waiting: the page behind it stops reading.
type gatedWriter struct {
	http.ResponseWriter
	gate    <-chan chan struct{} // a shut gate: the write waits until it is closed
	waiting chan<- struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	select {
	case open := <-g.gate:
		g.waiting <- struct{}{}
		<-open
	default:
	}
	return g.ResponseWriter.Write(p)
}

func (g *gatedWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// sseEvent is one event of the page's stream.
type sseEvent struct{ name, data string }

// readEvents reads the events of sc into out until the stream or ctx ends.
func readEvents(ctx context.Context, sc *bufio.Scanner, out chan<- sseEvent) {
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[6:]
		case line == "":
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			ev = sseEvent{}
		}
	}
	close(out)
}

// TestWebViewBehind: a page that stops reading while entries pour in is not
// queued for: when it reads again it gets the newest window (MaxRows rows) and
// the count of the entries it never saw (Behind).
func TestWebViewBehind(t *testing.T) {
	ctx := testkit.Context(t)
	hub := view.NewHub(capture.Header{Mode: "stdio"}, true, timeline.Options{})
	seq := uint64(0)
	add := func(n int) {
		for range n {
			seq++
			hub.Model().Add(&capture.Record{Seq: seq, Time: time.Unix(0, int64(seq)), Dir: capture.ClientToServer,
				Transport: capture.TransportStdio, Session: "stdio",
				Msg: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d}}`, seq))})
		}
	}
	add(3)
	gate := make(chan chan struct{}, 1)
	waiting := make(chan struct{}, 1)
	h := Handler(Options{Hub: hub, MaxRows: 5})
	srv := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&gatedWriter{ResponseWriter: w, gate: gate, waiting: waiting}, r)
	}))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan sseEvent, 64)
	go readEvents(ctx, bufio.NewScanner(res.Body), events)
	next := func() sseEvent {
		t.Helper()
		ev, ok := <-events
		for ok && ev.name == "report" {
			ev, ok = <-events
		}
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	}
	var reset struct{ Rows []view.Row }
	if ev := next(); ev.name != "reset" || json.Unmarshal([]byte(ev.data), &reset) != nil || len(reset.Rows) != 3 {
		t.Fatalf("first event %+v", ev)
	}
	if ev := next(); ev.name != "state" || !strings.Contains(ev.data, `"behind":0`) {
		t.Fatalf("state %+v", ev)
	}
	if ev := <-events; ev.name != "report" { // the first update's last write
		t.Fatalf("report %+v", ev)
	}

	// The page stops reading: its next write waits.
	open := make(chan struct{})
	gate <- open
	add(1)
	testkit.Receive(t, waiting)
	add(100) // 104 entries; the page saw up to 3 and is being told of 4
	close(open)

	rows := map[string]bool{}
	for {
		ev := next()
		switch ev.name {
		case "row":
			var r view.Row
			if err := json.Unmarshal([]byte(ev.data), &r); err != nil {
				t.Fatal(err)
			}
			if r.Match {
				rows[r.ID] = true
			}
			continue
		case "state":
		default:
			t.Fatalf("unexpected event %+v", ev)
		}
		var st pageState
		if err := json.Unmarshal([]byte(ev.data), &st); err != nil {
			t.Fatal(err)
		}
		if st.Shown < 104 {
			continue // the update that was held
		}
		// The newest window (100–104) came, plus 4 from the held update; 5 to 99
		// came and went unseen: 95 behind, and nothing queued for them.
		if st.Behind != 95 || len(rows) != 6 || !rows["104"] || !rows["100"] || rows["99"] {
			t.Fatalf("behind %d, rows %v", st.Behind, rows)
		}
		return
	}
}
