package streamable

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// FuzzSharedSessionRecord hands the handler arbitrary bytes as a session's
// stored record, as a SessionStore's Load returns it (garbage another program
// wrote into Redis, say): restoring the session, calling a tool, setting the
// log level, subscribing and deleting it never panic; each request gets 200,
// 202 or 404 (a record that cannot be served is a session that does not
// exist), DELETE 204 or 404; and no session object is left behind.
func FuzzSharedSessionRecord(f *testing.F) {
	store := &memSessions{}
	h := NewHandler(whoServer(f), &HandlerOptions{Sessions: store, SessionCheckInterval: -1, Logger: quietLogger})
	f.Cleanup(func() { _ = h.Close() })

	// A real record first, then variations of it.
	init := serve(h, http.MethodPost, "", initBody("2025-06-18"))
	sid := init.Header().Get(HeaderSessionID)
	if init.Code != http.StatusOK || sid == "" {
		f.Fatalf("initialize: %d %s", init.Code, init.Body)
	}
	serve(h, http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	serve(h, http.MethodPost, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`)
	store.mu.Lock()
	real := append([]byte(nil), store.m[sid]...)
	store.mu.Unlock()
	serve(h, http.MethodDelete, sid, "")
	// The real record restores: the path under test is the one that serves.
	copied := newSessionID()
	if err := store.Create(context.Background(), copied, real, 0); err != nil {
		f.Fatal(err)
	}
	if w := serve(h, http.MethodPost, copied, whoCall); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "client=test") {
		f.Fatalf("a session restored from a real record: %d %s", w.Code, w.Body)
	}
	serve(h, http.MethodDelete, copied, "")
	f.Add(real)
	for _, seed := range []string{
		`{"v":"2025-06-18"}`,
		`{"v":"2024-11-05","i":true,"ci":{"name":1},"cc":[]}`,
		`{"v":"2025-11-25","cc":{"sampling":"yes","roots":null,"elicitation":{"form":7}}}`,
		`{"v":"1999-01-01","i":true}`,
		`{"v":"2025-06-18","ll":"shouting","rs":["","file:///x",null]}`,
		`{"v":"2025-06-18","rs":{}}`,
		`{"v":"2026-07-28","i":true}`,
		`{"v":"2025-06-18","p":"someone else"}`,
		`{"v":""}`, `null`, `[]`, `"v"`, ``, `{"v":"2025-06-18","ci":`,
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, record []byte) {
		id := newSessionID()
		if err := store.Create(context.Background(), id, record, 0); err != nil {
			t.Fatal(err)
		}
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"file:///a"}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		} {
			w := serve(h, http.MethodPost, id, body)
			if w.Code != http.StatusOK && w.Code != http.StatusAccepted && w.Code != http.StatusNotFound {
				t.Fatalf("record %q, POST %s: %d %s", record, body, w.Code, w.Body)
			}
		}
		if w := serve(h, http.MethodDelete, id, ""); w.Code != http.StatusNoContent && w.Code != http.StatusNotFound {
			t.Fatalf("record %q, DELETE: %d %s", record, w.Code, w.Body)
		}
		_ = store.Delete(context.Background(), id) // after a 404, the record is still there
		if n := h.Sessions(); n != 0 {
			t.Fatalf("record %q: %d sessions left after DELETE", record, n)
		}
	})
}
