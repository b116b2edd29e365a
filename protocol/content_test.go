package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// roundTripContentCases covers every content type, with and without optional
// fields.
func roundTripContentCases() []Content {
	res := sampleResource()
	res.Meta = Meta{"k": "v", "n": 1.5}
	return []Content{
		NewTextContent("plain"),
		NewTextContent(""),
		{Type: ContentTypeText, Text: "with extras <&>", Annotations: &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: ptr(0.25), LastModified: "2025-01-01T00:00:00Z"}, Meta: Meta{"x": "y"}},
		NewImageContent([]byte{0, 1, 2, 250, 251, 252}, "image/png"),
		NewImageContent([]byte{}, "image/gif"),
		NewAudioContent([]byte("RIFFWAVE"), "audio/wav"),
		NewResourceLink(&res),
		NewResourceLink(&Resource{URI: "file:///minimal", Name: "m"}),
		NewEmbeddedResource(NewTextResourceContents("file:///a.txt", "text/plain", "body")),
		NewEmbeddedResource(NewTextResourceContents("file:///empty", "", "")),
		NewEmbeddedResource(NewBlobResourceContents("file:///b", "application/octet-stream", []byte{9, 8, 7})),
		NewEmbeddedResource(NewBlobResourceContents("file:///empty-blob", "", nil)),
		NewToolUseContent("call_1", "get_weather", json.RawMessage(`{"city":"Paris"}`)),
		{Type: ContentTypeToolUse, ID: "call_2", Name: "noargs", Input: json.RawMessage(`{}`), Meta: Meta{"k": "v"}},
		NewToolResultContent("call_1", []Content{NewTextContent("18C"), NewImageContent([]byte{1}, "image/png")}, false),
		{Type: ContentTypeToolResult, ToolUseID: "call_2", Content: []Content{}, StructuredContent: map[string]any{"t": 15.0}, IsError: true},
	}
}

// TestContentRoundTrip checks unmarshal(marshal(c)) == c for every type.
func TestContentRoundTrip(t *testing.T) {
	for _, c := range roundTripContentCases() {
		data := mustMarshal(t, c)
		var got Content
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%s: unmarshal: %v\n%s", c.Type, err, data)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("%s: round trip mismatch\nwant %#v\ngot  %#v\njson %s", c.Type, c, got, data)
		}
		// A second encoding must be byte-identical (stable output).
		if again := mustMarshal(t, got); string(again) != string(data) {
			t.Errorf("%s: unstable encoding\n%s\n%s", c.Type, data, again)
		}
	}
}

