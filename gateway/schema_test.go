package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// doublingSchema is a tool schema whose property "a" is l0, and each li an
// anyOf of two references to l(i+1): validating a value against it applies
// 2^n subschemas.
func doublingSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/l0"}},"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"l%d":{"anyOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"l%d":{"type":"integer"}}}`, n)
	return json.RawMessage(b.String())
}

// A server's tool schema is its own to check: the gateway lists it as
// given and forwards the call, instead of validating the arguments against
// it (2^40 subschemas here: the call never returned).
func TestGatewayDoesNotValidateAgainstPeerSchemas(t *testing.T) {
	gw := startGateway(t, nil, testServer("d", "doubling"))
	cs := connectClient(t, gw, nil)
	ctx := testkit.Context(t)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools: %v %+v", err, tools)
	}
	if got, want := string(tools.Tools[0].InputSchema), string(doublingSchema(40)); got != want {
		t.Errorf("the schema was not listed as given:\n got %.200s\nwant %.200s", got, want)
	}
	if got := call(ctx, t, cs, "d__doubling", map[string]any{"a": "x"}); got != "ok" {
		t.Errorf("call = %q", got)
	}
}
