package legacysse_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// rooCapture is the layout of the Roo Code wire capture (testkit.CaptureRooCode).
type rooCapture struct {
	ClientMessages []json.RawMessage `json:"client_messages"`
	Expected       []struct {
		ID        json.RawMessage `json:"id"`
		ResultHas []string        `json:"result_has"`
	} `json:"expected_server_shapes"`
}

func loadRooCapture(t *testing.T) rooCapture {
	t.Helper()
	var c rooCapture
	testkit.LoadWireCapture(t, testkit.CaptureRooCode, &c)
	if len(c.ClientMessages) == 0 || len(c.Expected) == 0 {
		t.Fatal("the capture has no messages")
	}
	return c
}

// TestRooCodeCapture plays Roo Code's captured messages by hand, as raw HTTP, against
// the demo server and checks the replies on the stream against the capture's shapes.
func TestRooCodeCapture(t *testing.T) {
	capt := loadRooCapture(t)
	url, _ := serveDemo(t, nil)
	ev, st := openRawStream(t, url, http.Header{"Accept": {"text/event-stream"}})
	base := url[:len(url)-len("/sse")]

	requests := 0
	for _, m := range capt.ClientMessages {
		resp, body := post(t, base+string(ev.Data), string(m), nil)
		if resp.StatusCode != http.StatusAccepted || body != "" {
			t.Fatalf("POST %s = %s %q, want 202 and no body", m, resp.Status, body)
		}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(m, &probe)
		if probe.ID != nil {
			requests++
		}
	}

	replies := map[string]map[string]json.RawMessage{} // by the id's JSON text
	for len(replies) < requests {
		ev := st.next(t)
		if ev.Type != "message" {
			t.Fatalf("event type %q, want message", ev.Type)
		}
		var reply map[string]json.RawMessage
		if err := json.Unmarshal(ev.Data, &reply); err != nil {
			t.Fatalf("event data %q: %v", ev.Data, err)
		}
		if string(reply["jsonrpc"]) != `"2.0"` {
			t.Errorf("reply without jsonrpc 2.0: %s", ev.Data)
		}
		if id, ok := reply["id"]; ok {
			replies[string(id)] = reply
		}
	}
	for _, want := range capt.Expected {
		reply, ok := replies[string(want.ID)] // "0" stays the number 0, not "0" or null
		if !ok {
			t.Errorf("no reply with id %s (got ids %v)", want.ID, keys(replies))
			continue
		}
		var result map[string]json.RawMessage
		if err := json.Unmarshal(reply["result"], &result); err != nil {
			t.Errorf("id %s: no result object: %v", want.ID, reply)
			continue
		}
		for _, field := range want.ResultHas {
			if _, ok := result[field]; !ok {
				t.Errorf("id %s: result lacks %q: %s", want.ID, field, reply["result"])
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
