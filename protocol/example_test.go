package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

func ExampleNewTextContent() {
	res := protocol.CallToolResult{Content: []protocol.Content{
		protocol.NewTextContent(""),
		protocol.NewImageContent([]byte("png"), "image/png"),
	}}
	data, _ := json.Marshal(res)
	fmt.Println(string(data))
	// Output: {"content":[{"type":"text","text":""},{"type":"image","data":"cG5n","mimeType":"image/png"}]}
}

func ExampleNegotiate() {
	fmt.Println(protocol.Negotiate("2025-03-26"))
	fmt.Println(protocol.Negotiate("2026-07-28")) // initialize never negotiates the stateless version
	fmt.Println(protocol.Negotiate("1999-01-01"))
	// Output:
	// 2025-03-26
	// 2025-11-25
	// 2025-11-25
}

func ExampleCallToolResult_ForVersion() {
	res := &protocol.CallToolResult{
		Content:           []protocol.Content{protocol.NewAudioContent([]byte{1, 2}, "audio/wav")},
		StructuredContent: map[string]any{"ok": true},
	}
	old := res.ForVersion(protocol.Version20241105)
	data, _ := json.Marshal(old)
	fmt.Println(string(data))
	fmt.Println(res.ForVersion(protocol.Version20250618) == res) // nothing to change: same pointer
	// Output:
	// {"content":[{"type":"text","text":"[audio content (audio/wav, 2 bytes) omitted: not supported by this protocol version]"}]}
	// true
}

func ExampleMeta_ClientCapabilities() {
	var p protocol.CallToolParams
	_ = json.Unmarshal([]byte(`{
		"_meta": {
			"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
			"progressToken": 42
		},
		"name": "get_weather"
	}`), &p)
	caps, _ := p.Meta.ClientCapabilities()
	tok, _ := p.Meta.ProgressToken()
	fmt.Println(p.Meta.ProtocolVersion(), caps.Elicitation.SupportsForm(), tok)
	// Output: 2026-07-28 true 42
}

func ExampleInputRequiredResult() {
	res := protocol.InputRequiredResult{
		ResultType: protocol.ResultTypeInputRequired,
		InputRequests: map[string]protocol.InputRequest{
			"confirm": protocol.NewElicitInputRequest(&protocol.ElicitParams{
				Message:         "Proceed?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
			}),
		},
		RequestState: "sealed-state",
	}
	data, _ := json.Marshal(res)
	fmt.Println(string(data))
	// Output: {"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Proceed?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}},"requestState":"sealed-state"}
}