// TestContentEmitsOnlyItsFields checks exact wire shapes: required fields
// even when empty, never fields of another type.
func TestContentEmitsOnlyItsFields(t *testing.T) {
	cases := []struct {
		c    Content
		want string
	}{
		{NewTextContent(""), `{"type":"text","text":""}`},
		{Content{Type: ContentTypeText, Text: "t", Data: []byte{1}, URI: "x", Name: "n", ID: "i", IsError: true}, `{"type":"text","text":"t"}`},
		{NewImageContent(nil, ""), `{"type":"image","data":"","mimeType":""}`},
		{Content{Type: ContentTypeAudio, Data: []byte("hi"), MimeType: "audio/wav", Text: "ignored"}, `{"type":"audio","data":"aGk=","mimeType":"audio/wav"}`},
		{Content{Type: ContentTypeResourceLink, URI: "file:///a", Name: "a", Text: "ignored"}, `{"type":"resource_link","uri":"file:///a","name":"a"}`},
		{NewEmbeddedResource(NewTextResourceContents("file:///a", "", "")), `{"type":"resource","resource":{"uri":"file:///a","text":""}}`},
		{NewEmbeddedResource(NewBlobResourceContents("file:///a", "x/y", nil)), `{"type":"resource","resource":{"uri":"file:///a","mimeType":"x/y","blob":""}}`},
		{NewToolUseContent("1", "f", nil), `{"type":"tool_use","id":"1","name":"f","input":{}}`},
		{Content{Type: ContentTypeToolUse, ID: "1", Name: "f", Annotations: &Annotations{Priority: ptr(1.0)}}, `{"type":"tool_use","id":"1","name":"f","input":{}}`},
		{NewToolResultContent("1", nil, false), `{"type":"tool_result","toolUseId":"1","content":[]}`},
		{Content{Type: ContentTypeText, Text: "a", Meta: Meta{"k": "v"}}, `{"type":"text","text":"a","_meta":{"k":"v"}}`},
	}
	for _, tc := range cases {
		got := string(mustMarshal(t, tc.c))
		if got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestContentMarshalErrors checks that invalid blocks fail instead of
// producing invalid JSON.
func TestContentMarshalErrors(t *testing.T) {
	bad := []Content{
		{Type: "video"},
		{Type: ContentTypeResource},
		{Type: ContentTypeToolUse, ID: "1", Name: "f", Input: json.RawMessage(`{not json`)},
	}
	for _, c := range bad {
		if data, err := json.Marshal(c); err == nil {
			t.Errorf("%+v: expected error, got %s", c, data)
		}
	}
	if _, err := json.Marshal(&CallToolResult{Content: []Content{{Type: "bogus"}}}); err == nil {
		t.Error("CallToolResult with a bogus block encoded without error")
	}
	if _, err := json.Marshal(&ReadResourceResult{Contents: []*ResourceContents{nil}}); err == nil {
		t.Error("ReadResourceResult with a nil element encoded without error")
	}
}

// TestResourceContentsRoundTrip checks text/blob selection and round trips.
func TestResourceContentsRoundTrip(t *testing.T) {
	cases := []*ResourceContents{
		NewTextResourceContents("file:///a", "text/plain", "hello"),
		NewTextResourceContents("file:///a", "", ""),
		NewBlobResourceContents("file:///b", "image/png", []byte{1, 2, 3, 255}),
		NewBlobResourceContents("file:///b", "", nil),
		{URI: "file:///m", Text: "t", Meta: Meta{"k": []any{"v"}}},
	}
	for _, rc := range cases {
		data := mustMarshal(t, rc)
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		_, hasText := m["text"]
		_, hasBlob := m["blob"]
		if hasText == hasBlob || hasBlob != rc.IsBlob() {
			t.Errorf("%s: text=%v blob=%v, IsBlob=%v", data, hasText, hasBlob, rc.IsBlob())
		}
		var got ResourceContents
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, rc) {
			t.Errorf("round trip mismatch\nwant %#v\ngot  %#v", rc, &got)
		}
	}
}

// TestAppendStringMatchesEncodingJSON checks the hand-written string escaper
// against encoding/json, including invalid UTF-8 and HTML characters.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	inputs := []string{"", "plain", "quote\" back\\ slash", "\n\r\t\b\f\x00\x1f\x7f", "<script>&amp;</script>",
		"héllo wörld ✓ 🎉", "bad \xff\xfe utf8 \xc3", "line\u2028sep\u2029", strings.Repeat("ab\"", 100)}
	for _, s := range inputs {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}

// TestRequiredArraysNeverNull checks that every result with a required array
// encodes a nil slice as [].
func TestRequiredArraysNeverNull(t *testing.T) {
	cases := map[string]any{
		`"tools":[]`:             ListToolsResult{},
		`"content":[]`:           CallToolResult{},
		`"resources":[]`:         ListResourcesResult{},
		`"resourceTemplates":[]`: ListResourceTemplatesResult{},
		`"contents":[]`:          ReadResourceResult{},
		`"prompts":[]`:           ListPromptsResult{},
		`"messages":[]`:          GetPromptResult{},
		`"values":[]`:            CompleteResult{},
		`"roots":[]`:             ListRootsResult{},
		`"tasks":[]`:             ListTasksResult{},
		`"supportedVersions":[]`: DiscoverResult{},
		`"messages":[] `:         CreateMessageParams{},
	}
	for want, v := range cases {
		for _, val := range []any{v, reflect.New(reflect.TypeOf(v)).Interface()} {
			data := string(mustMarshal(t, val))
			if !strings.Contains(data, strings.TrimSpace(want)) || strings.Contains(data, "null") {
				t.Errorf("%T: %s does not contain %s (or has null)", val, data, want)
			}
		}
	}
}

