package load

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRequestsAreValidJSON(t *testing.T) {
	msg := appendMessage(nil, 3, 42)
	if string(msg) != "w3-42" {
		t.Fatalf("message %q, want w3-42", msg)
	}
	var call struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(appendCall(nil, 7, msg), &call); err != nil {
		t.Fatal(err)
	}
	if call.ID != 7 || call.Method != "tools/call" || call.Params.Name != "echo" || call.Params.Arguments["message"] != "w3-42" {
		t.Errorf("call decoded as %+v", call)
	}
	var init struct {
		ID     int64 `json:"id"`
		Method string
		Params struct{ ProtocolVersion string }
	}
	if err := json.Unmarshal(appendInitialize(nil, 9), &init); err != nil {
		t.Fatal(err)
	}
	if init.ID != 9 || init.Method != "initialize" || init.Params.ProtocolVersion != protocolVersion {
		t.Errorf("initialize decoded as %+v", init)
	}
}

func TestSSEData(t *testing.T) {
	stream := ": comment\r\nevent: message\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\n" +
		"id: 2\n\n" + // priming event: no data
		"data:{\"b\":\ndata: 2}\n\n" +
		"retry: 10\ndata: last"
	got := sseData(nil, []byte(stream))
	want := []string{`{"a":1}`, "{\"b\":\n2}", "last"}
	if len(got) != len(want) {
		t.Fatalf("got %d events %q, want %q", len(got), got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("event %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestBodyMessages(t *testing.T) {
	if m := bodyMessages(nil, "application/json", []byte(`{"x":1}`)); len(m) != 1 || string(m[0]) != `{"x":1}` {
		t.Errorf("JSON body gave %q", m)
	}
	if m := bodyMessages(nil, "application/json", []byte("  ")); len(m) != 0 {
		t.Errorf("blank body gave %q", m)
	}
	if m := bodyMessages(nil, "text/event-stream; charset=utf-8", []byte("data: {}\n\n")); len(m) != 1 || string(m[0]) != "{}" {
		t.Errorf("SSE body gave %q", m)
	}
}

func TestCheckCall(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hello w0-1"}]}}`
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`
	tests := []struct {
		name    string
		msgs    []string
		wantErr string
	}{
		{"reply", []string{ok}, ""},
		{"notification first", []string{note, ok}, ""},
		{"other id", []string{strings.Replace(ok, `"id":5`, `"id":6`, 1)}, "no reply"},
		{"wrong text", []string{strings.Replace(ok, "w0-1", "w0-2", 1)}, "want text"},
		{"isError", []string{strings.Replace(ok, `]}}`, `],"isError":true}}`, 1)}, "isError true"},
		{"error reply", []string{`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"bad"}}`}, "-32602"},
		{"no result", []string{`{"jsonrpc":"2.0","id":5}`}, "no result"},
		{"not JSON", []string{`{`}, "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs [][]byte
			for _, m := range tt.msgs {
				msgs = append(msgs, []byte(m))
			}
			err := checkCall(msgs, 5, []byte("hello w0-1"))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("checkCall: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("checkCall error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := findReply(nil, 1); !errors.Is(err, errNoReply) {
		t.Errorf("findReply(nil) = %v, want errNoReply", err)
	}
}

func TestCheckInitialize(t *testing.T) {
	v, err := checkInitialize([][]byte{[]byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26"}}`)}, 0)
	if err != nil || v != "2025-03-26" {
		t.Errorf("checkInitialize = %q, %v; want 2025-03-26", v, err)
	}
	if _, err := checkInitialize([][]byte{[]byte(`{"jsonrpc":"2.0","id":0,"result":{}}`)}, 0); err == nil {
		t.Error("a result without protocolVersion was accepted")
	}
}

func TestDecodeReply(t *testing.T) {
	_, id, ok, err := decodeReply([]byte(`{"jsonrpc":"2.0","id":12,"result":{}}`))
	if err != nil || !ok || id != 12 {
		t.Errorf("decodeReply = %d %v %v, want 12 true nil", id, ok, err)
	}
	if _, _, ok, err := decodeReply([]byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil || ok {
		t.Errorf("notification: ok %v err %v, want false nil", ok, err)
	}
	if _, _, _, err := decodeReply([]byte(`{"jsonrpc":"2.0","id":"s","result":{}}`)); err == nil {
		t.Error("a string id was accepted: the load generator only sends integers")
	}
}

func FuzzSSEData(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: b\ndata: c\r\n\r\n"))
	f.Add([]byte(":\n\nid: 1\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, d := range sseData(nil, stream) {
			if len(d) > len(stream) {
				t.Fatalf("event of %d bytes from a stream of %d", len(d), len(stream))
			}
		}
	})
}
