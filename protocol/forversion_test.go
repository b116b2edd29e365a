package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestForVersionNoChangeIsFree(t *testing.T) {
	res := &CallToolResult{Content: allContent(), StructuredContent: map[string]any{"a": 1.0}, ResultType: ResultTypeComplete}
	tool := ptr(sampleTool(Version20260728))
	tool.Execution = nil
	impl := ptr(sampleImpl(Version20260728))
	prompt := &Prompt{Name: "p", Title: "P", Icons: sampleIcons(), Arguments: []PromptArgument{{Name: "a", Title: "A"}}}
	resource := ptr(sampleResource())
	gp := &GetPromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: NewAudioContent(nil, "audio/wav")}}}
	caps := &ServerCapabilities{Completions: &Supported{}, Extensions: map[string]map[string]any{"x": {}}}
	allocs := testing.AllocsPerRun(100, func() {
		if res.ForVersion(Version20260728) != res || tool.ForVersion(Version20260728) != tool ||
			impl.ForVersion(Version20260728) != impl || prompt.ForVersion(Version20260728) != prompt ||
			resource.ForVersion(Version20260728) != resource || gp.ForVersion(Version20251125) != gp ||
			caps.ForVersion(Version20260728) != caps {
			t.Fatal("ForVersion copied a value that needed no change")
		}
	})
	if allocs != 0 {
		t.Errorf("ForVersion allocated %v times with nothing to change", allocs)
	}
	var nilRes *CallToolResult
	if nilRes.ForVersion(Version20241105) != nil {
		t.Error("nil result adapted to non-nil")
	}
}

func TestCallToolResultForVersion(t *testing.T) {
	res := &CallToolResult{Content: allContent(), StructuredContent: map[string]any{"a": 1.0}, ResultType: ResultTypeComplete}
	cases := []struct {
		v                                  string
		audio, link, structured, resultTyp bool
	}{
		{Version20241105, false, false, false, false},
		{Version20250326, true, false, false, false},
		{Version20250618, true, true, true, false},
		{Version20251125, true, true, true, false},
		{Version20260728, true, true, true, true},
	}
	for _, c := range cases {
		got := res.ForVersion(c.v)
		var audio, link bool
		for _, b := range got.Content {
			audio = audio || b.Type == ContentTypeAudio
			link = link || b.Type == ContentTypeResourceLink
		}
		if audio != c.audio || link != c.link || (got.StructuredContent != nil) != c.structured || (got.ResultType != "") != c.resultTyp {
			t.Errorf("%s: audio %v link %v structured %v resultType %q", c.v, audio, link, got.StructuredContent != nil, got.ResultType)
		}
		if len(got.Content) != len(res.Content) {
			t.Errorf("%s: %d blocks, want %d", c.v, len(got.Content), len(res.Content))
		}
	}
	// A link becomes readable text naming the URI.
	old := res.ForVersion(Version20241105)
	if !strings.Contains(old.Content[5].Text, "file:///project/a.txt") {
		t.Errorf("link text %q", old.Content[5].Text)
	}
	// Structured-only results keep their data as text for old clients.
	only := &CallToolResult{StructuredContent: map[string]any{"temp": 21.0}}
	got := only.ForVersion(Version20250326)
	if len(got.Content) != 1 || got.Content[0].Text != `{"temp":21}` || got.StructuredContent != nil {
		t.Errorf("structured-only adapted to %+v", got)
	}
}

func TestToolForVersion(t *testing.T) {
	full := sampleTool(Version20251125)
	if full.Execution == nil || full.Icons == nil || full.Title == "" {
		t.Fatal("sample tool lost fields for 2025-11-25")
	}
	t0 := full.ForVersion(Version20241105)
	if t0.Title != "" || t0.OutputSchema != nil || t0.Annotations != nil || t0.Icons != nil || t0.Execution != nil || t0.Meta != nil {
		t.Errorf("2024-11-05 tool kept new fields: %+v", t0)
	}
	t1 := full.ForVersion(Version20250326)
	if t1.Annotations == nil || t1.Title != "" {
		t.Errorf("2025-03-26 tool: %+v", t1)
	}
	t2 := full.ForVersion(Version20260728)
	if t2.Execution != nil || t2.Icons == nil || t2.OutputSchema == nil {
		t.Errorf("2026-07-28 tool: %+v", t2)
	}
	if full.Title == "" || full.Execution == nil {
		t.Error("ForVersion modified the original")
	}
}

