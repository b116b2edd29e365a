package main

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/llm/tokens"
	"github.com/mcpkit/mcpkit/protocol"
)

// checkTokenReport checks what any report must hold: largest first, each
// tool's parts adding up to its count, the counts to the total.
func checkTokenReport(t *testing.T, r *tokens.Report) {
	t.Helper()
	sum := 0
	for i, tc := range r.Tools {
		sum += tc.Tokens
		if tc.Text+tc.Schema+tc.Framing != tc.Tokens || tc.Tokens <= 0 {
			t.Errorf("%s: parts %+v", tc.Name, tc)
		}
		if i > 0 && r.Tools[i-1].Tokens < tc.Tokens {
			t.Errorf("%s (%d) listed before %s (%d)", r.Tools[i-1].Name, r.Tools[i-1].Tokens, tc.Name, tc.Tokens)
		}
	}
	if sum != r.Total || r.Total == 0 {
		t.Errorf("total %d, the tools add up to %d", r.Total, sum)
	}
}

// mcpkit tokens counts every tool of the demo server (over stdio) exactly as
// tokens.Count counts the list `mcpkit tools` shows, in both formats; prompts
// and resource templates too.
func TestTokensAgainstDemo(t *testing.T) {
	toolsOut, stderr, code := run(t, "tools", "--json")
	if code != 0 {
		t.Fatalf("tools: exit %d\n%s", code, stderr)
	}
	var tools []protocol.Tool
	if err := json.Unmarshal([]byte(toolsOut), &tools); err != nil || len(tools) < 10 {
		t.Fatalf("tools: %v (%d tools)", err, len(tools))
	}
	totals := map[tokens.Format]int{}
	for _, format := range tokens.Formats {
		out, stderr, code := run(t, "tokens", "--json", "--format", string(format), "--encoding", "cl100k_base")
		if code != 0 {
			t.Fatalf("tokens --format %s: exit %d\n%s", format, code, stderr)
		}
		var got tokensOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		checkTokenReport(t, &got.Tools)
		want, err := tokens.Count(tools, format, tokens.Cl100kBase)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Tools, want) {
			t.Errorf("%s: the command's report differs from tokens.Count on `mcpkit tools`:\n got %+v\nwant %+v", format, got.Tools, want)
		}
		if got.Prompts == nil || len(got.Prompts.Items) == 0 || got.ResourceTemplates == nil || len(got.ResourceTemplates.Items) == 0 {
			t.Errorf("%s: prompts %+v, templates %+v", format, got.Prompts, got.ResourceTemplates)
		}
		if got.Note != tokens.Note {
			t.Errorf("note %q", got.Note)
		}
		totals[format] = got.Tools.Total
	}
	if totals[tokens.FormatOpenAI] == totals[tokens.FormatAnthropic] {
		t.Errorf("the two formats cost the same (%v): the format is not applied", totals)
	}

	// The table: the total first, then the tools largest first.
	out, stderr, code := run(t, "tokens")
	if code != 0 {
		t.Fatalf("tokens: exit %d\n%s", code, stderr)
	}
	want, _ := tokens.Count(tools, tokens.FormatOpenAI, tokens.O200kBase)
	lines := strings.Split(out, "\n")
	if head := lines[0]; !strings.HasPrefix(head, strings.Join([]string{strconv.Itoa(len(tools)), "tools:", strconv.Itoa(want.Total), "tokens"}, " ")) {
		t.Errorf("first line %q, want %d tools and %d tokens", head, len(tools), want.Total)
	}
	if f := strings.Fields(lines[2]); len(f) < 6 || f[0] != strconv.Itoa(want.Tools[0].Tokens) || f[5] != want.Tools[0].Name {
		t.Errorf("first tool line %q, want %+v", lines[2], want.Tools[0])
	}
	if !strings.Contains(out, "prompts:") || !strings.Contains(out, "note: ") {
		t.Errorf("no prompts or note:\n%s", out)
	}
}

func TestTokensRefusesUnknownFormatAndEncoding(t *testing.T) {
	for _, args := range [][]string{{"--format", "gemini"}, {"--encoding", "p50k_base"}} {
		_, stderr, code := run(t, append([]string{"tokens"}, args...)...)
		if code == 0 || !strings.Contains(stderr, args[1]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
