package tap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// TestHTTPTapRecordsAnswerBeforeRelaying: a client that got an answer on one
// connection and at once sends its next request on another finds the answer
// earlier in the capture than that request (break-it review T5: the tap relayed
// an answer, then recorded it, so the next request could get the earlier seq,
// and the timeline saw sessions used before they were opened). Sixteen clients
// at once, each alternating between two connections; every answer's seq must be
// below that of the request its client sent after reading it.
func TestHTTPTapRecordsAnswerBeforeRelaying(t *testing.T) {
	upstream := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			_, body, err := readRequest(br)
			if err != nil {
				return
			}
			var m struct{ ID json.RawMessage }
			_ = json.Unmarshal(body, &m)
			reply := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`
			if writeResponse(c, http.StatusOK, "Content-Type: application/json\r\n", reply) != nil {
				return
			}
		}
	})
	capt := newTestCapture(t)
	addr, _ := startTap(t, "http://"+upstream+"/mcp", capt, HTTPOptions{})

	const clients, rounds = 16, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conns [2]*bufio.ReadWriter
			for i := range conns {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				conns[i] = bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))
			}
			for i := range 2 * rounds {
				id := w*100_000 + i
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
				rw := conns[i%2]
				fmt.Fprintf(rw, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nMcp-Session-Id: s%d\r\nContent-Length: %d\r\n\r\n%s", addr, w, len(body), body)
				if err := rw.Flush(); err != nil {
					errs <- err
					return
				}
				resp, err := http.ReadResponse(rw.Reader, nil)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	req, resp := map[int]uint64{}, map[int]uint64{}
	for _, r := range capt.records(t) {
		if !r.IsMessage() {
			continue
		}
		var m struct{ ID int }
		if err := json.Unmarshal(r.Msg, &m); err != nil {
			t.Fatal(err)
		}
		if r.Dir == capture.ClientToServer {
			req[m.ID] = r.Seq
		} else {
			resp[m.ID] = r.Seq
		}
	}
	late := 0
	for w := range clients {
		for i := range 2*rounds - 1 {
			id := w*100_000 + i
			a, next := resp[id], req[id+1]
			if a == 0 || next == 0 {
				t.Fatalf("id %d: answer seq %d, next request seq %d: missing from the capture", id, a, next)
			}
			if a > next {
				late++
				if late <= 3 {
					t.Errorf("the answer to id %d is record %d, after record %d, the request its client sent once it had it", id, a, next)
				}
			}
		}
	}
	if late > 0 {
		t.Errorf("%d answers recorded after what their client sent next", late)
	}
}
