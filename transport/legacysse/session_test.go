package legacysse

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStreamDrainsQueueOnClose checks that a session closed with messages still
// queued sends them all before its stream ends. The stream's select may see the
// queue or the close first; repeating covers both orders.
func TestStreamDrainsQueueOnClose(t *testing.T) {
	for range 32 {
		testStreamDrainsQueueOnClose(t)
	}
}

func testStreamDrainsQueueOnClose(t *testing.T) {
	t.Helper()
	s := newSession("id", "127.0.0.1:1")
	for _, m := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if err := s.Write(context.Background(), []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Close()
	w := httptest.NewRecorder()
	if err := newStream(w, DefaultWriteTimeout).run(context.Background(), s, "/messages?sessionId=id", 0); err != nil {
		t.Fatal(err)
	}
	want := "event: endpoint\ndata: /messages?sessionId=id\n\n" +
		"event: message\ndata: {\"n\":1}\n\n" +
		"event: message\ndata: {\"n\":2}\n\n" +
		"event: message\ndata: {\"n\":3}\n\n"
	if got := w.Body.String(); got != want {
		t.Fatalf("stream:\n%s\nwant:\n%s", got, want)
	}
}

func TestReadBody(t *testing.T) {
	cases := []struct {
		body     string
		declared int64
		ok       bool
	}{
		{`{"a":1}`, 7, true},
		{`{"a":1}`, -1, true},
		{strings.Repeat("x", 2000), -1, true}, // grows past the initial 512 bytes
		{strings.Repeat("x", 2001), -1, false},
		{`{}`, 3000, false},  // declared too large: refused before reading
		{`{"a":1}`, 3, true}, // a short declared length only sizes the buffer
	}
	for _, c := range cases {
		got, err := readBody(strings.NewReader(c.body), c.declared, 2000)
		if c.ok != (err == nil) || c.ok && string(got) != c.body {
			t.Errorf("readBody(%d bytes, declared %d) = %d bytes, %v", len(c.body), c.declared, len(got), err)
		}
	}
}
