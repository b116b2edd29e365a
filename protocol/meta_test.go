package protocol

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMetaDecodeTypesKnownKeys(t *testing.T) {
	in := `{
		"progressToken": 9007199254740993,
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": {"sampling": {"tools": {}}, "elicitation": {}},
		"io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
		"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "2"},
		"io.modelcontextprotocol/logLevel": "warning",
		"io.modelcontextprotocol/subscriptionId": "listen-1",
		"io.modelcontextprotocol/related-task": {"taskId": "t-1"},
		"custom": {"n": 1}
	}`
	var m Meta
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	tok, ok := m.ProgressToken()
	if !ok || tok != int64(9007199254740993) {
		t.Errorf("progress token %v (%T) %v: want exact int64 above 2^53", tok, tok, ok)
	}
	if m.ProtocolVersion() != Version20260728 {
		t.Errorf("protocol version %q", m.ProtocolVersion())
	}
	caps, ok := m.ClientCapabilities()
	if !ok || caps.Sampling == nil || caps.Sampling.Tools == nil || !caps.Elicitation.SupportsForm() || caps.Elicitation.SupportsURL() {
		t.Errorf("client capabilities %+v %v", caps, ok)
	}
	if info, ok := m.ClientInfo(); !ok || info.Name != "c" {
		t.Errorf("client info %+v", info)
	}
	if info, ok := m.ServerInfo(); !ok || info.Version != "2" {
		t.Errorf("server info %+v", info)
	}
	if l, ok := m.LogLevel(); !ok || l != LevelWarning {
		t.Errorf("log level %q %v", l, ok)
	}
	if id, ok := m.SubscriptionID(); !ok || id != "listen-1" {
		t.Errorf("subscription id %v", id)
	}
	if rt, ok := m[MetaKeyRelatedTask].(*RelatedTaskMetadata); !ok || rt.TaskID != "t-1" {
		t.Errorf("related task %#v", m[MetaKeyRelatedTask])
	}
	if !reflect.DeepEqual(m["custom"], map[string]any{"n": 1.0}) {
		t.Errorf("custom %#v", m["custom"])
	}
	// Re-encoding keeps the exact token.
	if out := string(mustMarshal(t, m)); !strings.Contains(out, `"progressToken":9007199254740993`) {
		t.Errorf("re-encoded %s", out)
	}
}

func TestMetaAccessorsConvertGenericValues(t *testing.T) {
	m := Meta{
		MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{}},
		MetaKeyClientInfo:         map[string]any{"name": "n", "version": "v"},
		MetaKeyLogLevel:           "debug",
		MetaKeyProgressToken:      float64(12),
	}
	if c, ok := m.ClientCapabilities(); !ok || c.Roots == nil {
		t.Errorf("caps %+v %v", c, ok)
	}
	if i, ok := m.ClientInfo(); !ok || i.Name != "n" {
		t.Errorf("info %+v", i)
	}
	if l, ok := m.LogLevel(); !ok || l != LevelDebug {
		t.Errorf("level %v", l)
	}
	if tok, ok := m.ProgressToken(); !ok || tok != int64(12) {
		t.Errorf("token %v %T", tok, tok)
	}
	bad := Meta{MetaKeyClientCapabilities: "nope", MetaKeyProgressToken: 1.5}
	if _, ok := bad.ClientCapabilities(); ok {
		t.Error("string capabilities accepted")
	}
	if _, ok := bad.ProgressToken(); ok {
		t.Error("fractional token accepted")
	}
	var empty Meta
	if _, ok := empty.ProgressToken(); ok {
		t.Error("token in nil meta")
	}
	if _, ok := empty.ClientInfo(); ok {
		t.Error("client info in nil meta")
	}
}

