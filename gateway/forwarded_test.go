package gateway

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// lookbehindSchema is valid JSON Schema (ECMA-262 regexes have lookbehind)
// that this SDK cannot compile (Go's regexp has none).
const lookbehindSchema = `{"type":"object","properties":{"word":{"type":"string","pattern":"(?<=a)b"}},"required":["word"]}`

// TestGatewayForwardsSchemasAndInstructions, in every combination of eras: a
// tool schema the SDK cannot compile is advertised as the server wrote it
// (not as an open object), a call is checked by the server behind only, and
// the instructions name every server in initialize (legacy client) and
// server/discover (stateless client).
func TestGatewayForwardsSchemasAndInstructions(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			gw := startGateway(t, nil, eraServer("p", "probe", era.upstream), eraServer("a", "demo", era.upstream))
			cs := connectClient(t, gw, &mcp.ClientOptions{ProtocolVersion: era.client})
			ctx := testkit.Context(t)
			var schema json.RawMessage
			for tool, err := range cs.Tools(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if tool.Name == "p__lookbehind" {
					schema = tool.InputSchema
				}
			}
			var got, want any
			if err := json.Unmarshal(schema, &got); err != nil || json.Unmarshal([]byte(lookbehindSchema), &want) != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("p__lookbehind advertised with %s (%v), want %s", schema, err, lookbehindSchema)
			}
			if got := call(ctx, t, cs, "p__lookbehind", map[string]any{"word": 5}); got != `{"word":5}` {
				t.Errorf("p__lookbehind answered %q, want the arguments passed on unchecked", got)
			}

			var instr string
			if era.client == protocol.Version20260728 {
				d := cs.DiscoverResult()
				if d == nil {
					t.Fatal("no server/discover result")
				}
				instr = d.Instructions
			} else {
				instr = cs.InitializeResult().Instructions
			}
			if !strings.HasPrefix(instr, "This server is a gateway") || !strings.Contains(instr, "## p\nprobe instructions") || !strings.Contains(instr, "## a\nA demo server") {
				t.Errorf("instructions = %q", instr)
			}
		})
	}
}