func TestPromptAndResourceForVersion(t *testing.T) {
	p := &Prompt{Name: "p", Title: "P", Icons: sampleIcons(), Arguments: []PromptArgument{{Name: "a", Title: "A", Required: true}}}
	old := p.ForVersion(Version20250326)
	if old.Title != "" || old.Icons != nil || old.Arguments[0].Title != "" || !old.Arguments[0].Required {
		t.Errorf("old prompt %+v", old)
	}
	if p.Arguments[0].Title != "A" {
		t.Error("original argument modified")
	}
	mid := p.ForVersion(Version20250618)
	if mid.Title != "P" || mid.Icons != nil {
		t.Errorf("2025-06-18 prompt %+v", mid)
	}
	r := ptr(sampleResource())
	if o := r.ForVersion(Version20241105); o.Title != "" || o.Icons != nil || o.Meta != nil || o.Size == nil {
		t.Errorf("old resource %+v", o)
	}
	impl := ptr(sampleImpl(Version20251125))
	if o := impl.ForVersion(Version20250618); o.Title == "" || o.Icons != nil || o.WebsiteURL != "" {
		t.Errorf("2025-06-18 implementation %+v", o)
	}
	caps := &ServerCapabilities{Completions: &Supported{}, Tasks: &ServerTasksCapability{}, Extensions: map[string]map[string]any{}}
	if o := caps.ForVersion(Version20241105); o.Completions != nil || o.Tasks != nil || o.Extensions != nil {
		t.Errorf("old caps %+v", o)
	}
	if o := caps.ForVersion(Version20251125); o.Tasks == nil || o.Extensions != nil {
		t.Errorf("2025-11-25 caps %+v", o)
	}
	gp := &GetPromptResult{ResultType: ResultTypeComplete, Messages: []PromptMessage{{Role: RoleUser, Content: NewAudioContent([]byte{1}, "audio/wav")}}}
	o := gp.ForVersion(Version20241105)
	if o.ResultType != "" || o.Messages[0].Content.Type != ContentTypeText || gp.Messages[0].Content.Type != ContentTypeAudio {
		t.Errorf("old prompt result %+v", o)
	}
	if _, err := json.Marshal(o); err != nil {
		t.Error(err)
	}
}

func TestListAndInitializeForVersion(t *testing.T) {
	lr := &ListToolsResult{Tools: []Tool{{Name: "plain"}, sampleTool(Version20251125)}, ResultType: ResultTypeComplete}
	lr.SetCache(time.Minute, CacheScopePublic)
	if lr.ForVersion(Version20260728) == lr {
		t.Error("execution should be dropped for 2026-07-28")
	}
	old := lr.ForVersion(Version20241105)
	if old.ResultType != "" || old.TTLMs != nil || old.CacheScope != "" || old.Tools[1].Title != "" || old.Tools[0].Name != "plain" {
		t.Errorf("old list %+v", old)
	}
	if lr.Tools[1].Title == "" || lr.TTLMs == nil {
		t.Error("original modified")
	}
	plain := &ListToolsResult{Tools: []Tool{{Name: "a"}}}
	if allocs := testing.AllocsPerRun(50, func() { _ = plain.ForVersion(Version20241105) }); allocs != 0 || plain.ForVersion(Version20241105) != plain {
		t.Errorf("unchanged list allocated %v", allocs)
	}
	ir := &InitializeResult{ProtocolVersion: Version20250326, ServerInfo: sampleImpl(Version20251125),
		Capabilities: ServerCapabilities{Completions: &Supported{}, Tasks: &ServerTasksCapability{}}}
	o := ir.ForVersion(Version20250326)
	if o == ir || o.ServerInfo.Icons != nil || o.ServerInfo.Title != "" || o.Capabilities.Tasks != nil || o.Capabilities.Completions == nil {
		t.Errorf("adapted initialize result %+v", o)
	}
	same := &InitializeResult{ServerInfo: Implementation{Name: "s", Version: "1"}}
	if same.ForVersion(Version20241105) != same {
		t.Error("unchanged initialize result copied")
	}
}