func TestMetaNullAndErrors(t *testing.T) {
	var p CallToolParams
	if err := json.Unmarshal([]byte(`{"_meta":null,"name":"x"}`), &p); err != nil || p.Meta != nil {
		t.Errorf("null meta: %v %v", err, p.Meta)
	}
	for _, in := range []string{`{"_meta":[1]}`, `{"_meta":{"progressToken":1.5}}`, `{"_meta":{"progressToken":{}}}`,
		`{"_meta":{"io.modelcontextprotocol/clientCapabilities":"x"}}`} {
		if err := json.Unmarshal([]byte(in), &p); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

func TestMetaSetters(t *testing.T) {
	var m Meta
	m = m.SetProgressToken("abc")
	if tok, _ := m.ProgressToken(); tok != "abc" {
		t.Errorf("token %v", tok)
	}
	c := m.Clone().With("k", 1)
	if _, ok := m["k"]; ok {
		t.Error("Clone shares the map")
	}
	if c["k"] != 1 || Meta(nil).Clone() != nil {
		t.Error("Clone/With")
	}
}

func TestNewRequestMeta(t *testing.T) {
	m := NewRequestMeta(RequestMeta{ProtocolVersion: Version20260728})
	out := string(mustMarshal(t, m))
	want := `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	if out != want {
		t.Errorf("got %s want %s", out, want)
	}
}

func TestDecodeAndNormalizeID(t *testing.T) {
	good := map[string]any{`"a"`: "a", `0`: int64(0), `-5`: int64(-5), `9223372036854775807`: int64(math.MaxInt64), `1e3`: int64(1000), `2.0`: int64(2)}
	for in, want := range good {
		got, err := DecodeID([]byte(in))
		if err != nil || got != want {
			t.Errorf("DecodeID(%s) = %v (%T), %v; want %v", in, got, got, err, want)
		}
	}
	for _, in := range []string{``, `1.5`, `true`, `null`, `{}`, `"unterminated`, `1e400`} {
		if got, err := DecodeID([]byte(in)); err == nil {
			t.Errorf("DecodeID(%s) = %v, want error", in, got)
		}
	}
	norm := []struct {
		in   any
		want any
		ok   bool
	}{
		{"s", "s", true}, {7, int64(7), true}, {int32(-1), int64(-1), true}, {uint8(3), int64(3), true},
		{uint64(math.MaxUint64), nil, false}, {3.0, int64(3), true}, {3.5, nil, false}, {math.Inf(1), nil, false},
		{json.Number("12"), int64(12), true}, {json.Number("1.5"), nil, false}, {true, nil, false}, {nil, nil, false},
	}
	for _, c := range norm {
		got, ok := NormalizeID(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("NormalizeID(%v) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestIDParamsKeepJSONType(t *testing.T) {
	for _, in := range []string{`{"requestId":9007199254740993,"reason":"r"}`, `{"requestId":"abc"}`, `{"requestId":0}`} {
		var p CancelledParams
		if err := json.Unmarshal([]byte(in), &p); err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, []byte(in), mustMarshal(t, p)) || strings.Contains(string(mustMarshal(t, p)), ".") {
			t.Errorf("%s re-encoded as %s", in, mustMarshal(t, p))
		}
	}
	var p ProgressParams
	if err := json.Unmarshal([]byte(`{"progressToken":123,"progress":1.5,"total":3}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.ProgressToken != int64(123) || p.Progress != 1.5 || p.Total != 3 {
		t.Errorf("%+v", p)
	}
	if err := json.Unmarshal([]byte(`{"progressToken":[1],"progress":1}`), &p); err == nil {
		t.Error("array token accepted")
	}
	if err := json.Unmarshal([]byte(`{"requestId":false}`), new(CancelledParams)); err == nil {
		t.Error("bool request id accepted")
	}
	var none CancelledParams
	if err := json.Unmarshal([]byte(`{"reason":"x"}`), &none); err != nil || none.RequestID != nil {
		t.Errorf("absent id: %v %v", err, none.RequestID)
	}
}

func TestCacheHint(t *testing.T) {
	var r ListToolsResult
	r.SetCache(1500*time.Millisecond, CacheScopePrivate)
	out := string(mustMarshal(t, r))
	if !strings.Contains(out, `"ttlMs":1500`) || !strings.Contains(out, `"cacheScope":"private"`) {
		t.Errorf("got %s", out)
	}
	r.SetCache(-time.Second, CacheScopePublic)
	if *r.TTLMs != 0 {
		t.Errorf("negative ttl stored as %d", *r.TTLMs)
	}
	if out := string(mustMarshal(t, r)); !strings.Contains(out, `"ttlMs":0`) {
		t.Errorf("zero ttl omitted: %s", out)
	}
	r.ClearCache()
	if out := string(mustMarshal(t, r)); strings.Contains(out, "ttlMs") || strings.Contains(out, "cacheScope") {
		t.Errorf("cleared cache still encoded: %s", out)
	}
}

func TestInputRequestCodec(t *testing.T) {
	reqs := map[string]InputRequest{
		"e": NewElicitInputRequest(&ElicitParams{Message: "m", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}),
		"s": NewCreateMessageInputRequest(&CreateMessageParams{Messages: []SamplingMessage{{Role: RoleUser, Content: SamplingContent{NewTextContent("q")}}}, MaxTokens: 5}),
		"r": NewListRootsInputRequest(),
		"x": {Method: "vendor/thing", RawParams: json.RawMessage(`{"a":1}`)},
	}
	data := mustMarshal(t, reqs)
	var back map[string]InputRequest
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back["e"].Elicit == nil || back["e"].Elicit.Message != "m" {
		t.Errorf("elicit %+v", back["e"])
	}
	if back["s"].CreateMessage == nil || back["s"].CreateMessage.MaxTokens != 5 {
		t.Errorf("sampling %+v", back["s"])
	}
	if back["r"].Method != MethodRootsList || back["r"].ListRoots != nil {
		t.Errorf("roots %+v", back["r"])
	}
	if string(back["x"].RawParams) != `{"a":1}` {
		t.Errorf("raw %+v", back["x"])
	}
	if !jsonEqual(t, data, mustMarshal(t, back)) {
		t.Errorf("unstable: %s vs %s", data, mustMarshal(t, back))
	}
	if _, err := json.Marshal(InputRequest{Method: MethodElicitationCreate}); err == nil {
		t.Error("elicit without params encoded")
	}
	if err := json.Unmarshal([]byte(`{"method":"elicitation/create","params":{"message":5}}`), new(InputRequest)); err == nil {
		t.Error("bad params accepted")
	}
}

func TestInputResponses(t *testing.T) {
	r, err := InputResponses(nil).Set("login", ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"name": "o"}})
	if err != nil {
		t.Fatal(err)
	}
	p := CallToolParams{Name: "t", InputResponses: r, RequestState: "st"}
	var back CallToolParams
	if err := json.Unmarshal(mustMarshal(t, p), &back); err != nil {
		t.Fatal(err)
	}
	var er ElicitResult
	if ok, err := back.InputResponses.Decode("login", &er); !ok || err != nil || er.Action != ElicitActionAccept || er.Content["name"] != "o" {
		t.Errorf("decode: %v %v %+v", ok, err, er)
	}
	if ok, err := back.InputResponses.Decode("missing", &er); ok || err != nil {
		t.Errorf("missing key: %v %v", ok, err)
	}
	if _, err := back.InputResponses.Decode("login", &[]int{}); err == nil {
		t.Error("decoding an object into a slice succeeded")
	}
	if _, err := r.Set("bad", func() {}); err == nil {
		t.Error("unencodable value stored")
	}
}
