package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
	"github.com/mcpkit/mcpkit/upstream"
)

// rawUpstream serves, over Streamable HTTP on 127.0.0.1 until the test ends, a
// server whose tool "raw" answers with result as it is, and which lists the
// resource uri. version is the era the gateway speaks to it ("" detects).
func rawUpstream(t *testing.T, name, version, uri, result string) *upstream.ServerConfig {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "up-" + name, Version: "9"}, &mcp.ServerOptions{Logger: quiet})
	if err := srv.AddRawTool(&protocol.Tool{Name: "raw"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return req.RawResult(json.RawMessage(result))
	}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddResource(&protocol.Resource{URI: uri, Name: "r"}, func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{{URI: uri, Text: "r"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ts := testkit.NewServer(t, streamable.NewHandler(srv, nil))
	return &upstream.ServerConfig{Name: name, Transport: upstream.TransportHTTP, URL: ts.URL, ProtocolVersion: version}
}

// TestGatewayPassesToolResultsThrough: in every combination of eras, a
// server's tool result reaches the gateway's client byte for byte —
// structuredContent, isError, _meta, members and block fields no schema
// names, escapes as written — with only the members the answering server owns
// (resultType, serverInfo) being the gateway's.
func TestGatewayPassesToolResultsThrough(t *testing.T) {
	const body = `{"content":[{"type":"text","text":"hi \u00e9","x-block":{"a":[1,2.50]}}],` +
		`"structuredContent":{"n":1e3,"s":"\"q\""},"isError":true,"x-upstream":{"k":[true,null]}`
	const result = body + `,"_meta":{"com.example/trace":"abc"}}`
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			gw := startGateway(t, nil, rawUpstream(t, "up", era.upstream, "x://r", result))
			if up, err := gw.Supervisor().Session(testkit.Context(t), "up"); err != nil || up.IsStateless() != (era.upstream == "") {
				t.Fatalf("the server's session: %v (stateless %v), want the era %q", err, up != nil && up.IsStateless(), era.upstream)
			}
			cs := connectClient(t, gw, &mcp.ClientOptions{ProtocolVersion: era.client})
			raw, err := cs.CallToolRaw(testkit.Context(t), &protocol.CallToolParams{Name: "up__raw"})
			if err != nil {
				t.Fatal(err)
			}
			want := result
			if era.client == protocol.Version20260728 {
				want = body + `,"resultType":"complete","_meta":{"com.example/trace":"abc",` +
					`"io.modelcontextprotocol/serverInfo":{"name":"mcpkit-gateway","version":"0"}}}`
			}
			if string(raw) != want {
				t.Errorf("through the gateway\n got %s\nwant %s", raw, want)
			}
		})
	}
}

// TestGatewayRewritesLinksInToolResults: a result that links to a resource
// whose URI the gateway namespaced gets the gateway's URI (the result is
// decoded for that); a server's results without such URIs still pass as they
// are.
func TestGatewayRewritesLinksInToolResults(t *testing.T) {
	link := func(uri string) string {
		return `{"content":[{"type":"resource_link","uri":"` + uri + `","name":"r"},` +
			`{"type":"resource","resource":{"uri":"` + uri + `","text":"t"}}],"x-upstream":1}`
	}
	// a and b list the same URI, so both are namespaced; c's is its own.
	gw := startGateway(t, nil,
		rawUpstream(t, "a", "", "x://r", link("x://r")),
		rawUpstream(t, "b", "", "x://r", `{"content":[{"type":"r\u0065source_link","uri":"x://r","name":"r"}]}`),
		rawUpstream(t, "c", "", "y://s", link("y://s")))
	cs := connectClient(t, gw, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy})
	ctx := testkit.Context(t)
	res, err := cs.CallTool(ctx, "a__raw", nil)
	if err != nil {
		t.Fatal(err)
	}
	const namespaced = "mcpkit-gateway://a/x://r"
	if len(res.Content) != 2 || res.Content[0].URI != namespaced || res.Content[1].Resource == nil || res.Content[1].Resource.URI != namespaced {
		t.Errorf("a's links = %+v, want %s", res.Content, namespaced)
	}
	// A link whose type is written with an escape is found too.
	if res, err = cs.CallTool(ctx, "b__raw", nil); err != nil || len(res.Content) != 1 || res.Content[0].URI != "mcpkit-gateway://b/x://r" {
		t.Errorf("b's link = %+v (%v), want mcpkit-gateway://b/x://r", res, err)
	}
	raw, err := cs.CallToolRaw(ctx, &protocol.CallToolParams{Name: "c__raw"})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != link("y://s") {
		t.Errorf("c's result\n got %s\nwant %s", raw, link("y://s"))
	}
	// A gateway URI from a server (a gateway behind this one) is namespaced
	// again even when nothing else is.
	inner := startGateway(t, nil, rawUpstream(t, "d", "", "z://t", link("mcpkit-gateway://e/z://t")))
	cs = connectClient(t, inner, nil)
	res, err = cs.CallTool(ctx, "d__raw", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Content[0].URI, "mcpkit-gateway://d/mcpkit-gateway://e/") {
		t.Errorf("d's link = %s, want it namespaced again", res.Content[0].URI)
	}
}
