package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// appendToolCallParams writes what encoding/json writes for the same params
// when the arguments are compact and HTML-safe (as json.Marshal makes them),
// and the same value otherwise.
func TestAppendToolCallParams(t *testing.T) {
	for _, c := range []struct{ name, args string }{
		{"echo", `{"message":"world"}`},
		{"echo", ""},
		{"<a&b>\u2028\u2029\t\"\\é", `{}`},
		{"bad\xffutf8", `{"a":[1,2,{"b":null}]}`},
		{"spaced", `{ "a" : "<b>" }`},
	} {
		checkToolCallParams(t, c.name, []byte(c.args))
	}
}

// appendToolCallParams writes map arguments as encoding/json writes the params
// holding json.Marshal's encoding of the map, and reports its errors.
func TestAppendToolCallParamsMap(t *testing.T) {
	for _, m := range []map[string]any{
		{},
		{"message": "world"},
		{"b": []any{1.0, "<x>", map[string]any{"d": nil, "c": 1e21}}, "a": json.Number("1e-7"), "\u2028": struct{ X int }{1}},
	} {
		args, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(&protocol.CallToolParams{Name: "<echo>", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendToolCallParams([]byte("x"), "<echo>", nil, m)
		if err != nil || string(got) != "x"+string(want) {
			t.Fatalf("%v: got %s, %v; want x%s", m, got, err, want)
		}
	}
	if _, err := appendToolCallParams(nil, "echo", nil, map[string]any{"f": math.Inf(1)}); err == nil || err.Error() != "json: unsupported value: +Inf" {
		t.Fatalf("error %v, want json.Marshal's", err)
	}
}

func checkToolCallParams(t *testing.T, name string, args []byte) {
	t.Helper()
	p := protocol.CallToolParams{Name: name}
	if len(args) > 0 {
		p.Arguments = args
	}
	want, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendToolCallParams(nil, name, p.Arguments, nil)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if len(args) == 0 || json.Compact(&compact, args) == nil && bytes.Equal(compact.Bytes(), args) && !bytes.ContainsAny(args, "<>&") && !bytes.Contains(args, []byte("\u2028")) && !bytes.Contains(args, []byte("\u2029")) {
		if !bytes.Equal(got, want) {
			t.Fatalf("name %q args %q:\n got %s\nwant %s", name, args, got, want)
		}
		return
	}
	var g, w protocol.CallToolParams
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	var ga, wa any
	if json.Unmarshal(g.Arguments, &ga) != nil || json.Unmarshal(w.Arguments, &wa) != nil || g.Name != w.Name {
		t.Fatalf("got %s, want %s", got, want)
	}
	gb, _ := json.Marshal(ga)
	wb, _ := json.Marshal(wa)
	if !bytes.Equal(gb, wb) {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// FuzzAppendToolCallParams checks appendToolCallParams against encoding/json
// for any name and any arguments that are a JSON object.
func FuzzAppendToolCallParams(f *testing.F) {
	f.Add("echo", []byte(`{"message":"world"}`))
	f.Add("<&>", []byte(`{ "a" : [1, "\u003c"] }`))
	f.Add("x\xff", []byte(``))
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		if len(args) > 0 {
			if c := bytes.TrimLeft(args, " \t\r\n"); !json.Valid(args) || c[0] != '{' {
				return
			}
		}
		checkToolCallParams(t, name, args)
	})
}

// rawReplyConn is a transport that takes only a raw reply handler.
type rawReplyConn struct {
	transport.Conn
	f func([]byte) bool
}

func (c *rawReplyConn) SetReplyHandler(f func([]byte) bool) { c.f = f }

// idConn hands a decoded reply handler to a connection that takes only raw
// replies by decoding them for it.
func TestIDConnDecodesForARawReplyStream(t *testing.T) {
	inner := &rawReplyConn{}
	var got *jsonrpc.Message
	(&idConn{Conn: inner}).SetDecodedReplyHandler(func(m *jsonrpc.Message) bool { got = m; return true })
	if inner.f == nil {
		t.Fatal("no raw handler set")
	}
	if !inner.f([]byte(`{"jsonrpc":"2.0","id":4,"result":{}}`)) || got == nil || got.ID != jsonrpc.Int64ID(4) {
		t.Fatalf("got %+v", got)
	}
	if inner.f([]byte(`[{"jsonrpc":"2.0","id":5,"result":{}}]`)) || inner.f([]byte(`{`)) {
		t.Fatal("a batch or a malformed reply was taken")
	}
}

// BenchmarkToolCallParamsMap compares the params of a tools/call with map
// arguments written by hand (jsonenc, into the pooled buffer) with the way
// before: json.Marshal of the map, then a copy into the buffer.
func BenchmarkToolCallParamsMap(b *testing.B) {
	args := map[string]any{"message": "world"}
	buf := make([]byte, 0, 256)
	b.Run("jsonenc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = appendToolCallParams(buf[:0], "echo", nil, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal-copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			raw, err := json.Marshal(args)
			if err != nil {
				b.Fatal(err)
			}
			if buf, err = appendToolCallParams(buf[:0], "echo", raw, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// argEncoder.encode (CallTool's struct arguments without options) gives
// what toolArguments gives, errors included.
func TestArgEncoderEncodesAsToolArguments(t *testing.T) {
	type inner struct {
		S string  `json:"s,omitempty"`
		F float64 `json:"f"`
	}
	var nilPtr *inner
	for _, args := range []any{
		inner{S: "<a&b>\u2028", F: 1e21},
		&inner{F: -0.5},
		nilPtr,
		map[string]int{"b": 2, "a": 1},
		struct{}{},
		[]int{1},
		"text",
		json.Number("3"),
		inner{F: math.NaN()},
		struct{ F func() }{},
	} {
		want, wantErr := toolArguments(args)
		e := argEncoders.Get().(*argEncoder)
		got, err := e.encode(args)
		if string(got) != string(want) || (got == nil) != (want == nil) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%#v: encode gives %q, %v; toolArguments %q, %v", args, got, err, want, wantErr)
		}
		e.put()
	}
}
