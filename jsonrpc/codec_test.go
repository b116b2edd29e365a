package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/rpcshared"
)

func TestDecodeShapes(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		code   int64 // 0 = success
		id     ID
		method string
		params string
	}{
		{"request int id", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, 0, Int64ID(1), "tools/list", `{}`},
		{"request id 0", `{"method":"initialize","params":{"a":1},"jsonrpc":"2.0","id":0}`, 0, Int64ID(0), "initialize", `{"a":1}`},
		{"string id", `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, 0, StringID("abc"), "ping", ``},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"ping"}`, 0, StringID("a\"bé"), "ping", ``},
		{"integral float id", `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, 0, Int64ID(100), "ping", ``},
		{"negative id", `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, 0, Int64ID(-7), "ping", ``},
		{"notification no params", `{"method":"notifications/initialized","jsonrpc":"2.0"}`, 0, ID{}, "notifications/initialized", ``},
		{"null params", `{"jsonrpc":"2.0","method":"x","params":null}`, 0, ID{}, "x", ``},
		{"array params", `{"jsonrpc":"2.0","id":2,"method":"x","params":[1,2]}`, 0, Int64ID(2), "x", `[1,2]`},
		{"escaped key", `{"jsonrpc":"2.0","id":2,"\u006dethod":"x"}`, 0, Int64ID(2), "x", ``},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":2,"method":"x","extra":{"deep":[1,{"a":null}]}}`, 0, Int64ID(2), "x", ``},
		{"whitespace", " \n\t{ \"jsonrpc\" : \"2.0\" , \"id\" : 3 , \"method\" : \"m\" } \r\n", 0, Int64ID(3), "m", ``},
		{"result", `{"jsonrpc":"2.0","id":5,"result":{"ok":true}}`, 0, Int64ID(5), "", ``},
		{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`, 0, NullID(), "", ``},

		{"not json", `{"jsonrpc":"2.0",`, CodeParseError, ID{}, "", ""},
		{"garbage", `hello`, CodeParseError, ID{}, "", ""},
		{"trailing data", `{"jsonrpc":"2.0","method":"x"} {}`, CodeParseError, ID{}, "", ""},
		{"bad escape", `{"jsonrpc":"2.0","method":"\q"}`, CodeParseError, ID{}, "", ""},
		{"control char in string", "{\"jsonrpc\":\"2.0\",\"method\":\"a\x01\"}", CodeParseError, ID{}, "", ""},
		{"leading zero", `{"jsonrpc":"2.0","id":01,"method":"x"}`, CodeParseError, ID{}, "", ""},
		{"empty", ``, CodeParseError, ID{}, "", ""},
		{"not an object", `[1]`, CodeInvalidRequest, ID{}, "", ""},
		{"string message", `"hi"`, CodeInvalidRequest, ID{}, "", ""},
		{"missing jsonrpc", `{"id":1,"method":"x"}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"x"}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"method not string", `{"jsonrpc":"2.0","id":1,"method":5}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"params scalar", `{"jsonrpc":"2.0","id":1,"method":"x","params":3}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, CodeInvalidRequest, ID{}, "", ""},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"x"}`, CodeInvalidRequest, ID{}, "", ""},
		{"null request id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, CodeInvalidRequest, NullID(), "", ""},
		{"nothing", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, CodeInvalidRequest, Int64ID(1), "", ""},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, CodeInvalidRequest, ID{}, "", ""},
		{"bad error object", `{"jsonrpc":"2.0","id":1,"error":"oops"}`, CodeInvalidRequest, Int64ID(1), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.in))
			if tt.code != 0 {
				var e *Error
				if !errors.As(err, &e) || e.Code != tt.code {
					t.Fatalf("Decode(%s) error = %v, want code %d", tt.in, err, tt.code)
				}
				if m != nil && m.ID != tt.id {
					t.Errorf("id = %v, want %v", m.ID, tt.id)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if m.ID != tt.id || m.Method != tt.method || string(m.Params) != tt.params {
				t.Errorf("got id=%v method=%q params=%s; want id=%v method=%q params=%s", m.ID, m.Method, m.Params, tt.id, tt.method, tt.params)
			}
		})
	}
}

func TestDecodeKinds(t *testing.T) {
	req, _ := Decode([]byte(`{"jsonrpc":"2.0","id":0,"method":"a"}`))
	note, _ := Decode([]byte(`{"jsonrpc":"2.0","method":"a"}`))
	resp, _ := Decode([]byte(`{"jsonrpc":"2.0","id":0,"result":{}}`))
	if !req.IsRequest() || req.IsNotification() || req.IsResponse() {
		t.Error("id 0 request misclassified")
	}
	if !note.IsNotification() || note.IsRequest() {
		t.Error("notification misclassified")
	}
	if !resp.IsResponse() || resp.IsRequest() {
		t.Error("response misclassified")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	msgs := []*Message{
		{ID: Int64ID(0), Method: "initialize", Params: json.RawMessage(`{"protocolVersion":"2025-06-18"}`)},
		{ID: StringID("x\n\"<>"), Method: "tools/call"},
		{Method: "notifications/initialized"},
		{ID: Int64ID(-42), Result: json.RawMessage(`{"tools":[]}`)},
		{ID: StringID("s"), Error: &Error{Code: -32602, Message: "Unknown tool: 'x'\u2028", Data: json.RawMessage(`{"k":1}`)}},
		{ID: NullID(), Error: &Error{Code: CodeParseError, Message: "bad \xff utf8"}},
	}
	for _, m := range msgs {
		b := Encode(m)
		if !json.Valid(b) {
			t.Fatalf("Encode produced invalid JSON: %s", b)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(%s): %v", b, err)
		}
		want := *m
		if want.Error != nil && want.Error.Message == "bad \xff utf8" {
			want.Error = &Error{Code: want.Error.Code, Message: "bad \ufffd utf8"}
		}
		if !equalMessages(got, &want) {
			t.Errorf("round trip of %s: got %+v", b, got)
		}
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\"back\\slash", "ctl\x00\x1f\t\r\n\b\f", "html <&>", "uni é 😀", "\u2028\u2029", "bad\xffbyte"} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestBatchCodec(t *testing.T) {
	in := `[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"n"}, {"id":3}, 5]`
	msgs, errs, err := DecodeBatch([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || errs == nil || errs[0] != nil || errs[1] != nil || errs[2] == nil || errs[3] == nil {
		t.Fatalf("msgs=%v errs=%v", msgs, errs)
	}
	if msgs[0].Method != "a" || msgs[2].ID != Int64ID(3) {
		t.Errorf("unexpected decode: %+v %+v", msgs[0], msgs[2])
	}
	for _, bad := range []struct {
		in   string
		code int64
	}{{`[]`, CodeInvalidRequest}, {`[{"a":1}`, CodeParseError}, {`{}`, CodeInvalidRequest}, {`[1] x`, CodeParseError}} {
		_, _, err := DecodeBatch([]byte(bad.in))
		var e *Error
		if !errors.As(err, &e) || e.Code != bad.code {
			t.Errorf("DecodeBatch(%s) = %v, want code %d", bad.in, err, bad.code)
		}
	}
	enc := EncodeBatch([]*Message{{ID: Int64ID(1), Result: json.RawMessage(`{}`)}, {ID: Int64ID(2), Error: &Error{Code: 1, Message: "m"}}})
	back, errs, err := DecodeBatch(enc)
	if err != nil || errs != nil || len(back) != 2 || back[1].Error.Code != 1 {
		t.Fatalf("batch round trip: %s -> %v %v %v", enc, back, errs, err)
	}
	if !IsBatch([]byte("  [")) || IsBatch([]byte(" {")) || IsBatch(nil) {
		t.Error("IsBatch misclassified")
	}
}

func TestIDJSON(t *testing.T) {
	for _, in := range []string{`0`, `"0"`, `-3`, `"é"`, `null`} {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, _ := json.Marshal(id)
		var a, b any
		_ = json.Unmarshal([]byte(in), &a)
		_ = json.Unmarshal(out, &b)
		if a != b {
			t.Errorf("id %s re-encoded as %s", in, out)
		}
	}
	var id ID
	for _, bad := range []string{`1.5`, `{}`, `[1]`, `true`, `"a" x`} {
		if err := json.Unmarshal([]byte(bad), &id); err == nil {
			t.Errorf("id %s accepted", bad)
		}
	}
	if Int64ID(0) == StringID("0") || Int64ID(0) == (ID{}) {
		t.Error("ids of different kinds compare equal")
	}
}

func TestMethodInterning(t *testing.T) {
	rpcshared.RegisterMethodNames("tools/call")
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Decode(data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Decode of a request with a known method: %v allocations, want 1", allocs)
	}
}

func equalMessages(a, b *Message) bool {
	if a.ID != b.ID || a.Method != b.Method || !jsonEqual(a.Params, b.Params) || !jsonEqual(a.Result, b.Result) {
		return false
	}
	if (a.Error == nil) != (b.Error == nil) {
		return false
	}
	return a.Error == nil || (a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && jsonEqual(a.Error.Data, b.Error.Data))
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// FuzzDecode checks that Decode never panics, that it agrees with encoding/json on
// what is valid JSON, and that whatever it accepts re-encodes to an equal message.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"x","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m","data":[1]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.5e3}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, `{"a":"\ud83d\ude00"}`, `{`, `1e400`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		var e *Error
		if err != nil {
			if !errors.As(err, &e) || (e.Code != CodeParseError && e.Code != CodeInvalidRequest) {
				t.Fatalf("unexpected error %v", err)
			}
			if (e.Code == CodeParseError) == json.Valid(data) {
				t.Fatalf("parse error %v disagrees with json.Valid=%v for %q", e, json.Valid(data), data)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		again, err := Decode(Encode(m))
		if err != nil || !equalMessages(m, again) {
			t.Fatalf("re-encoding %q: %v %+v vs %+v", data, err, m, again)
		}
		_, _, _ = DecodeBatch(data)
	})
}

// BenchmarkDecode measures Decode on the messages of a tool call: a legacy
// request, a 2026-07-28 request with the envelope mcpkit's gateway sends in its
// _meta, and a 2026-07-28 response with the server's identity in its _meta.
// As on the wire, the envelope repeats from message to message and the rest
// does not: each message carries a new number where the 0s are.
func BenchmarkDecode(b *testing.B) {
	rpcshared.RegisterMethodNames("tools/call")
	for _, c := range []struct{ name, data string }{
		{"request", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello 00000000"},"_meta":{"progressToken":"abc"}}}`},
		{"request-2026", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-gateway","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"w3-00000000"}}}`},
		{"response-2026", `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hello w3-00000000"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-mcpkit","version":"1.0.0"}}}}`},
	} {
		data := []byte(c.data)
		at := strings.Index(c.data, "00000000")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var m Message
			n := 0
			for b.Loop() {
				n++
				for i, v := 7, n; i >= 0; i, v = i-1, v/10 {
					data[at+i] = byte('0' + v%10)
				}
				if err := DecodeInto(data, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeResult(b *testing.B) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"hello world"}]}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendResult(buf[:0], Int64ID(42), result)
	}
}

// TestDecodeDepthLimit pins the nesting limit: 10000 levels below the message
// are accepted, one more is a parse error.
func TestDecodeDepthLimit(t *testing.T) {
	const limit = 10000
	// The message is at depth 0 and params at depth 1, so the innermost
	// array is at depth levels.
	request := func(levels int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":` +
			strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}`)
	}
	if _, err := Decode(request(limit)); err != nil {
		t.Errorf("%d levels: %v", limit, err)
	}
	_, err := Decode(request(limit + 1))
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeParseError || e.Message != "parse error: JSON nested too deeply" {
		t.Errorf("%d levels: %v, want a parse error for nesting", limit+1, err)
	}
	if _, _, err := DecodeBatch([]byte("[" + string(request(limit+1)) + "]")); !errors.As(err, &e) || e.Code != CodeParseError {
		t.Errorf("batch with %d levels: %v, want a parse error", limit+2, err)
	}
}