// TestToolDefaultInputSchema checks the required inputSchema is filled in.
func TestToolDefaultInputSchema(t *testing.T) {
	data := string(mustMarshal(t, Tool{Name: "x"}))
	if data != `{"name":"x","inputSchema":{"type":"object"}}` {
		t.Errorf("got %s", data)
	}
	var back Tool
	if err := json.Unmarshal([]byte(data), &back); err != nil || string(back.InputSchema) != `{"type":"object"}` {
		t.Errorf("decode: %v %s", err, back.InputSchema)
	}
}

// TestSamplingContentForms checks object/array encoding and decoding.
func TestSamplingContentForms(t *testing.T) {
	one := SamplingMessage{Role: RoleUser, Content: SamplingContent{NewTextContent("hi")}}
	if got := string(mustMarshal(t, one)); got != `{"role":"user","content":{"type":"text","text":"hi"}}` {
		t.Errorf("single block: %s", got)
	}
	two := SamplingMessage{Role: RoleUser, Content: SamplingContent{NewTextContent("a"), NewTextContent("b")}}
	data := mustMarshal(t, two)
	if !strings.Contains(string(data), `"content":[{`) {
		t.Errorf("two blocks not an array: %s", data)
	}
	for _, in := range []string{`{"role":"user","content":{"type":"text","text":"x"}}`, `{"role":"user","content":[{"type":"text","text":"x"}]}`} {
		var m SamplingMessage
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Content) != 1 || m.Content[0].Text != "x" {
			t.Errorf("%s decoded to %+v", in, m.Content)
		}
	}
	var bad SamplingMessage
	if err := json.Unmarshal([]byte(`{"role":"user","content":"text"}`), &bad); err == nil {
		t.Error("string content accepted")
	}
}

// TestCallToolResultAppendJSON checks the append API matches MarshalJSON.
func TestCallToolResultAppendJSON(t *testing.T) {
	r := &CallToolResult{Content: allContent(), StructuredContent: json.RawMessage(`{"a":1}`), IsError: true,
		ResultType: ResultTypeComplete, Meta: Meta{"k": "v"}}
	viaMarshal := mustMarshal(t, r)
	viaAppend, err := r.AppendJSON([]byte("prefix:"))
	if err != nil {
		t.Fatal(err)
	}
	if string(viaAppend) != "prefix:"+string(viaMarshal) {
		t.Errorf("append differs:\n%s\n%s", viaAppend, viaMarshal)
	}
	var back CallToolResult
	if err := json.Unmarshal(viaMarshal, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.StructuredContent, map[string]any{"a": 1.0}) || !back.IsError || back.ResultType != ResultTypeComplete ||
		len(back.Content) != len(r.Content) {
		t.Errorf("decoded %+v", back)
	}
}

// TestAppendJSONMatchesMarshal checks the generic append helper against
// json.Marshal for fast-path and fallback values.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	var nilResult *CallToolResult
	values := []any{
		NewToolResultText("x"), *NewToolResultText("y"), ptr(NewTextContent("z")), NewTextContent("w"),
		NewTextResourceContents("file:///a", "", "t"), *NewBlobResourceContents("file:///b", "", []byte{1}),
		json.RawMessage(`{"a":1}`), &ListToolsResult{}, nilResult, map[string]int{"n": 1},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendJSON([]byte("x"), v)
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("%T: got %s, want x%s (%v)", v, got, want, err)
		}
	}
	if _, err := AppendJSON(nil, func() {}); err == nil {
		t.Error("unencodable value accepted")
	}
}
