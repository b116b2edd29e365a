package interop

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/llm/tokens"
)

// `mcpkit tokens` counts the tools of the npm reference server
// @modelcontextprotocol/server-everything over stdio: every tool it lists,
// largest first, each tool's parts adding up to its count and the counts to
// the total; its prompts and resource templates too.
func TestTokensAgainstServerEverything(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	entry := packageBin(t, "@modelcontextprotocol/server-everything")
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	for _, format := range tokens.Formats {
		cmd := exec.CommandContext(ctx, bin, "tokens", "--json", "--format", string(format), "--", node, entry, "stdio")
		testkit.OwnProcessGroup(cmd)
		testkit.KillGroupOnCancel(cmd) // the server too, should the deadline pass
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcpkit tokens --format %s: %v", format, err)
		}
		var rep struct {
			Tools             tokens.Report      `json:"tools"`
			Prompts           *tokens.ListReport `json:"prompts"`
			ResourceTemplates *tokens.ListReport `json:"resourceTemplates"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		r := &rep.Tools
		if r.Format != format || r.Encoding != tokens.O200kBase || len(r.Tools) < 10 {
			t.Fatalf("%s: %+v", format, r)
		}
		names := make([]string, len(r.Tools))
		sum := 0
		for i, tc := range r.Tools {
			names[i] = tc.Name
			sum += tc.Tokens
			if tc.Text+tc.Schema+tc.Framing != tc.Tokens || tc.Text <= 0 || tc.Schema <= 0 {
				t.Errorf("%s %s: parts %+v", format, tc.Name, tc)
			}
		}
		if sum != r.Total {
			t.Errorf("%s: total %d, the tools add up to %d", format, r.Total, sum)
		}
		if !slices.IsSortedFunc(r.Tools, func(a, b tokens.ToolCount) int { return b.Tokens - a.Tokens }) {
			t.Errorf("%s: not largest first: %+v", format, r.Tools)
		}
		if !slices.Contains(names, "echo") || !slices.Contains(names, "get-sum") {
			t.Errorf("%s: tools %v lack the reference server's echo and get-sum", format, names)
		}
		for _, l := range []*tokens.ListReport{rep.Prompts, rep.ResourceTemplates} {
			if l == nil || len(l.Items) == 0 {
				t.Errorf("%s: prompts %+v, resource templates %+v", format, rep.Prompts, rep.ResourceTemplates)
				continue
			}
			n := 0
			for _, it := range l.Items {
				n += it.Tokens
			}
			if n != l.Total {
				t.Errorf("%s: list total %d, items add up to %d", format, l.Total, n)
			}
		}
	}
}
