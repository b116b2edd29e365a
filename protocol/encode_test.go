package protocol

import (
	"encoding/json"
	"testing"
)

// metaEncodesLikeEncodingJSON fails unless appendMetaField writes m exactly as
// encoding/json does, or fails where it fails.
func metaEncodesLikeEncodingJSON(t *testing.T, m Meta) {
	t.Helper()
	got, err := appendMetaField([]byte("{"), "_meta", m)
	want, wantErr := json.Marshal(m)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%#v: appendMetaField error %v, encoding/json error %v", m, err, wantErr)
	}
	if err == nil && string(got) != `{"_meta":`+string(want) {
		t.Fatalf("%#v:\nappendMetaField %s\nencoding/json   {\"_meta\":%s", m, got, want)
	}
}

var metaEncodeSeeds = []struct{ raw, name, version string }{
	{`{"a":1,"b":"x"}`, "server", "1.0"},
	{` { "spaced" : [ 1 , 2 ] } `, "s<&>", "\u2028"},
	{`"<script>"`, "\xff\xfe", ""},
	{`{"a":"\u2029"}`, "", "v"},
	{`not json`, "n", "v"},
	{`{"k":{"nested":[true,null,1.5e300]}}`, "名前", "1"},
	{`null`, "", ""},
	{``, "x", "y"},
}

func TestAppendMetaMatchesEncodingJSON(t *testing.T) {
	metaEncodesLikeEncodingJSON(t, Meta{})
	metaEncodesLikeEncodingJSON(t, Meta{"nil": nil, "b": true, "f": 0.000001, "n": json.Number("12"), "impl": (*Implementation)(nil)})
	metaEncodesLikeEncodingJSON(t, Meta{"c": make(chan int)}) // unsupported: both fail
	metaEncodesLikeEncodingJSON(t, Meta{MetaKeyServerInfo: &Implementation{Name: "s", Version: "1",
		Icons: []Icon{{Src: "https://example.com/i.png"}}, Description: "d", WebsiteURL: "https://example.com", Title: "T"}})
	many := Meta{}
	for _, k := range []string{"i", "h", "g", "f", "e", "d", "c", "b", "a"} {
		many[k] = k
	}
	metaEncodesLikeEncodingJSON(t, many)
	for _, s := range metaEncodeSeeds {
		metaEncodesLikeEncodingJSON(t, metaFromFuzz([]byte(s.raw), s.name, s.version))
	}
}

// metaFromFuzz builds a _meta holding the fuzzed bytes as raw JSON, the
// members they decode to (when they are an object), and an implementation.
func metaFromFuzz(raw []byte, name, version string) Meta {
	m := Meta{"raw": json.RawMessage(raw), name: version,
		MetaKeyServerInfo: &Implementation{Name: name, Version: version, Title: version}}
	var members map[string]any
	if json.Unmarshal(raw, &members) == nil {
		for k, v := range members {
			m[k] = v
		}
	}
	return m
}

func FuzzAppendMeta(f *testing.F) {
	for _, s := range metaEncodeSeeds {
		f.Add([]byte(s.raw), s.name, s.version)
	}
	f.Fuzz(func(t *testing.T, raw []byte, name, version string) {
		metaEncodesLikeEncodingJSON(t, metaFromFuzz(raw, name, version))
	})
}

func BenchmarkAppendServerInfoMeta(b *testing.B) {
	m := Meta{MetaKeyServerInfo: &Implementation{Name: "bench-server", Version: "1.0.0"}}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = appendMetaField(buf[:0], "_meta", m); err != nil {
			b.Fatal(err)
		}
	}
}

// callParamsEncodeLikeEncodingJSON fails unless p.AppendJSON writes what
// json.Marshal writes, or fails when it fails.
func callParamsEncodeLikeEncodingJSON(t *testing.T, p *CallToolParams) {
	t.Helper()
	want, wantErr := json.Marshal(p)
	got, err := p.AppendJSON([]byte("prefix"))
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%+v: AppendJSON error %v, encoding/json error %v", p, err, wantErr)
	}
	if err == nil && string(got) != "prefix"+string(want) {
		t.Fatalf("%+v:\nAppendJSON    %s\nencoding/json prefix%s", p, got, want)
	}
}

// TestCallToolParamsAppendJSON: the hand-written encoding of a call and each
// case that takes encoding/json (arguments it would rewrite, _meta, a task,
// input responses) give encoding/json's bytes.
func TestCallToolParamsAppendJSON(t *testing.T) {
	for _, p := range []*CallToolParams{
		{Name: "echo"},
		{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)},
		{Name: "a<b>&\u2028\xff\"", Arguments: json.RawMessage(`{}`), RequestState: "s<1>"},
		{Name: "echo", Arguments: json.RawMessage(`{ "message" : "hi" }`)},
		{Name: "echo", Arguments: json.RawMessage(`{"html":"<b>"}`)},
		{Name: "echo", Arguments: json.RawMessage(`{"ls":"\u2028"}`)},
		{Name: "echo", Arguments: json.RawMessage(`{"bad":`)},
		{Name: "echo", Arguments: json.RawMessage(`{"a":1}{}`)},
		{Name: "echo", Meta: Meta{"progressToken": int64(1)}},
		{Name: "echo", Task: &TaskMetadata{}},
		{Name: "echo", InputResponses: InputResponses{}},
	} {
		callParamsEncodeLikeEncodingJSON(t, p)
	}
}

func FuzzCallToolParamsAppendJSON(f *testing.F) {
	f.Add("echo", []byte(`{"message":"hi"}`), "")
	f.Add("x<y", []byte(`{ "a" : [1, 2.5e3, "\u0041"] }`), "state")
	f.Add("", []byte(`{"a":"&"}`), "")
	f.Add("n", []byte(`[]`), "")
	f.Fuzz(func(t *testing.T, name string, args []byte, state string) {
		callParamsEncodeLikeEncodingJSON(t, &CallToolParams{Name: name, Arguments: args, RequestState: state})
	})
}
