package protocol

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeHeaderValueSpecExamples(t *testing.T) {
	// The encoding examples of the specification's "Value Encoding" table.
	for _, tc := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		// Further cases: empty and inner spaces are plain; tab, DEL and the
		// overlapping sentinel are encoded.
		{"", ""},
		{"a b", "a b"},
		{"a\tb", "=?base64?YQli?="},
		{"a\x7f", "=?base64?YX8=?="},
		{"=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="},
		{"=?base64?abc", "=?base64?abc"},
	} {
		if got := EncodeHeaderValue(tc.in); got != tc.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got, err := DecodeHeaderValue(tc.want); err != nil || got != tc.in {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", tc.want, got, err, tc.in)
		}
	}
}

func TestDecodeHeaderValueRejects(t *testing.T) {
	for _, v := range []string{
		"=?base64?SGVsbG8?=",     // missing padding
		"=?base64?SGVs!!!bG8=?=", // not the Base64 alphabet
		"=?base64?SGVsbG9=?=",    // non-zero padding bits (not canonical)
		"=?base64?/w==?=",        // decodes to invalid UTF-8
		"=?base64?SGVs bG8=?=",   // a space inside
		"=?base64?SGVs\nbG8=?=",  // a line feed inside (encoding/base64 would skip it)
		"=?base64?SGVs\rbG8=?=",  // a carriage return inside
		"caf\xc3\xa9",            // non-ASCII sent plain
		"a\tb",                   // a control character sent plain
	} {
		if got, err := DecodeHeaderValue(v); !errors.Is(err, ErrHeaderMismatch) {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want an error wrapping ErrHeaderMismatch", v, got, err)
		}
	}
	// Without both markers the value is literal, as the conformance suite's
	// "missing prefix" and "missing suffix" cases require.
	for _, v := range []string{"SGVsbG8=", "=?base64?SGVsbG8=", "SGVsbG8=?=", "=?BASE64?SGVsbG8=?="} {
		if got, err := DecodeHeaderValue(v); err != nil || got != v {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want it literally", v, got, err)
		}
	}
}

func TestNameHeaderField(t *testing.T) {
	for method, want := range map[string]string{
		MethodToolsCall: "name", MethodPromptsGet: "name", MethodResourcesRead: "uri",
		MethodTasksGet: "taskId", "tasks/update": "taskId", MethodTasksCancel: "taskId",
		MethodToolsList: "", MethodServerDiscover: "", "": "",
	} {
		got, ok := NameHeaderField(method)
		if got != want || ok != (want != "") {
			t.Errorf("NameHeaderField(%q) = %q, %v; want %q", method, got, ok, want)
		}
	}
}

// FuzzDecodeHeaderValue checks the decoder against its definition: a value it
// accepts is either literal printable ASCII or the exact sentinel around
// canonical padded Base64 of UTF-8; and encoding the decoded value yields a
// value that decodes to the same text.
func FuzzDecodeHeaderValue(f *testing.F) {
	for _, s := range []string{"", "us-west1", "=?base64?SGVsbG8sIOS4lueVjA==?=", "=?base64?SGVsbG8?=", "=?base64?=",
		"=?base64??=", "=?base64?SGVs!!!bG8=?=", "é", "a\tb", "=?base64?/w==?=", "=?base64?SGVsbG9=?=", "=?base64?SGVs\nbG8=?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := DecodeHeaderValue(v)
		if err != nil {
			if !errors.Is(err, ErrHeaderMismatch) {
				t.Fatalf("error %v does not wrap ErrHeaderMismatch", err)
			}
			return
		}
		if inner, ok := strings.CutPrefix(v, base64Prefix); ok && len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasSuffix(v, base64Suffix) {
			inner = strings.TrimSuffix(inner, base64Suffix)
			if base64.StdEncoding.EncodeToString([]byte(got)) != inner || !utf8.ValidString(got) {
				t.Fatalf("accepted %q as Base64 of %q, which is not its canonical encoding", v, got)
			}
		} else if got != v || !printableASCII(v) {
			t.Fatalf("accepted %q as the literal %q", v, got)
		}
		if again, err := DecodeHeaderValue(EncodeHeaderValue(got)); err != nil || again != got {
			t.Fatalf("re-encoding %q: %q, %v", got, again, err)
		}
	})
}

