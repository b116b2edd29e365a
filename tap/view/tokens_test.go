package view

import (
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/llm/tokens"
)

const (
	initOK   = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"demo","version":"1.2"}}}`
	initCall = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	small    = `{"name":"ping","description":"Ping.","inputSchema":{"type":"object"}}`
	big      = `{"name":"search","description":"Search the documents of the workspace by full text, with filters on author, date and tags.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"words to find"},"author":{"type":"string"},"after":{"type":"string","format":"date"},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"]}}`
)

// TestToolListsOf: per session the latest tools/list answer with all its pages
// (a request without a cursor starts over), sessions with the same tools from the
// same server together.
func TestToolListsOf(t *testing.T) {
	b := &recs{}
	for _, s := range []string{"a", "b"} {
		b.msg(c2s, s, initCall)
		b.msg(s2c, s, initOK)
	}
	b.msg(c2s, "a", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.msg(s2c, "a", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"old","inputSchema":{"type":"object"}}]}}`)
	b.msg(c2s, "a", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b.msg(s2c, "a", `{"jsonrpc":"2.0","id":2,"result":{"tools":[`+small+`],"nextCursor":"c1"}}`)
	b.msg(c2s, "a", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c1"}}`)
	b.msg(s2c, "a", `{"jsonrpc":"2.0","id":3,"result":{"tools":[`+big+`]}}`)
	b.msg(c2s, "b", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.msg(s2c, "b", `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+small+`,`+big+`]}}`)
	b.msg(c2s, "c", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.msg(s2c, "c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no tools"}}`)
	lists := ToolListsOf(b.snapshot())
	if len(lists) != 1 {
		t.Fatalf("lists = %+v", lists)
	}
	l := lists[0]
	var names []string
	for _, tool := range l.Tools {
		names = append(names, tool.Name)
	}
	if l.Server != "demo 1.2" || !slices.Equal(l.Sessions, []string{"a", "b"}) || !slices.Equal(names, []string{"ping", "search"}) ||
		!slices.Equal(l.Entries, []string{"7", "9"}) {
		t.Errorf("list = %+v, tools %v", l, names)
	}
}

// TestTokensOf counts the tools as the chosen format's definitions: largest
// first, the total their sum, the same as llm/tokens counts them; the two
// formats differ; a bad choice is an error.
func TestTokensOf(t *testing.T) {
	b := &recs{}
	b.msg(c2s, "a", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.msg(s2c, "a", `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+small+`,`+big+`]}}`)
	snap := b.snapshot()
	totals := map[tokens.Format]int{}
	for _, f := range tokens.Formats {
		p, err := TokensOf(snap, f, tokens.Cl100kBase)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Lists) != 1 || p.ToolsVersion != "2" || p.Format != f {
			t.Fatalf("%s: %+v", f, p)
		}
		l := p.Lists[0]
		if len(l.Counts) != 2 || l.Counts[0].Name != "search" || l.Counts[0].Tokens <= l.Counts[1].Tokens ||
			l.Total != l.Counts[0].Tokens+l.Counts[1].Tokens {
			t.Errorf("%s: counts %+v total %d", f, l.Counts, l.Total)
		}
		want, err := tokens.Count(ToolListsOf(snap)[0].Tools, f, tokens.Cl100kBase)
		if err != nil || want.Total != l.Total {
			t.Errorf("%s: total %d, llm/tokens says %d (%v)", f, l.Total, want.Total, err)
		}
		totals[f] = l.Total
	}
	if totals[tokens.FormatOpenAI] == totals[tokens.FormatAnthropic] {
		t.Errorf("the formats count the same: %v", totals)
	}
	if _, err := TokensOf(snap, "gemini", ""); err == nil {
		t.Error("an unknown format is accepted")
	}
	empty, err := TokensOf((&recs{}).snapshot(), "", "")
	if err != nil || len(empty.Lists) != 0 || empty.Format != tokens.FormatOpenAI || empty.Encoding != tokens.O200kBase {
		t.Errorf("no tools/list: %+v, %v", empty, err)
	}
}