// FuzzEncodeHeaderValue checks that any UTF-8 text survives encoding and that
// the encoded form is always a valid header value (printable ASCII without
// spaces at either end).
func FuzzEncodeHeaderValue(f *testing.F) {
	for _, s := range []string{"", "a", " a", "Hello, 世界", "line1\nline2", "=?base64?literal?=", "=?base64?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			return
		}
		enc := EncodeHeaderValue(v)
		if !printableASCII(enc) || strings.HasPrefix(enc, " ") || strings.HasSuffix(enc, " ") {
			t.Fatalf("EncodeHeaderValue(%q) = %q: not a safe header value", v, enc)
		}
		if got, err := DecodeHeaderValue(enc); err != nil || got != v {
			t.Fatalf("round trip of %q: %q, %v", v, got, err)
		}
	})
}

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestReadRequestFields(t *testing.T) {
	for _, tc := range []struct {
		method, params string
		want           RequestFields
	}{
		{MethodToolsCall, `{"name":"echo",` + statelessMeta + `}`,
			RequestFields{ProtocolVersion: "2026-07-28", HasClientCapabilities: true, NameField: "name", Name: "echo", HasName: true}},
		{MethodResourcesRead, `{` + statelessMeta + `,"uri":"file:///a b"}`,
			RequestFields{ProtocolVersion: "2026-07-28", HasClientCapabilities: true, NameField: "uri", Name: "file:///a b", HasName: true}},
		{MethodToolsList, ``, RequestFields{}},
		{MethodToolsList, `null`, RequestFields{}},
		{MethodToolsList, `{}`, RequestFields{}},
		{MethodServerDiscover, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":null}}`, RequestFields{HasClientCapabilities: true}},
		{MethodServerDiscover, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9"}}`, RequestFields{ProtocolVersion: "v9"}},
		// Field names match params up to case, and the last one wins; a null
		// leaves the earlier value; _meta keys are exact.
		{MethodToolsCall, `{"NAME":"a","name":"b","name":null,"_META":{"io.modelcontextprotocol/protocolVersion":"x"},"_meta":null}`,
			RequestFields{ProtocolVersion: "x", NameField: "name", Name: "b", HasName: true}},
		{MethodToolsCall, `{"n\u0061me":"\u00e9","_meta":{"io.modelcontextprotocol/protocolversion":"x","io.modelcontextprotocol\/protocolVersion":"y"}}`,
			RequestFields{ProtocolVersion: "y", NameField: "name", Name: "é", HasName: true}},
		{MethodServerDiscover, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"a"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`,
			RequestFields{HasClientCapabilities: true}},
		// What the server cannot decode.
		{MethodToolsCall, `[1]`, RequestFields{NameField: "name", Malformed: true}},
		{MethodToolsCall, `{"name":5,` + statelessMeta + `}`,
			RequestFields{ProtocolVersion: "2026-07-28", HasClientCapabilities: true, NameField: "name", Malformed: true}},
		{MethodServerDiscover, `{"_meta":"x"}`, RequestFields{Malformed: true}},
		{MethodServerDiscover, `{"_meta":{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/clientCapabilities":{}}}`, RequestFields{Malformed: true}},
		{MethodServerDiscover, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v","io.modelcontextprotocol/clientCapabilities":[]}}`, RequestFields{Malformed: true}},
	} {
		tc.want.Method = tc.method
		if got := ReadRequestFields(tc.method, json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("ReadRequestFields(%s, %s)\n got %+v\nwant %+v", tc.method, tc.params, got, tc.want)
		}
	}
	if f := ReadRequestFields(MethodServerDiscover, json.RawMessage(`{`+statelessMeta+`}`)); f.MissingMeta() {
		t.Error("complete _meta reported missing")
	}
	for _, p := range []string{`{}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, `{"_meta":7}`} {
		if f := ReadRequestFields(MethodServerDiscover, json.RawMessage(p)); !f.MissingMeta() {
			t.Errorf("%s: MissingMeta false", p)
		}
	}
}

func TestCheckRequestHeaders(t *testing.T) {
	call := ReadRequestFields(MethodToolsCall, json.RawMessage(`{"name":"get_weather",`+statelessMeta+`}`))
	good := func() http.Header {
		return http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Name": {"get_weather"}}
	}
	if err := CheckRequestHeaders(good(), call); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(h http.Header){
		"method missing":      func(h http.Header) { delete(h, "Mcp-Method") },
		"method mismatch":     func(h http.Header) { h.Set("Mcp-Method", "prompts/get") },
		"method case":         func(h http.Header) { h.Set("Mcp-Method", "TOOLS/CALL") },
		"method twice":        func(h http.Header) { h.Add("Mcp-Method", "tools/call") },
		"version missing":     func(h http.Header) { delete(h, "Mcp-Protocol-Version") },
		"version mismatch":    func(h http.Header) { h.Set("Mcp-Protocol-Version", "2025-11-25") },
		"name missing":        func(h http.Header) { delete(h, "Mcp-Name") },
		"name mismatch":       func(h http.Header) { h.Set("Mcp-Name", "wrong_tool_name") },
		"name bad Base64":     func(h http.Header) { h.Set("Mcp-Name", "=?base64?Z2V0X3dlYXRoZXI?=") },
		"name non-ASCII":      func(h http.Header) { h.Set("Mcp-Name", "get_weather\u00e9") },
		"name sent twice":     func(h http.Header) { h.Add("Mcp-Name", "get_weather") },
		"name of other case ": func(h http.Header) { h.Set("Mcp-Name", "Get_weather") },
	} {
		h := good()
		change(h)
		if err := CheckRequestHeaders(h, call); !errors.Is(err, ErrHeaderMismatch) {
			t.Errorf("%s: %v, want an error wrapping ErrHeaderMismatch", name, err)
		}
	}
	// Accepted: a Base64 Mcp-Name, header names in any case, and no
	// comparison of the version header when the body lacks one (the server
	// answers that with -32602).
	h := good()
	h.Set("Mcp-Name", "=?base64?Z2V0X3dlYXRoZXI=?=")
	if err := CheckRequestHeaders(h, call); err != nil {
		t.Errorf("Base64 Mcp-Name: %v", err)
	}
	if err := CheckRequestHeaders(map[string][]string{"mcp-method": {"tools/list"}, "MCP-PROTOCOL-VERSION": {"2026-07-28"}},
		ReadRequestFields(MethodToolsList, json.RawMessage(`{`+statelessMeta+`}`))); err != nil {
		t.Errorf("header names in other cases: %v", err)
	}
	if err := CheckRequestHeaders(http.Header{"Mcp-Method": {"server/discover"}, "Mcp-Protocol-Version": {"2026-07-28"}},
		ReadRequestFields(MethodServerDiscover, json.RawMessage(`{}`))); err != nil {
		t.Errorf("no _meta: %v", err)
	}
	// The specification's example message.
	h = good()
	h.Set("Mcp-Name", "foo")
	err := CheckRequestHeaders(h, ReadRequestFields(MethodToolsCall, json.RawMessage(`{"name":"bar"}`)))
	if want := `header mismatch: Mcp-Name header value "foo" does not match body value "bar"`; err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func BenchmarkReadRequestFields(b *testing.B) {
	params := json.RawMessage(`{"name":"get_weather","arguments":{"location":"Seattle, WA"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}`)
	h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Name": {"get_weather"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckRequestHeaders(h, ReadRequestFields(MethodToolsCall, params)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadRequestFieldsRepeatedAllocatesNothing: the version and the name a
// client sends on every request come from the table of recent names.
func TestReadRequestFieldsRepeatedAllocatesNothing(t *testing.T) {
	params := json.RawMessage(`{"name":"get_weather","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	ReadRequestFields(MethodToolsCall, params)
	if n := testing.AllocsPerRun(100, func() { ReadRequestFields(MethodToolsCall, params) }); n != 0 {
		t.Errorf("%.0f allocations per read of the same params", n)
	}
	f := ReadRequestFields(MethodToolsCall, params)
	if f.Name != "get_weather" || f.ProtocolVersion != "2026-07-28" || !f.HasName || f.Malformed {
		t.Errorf("fields %+v", f)
	}
}

// TestInternNameKeepsTwoNamesOfOneSet: two names a client repeats on every
// request stay in the table even when they hash to the same set (with one
// slot per set they evicted each other, and the test above failed once in 64
// runs, with the seed).
func TestInternNameKeepsTwoNamesOfOneSet(t *testing.T) {
	setOf := func(s string) uint64 {
		return maphash.Bytes(internSeed, []byte(s)) % uint64(len(internedNames))
	}
	a, b := []byte("2026-07-28"), []byte(nil)
	for i := 0; b == nil; i++ {
		if n := fmt.Sprintf("tool_%d", i); setOf(n) == setOf(string(a)) {
			b = []byte(n)
		}
	}
	internName(a)
	internName(b)
	if n := testing.AllocsPerRun(100, func() { internName(a); internName(b) }); n != 0 {
		t.Errorf("%.0f allocations per pair of names in one set", n)
	}
}
