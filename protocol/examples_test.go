package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// exampleValueTypes maps an example directory (a schema definition name) to
// a constructor of the Go type its files decode into.
var exampleValueTypes = map[string]func() any{
	"AudioContent":                      func() any { return new(Content) },
	"ImageContent":                      func() any { return new(Content) },
	"TextContent":                       func() any { return new(Content) },
	"EmbeddedResource":                  func() any { return new(Content) },
	"ResourceLink":                      func() any { return new(Content) },
	"ToolResultContent":                 func() any { return new(Content) },
	"ToolUseContent":                    func() any { return new(Content) },
	"BlobResourceContents":              func() any { return new(ResourceContents) },
	"TextResourceContents":              func() any { return new(ResourceContents) },
	"CallToolRequestParams":             func() any { return new(CallToolParams) },
	"CallToolResult":                    func() any { return new(CallToolResult) },
	"CancelledNotificationParams":       func() any { return new(CancelledParams) },
	"ClientCapabilities":                func() any { return new(ClientCapabilities) },
	"ServerCapabilities":                func() any { return new(ServerCapabilities) },
	"CompleteRequestParams":             func() any { return new(CompleteParams) },
	"CompleteResult":                    func() any { return new(CompleteResult) },
	"CreateMessageRequestParams":        func() any { return new(CreateMessageParams) },
	"CreateMessageResult":               func() any { return new(CreateMessageResult) },
	"DiscoverResult":                    func() any { return new(DiscoverResult) },
	"ElicitRequestFormParams":           func() any { return new(ElicitParams) },
	"ElicitRequestURLParams":            func() any { return new(ElicitParams) },
	"ElicitResult":                      func() any { return new(ElicitResult) },
	"GetPromptRequestParams":            func() any { return new(GetPromptParams) },
	"GetPromptResult":                   func() any { return new(GetPromptResult) },
	"InputRequests":                     func() any { return new(map[string]InputRequest) },
	"InputRequiredResult":               func() any { return new(InputRequiredResult) },
	"InputResponses":                    func() any { return new(InputResponses) },
	"ListPromptsResult":                 func() any { return new(ListPromptsResult) },
	"ListResourceTemplatesResult":       func() any { return new(ListResourceTemplatesResult) },
	"ListResourcesResult":               func() any { return new(ListResourcesResult) },
	"ListRootsResult":                   func() any { return new(ListRootsResult) },
	"ListToolsResult":                   func() any { return new(ListToolsResult) },
	"LoggingMessageNotificationParams":  func() any { return new(LoggingMessageParams) },
	"ModelPreferences":                  func() any { return new(ModelPreferences) },
	"PaginatedRequestParams":            func() any { return new(PaginatedParams) },
	"ProgressNotificationParams":        func() any { return new(ProgressParams) },
	"ReadResourceResult":                func() any { return new(ReadResourceResult) },
	"Resource":                          func() any { return new(Resource) },
	"ResourceUpdatedNotificationParams": func() any { return new(ResourceUpdatedParams) },
	"Root":                              func() any { return new(Root) },
	"SamplingMessage":                   func() any { return new(SamplingMessage) },
	"SubscriptionsListenResult":         func() any { return new(SubscriptionsListenResult) },
	"Tool":                              func() any { return new(Tool) },
}

// paramsTypes maps a method to a constructor of its params type.
var paramsTypes = map[string]func() any{
	MethodToolsCall:                       func() any { return new(CallToolParams) },
	MethodToolsList:                       func() any { return new(ListToolsParams) },
	MethodCompletionComplete:              func() any { return new(CompleteParams) },
	MethodSamplingCreateMessage:           func() any { return new(CreateMessageParams) },
	MethodServerDiscover:                  func() any { return new(DiscoverParams) },
	MethodElicitationCreate:               func() any { return new(ElicitParams) },
	MethodPromptsGet:                      func() any { return new(GetPromptParams) },
	MethodPromptsList:                     func() any { return new(ListPromptsParams) },
	MethodResourcesTemplatesList:          func() any { return new(ListResourceTemplatesParams) },
	MethodResourcesList:                   func() any { return new(ListResourcesParams) },
	MethodRootsList:                       func() any { return new(ListRootsParams) },
	MethodResourcesRead:                   func() any { return new(ReadResourceParams) },
	MethodSubscriptionsListen:             func() any { return new(SubscriptionsListenParams) },
	NotificationCancelled:                 func() any { return new(CancelledParams) },
	NotificationMessage:                   func() any { return new(LoggingMessageParams) },
	NotificationProgress:                  func() any { return new(ProgressParams) },
	NotificationPromptsListChanged:        func() any { return new(ListChangedParams) },
	NotificationResourcesListChanged:      func() any { return new(ListChangedParams) },
	NotificationToolsListChanged:          func() any { return new(ListChangedParams) },
	NotificationResourcesUpdated:          func() any { return new(ResourceUpdatedParams) },
	NotificationSubscriptionsAcknowledged: func() any { return new(SubscriptionsAcknowledgedParams) },
}

// resultTypes maps a *ResultResponse directory to a constructor of its
// result type (InputRequiredResult is chosen by resultType).
var resultTypes = map[string]func() any{
	"CallToolResultResponse":              func() any { return new(CallToolResult) },
	"CompleteResultResponse":              func() any { return new(CompleteResult) },
	"DiscoverResultResponse":              func() any { return new(DiscoverResult) },
	"GetPromptResultResponse":             func() any { return new(GetPromptResult) },
	"ListPromptsResultResponse":           func() any { return new(ListPromptsResult) },
	"ListResourceTemplatesResultResponse": func() any { return new(ListResourceTemplatesResult) },
	"ListResourcesResultResponse":         func() any { return new(ListResourcesResult) },
	"ListToolsResultResponse":             func() any { return new(ListToolsResult) },
	"ReadResourceResultResponse":          func() any { return new(ReadResourceResult) },
	"SubscriptionsListenResultResponse":   func() any { return new(SubscriptionsListenResult) },
}

// errorDataTypes maps an error-response directory to its data type.
var errorDataTypes = map[string]func() any{
	"MissingRequiredClientCapabilityError": func() any { return new(MissingClientCapabilityData) },
	"UnsupportedProtocolVersionError":      func() any { return new(UnsupportedProtocolVersionData) },
}

// examplesSkipped lists example directories with no Go type here: the
// elicitation primitive schemas (requestedSchema is json.RawMessage) and the
// plain JSON-RPC errors (the jsonrpc package's business).
var examplesSkipped = map[string]bool{
	"BooleanSchema": true, "NumberSchema": true, "StringSchema": true,
	"TitledMultiSelectEnumSchema": true, "TitledSingleSelectEnumSchema": true,
	"UntitledMultiSelectEnumSchema": true, "UntitledSingleSelectEnumSchema": true,
	"ParseError": true, "InternalError": true, "InvalidParamsError": true, "MethodNotFoundError": true,
	"HeaderMismatchError": true,
}

// roundTrip decodes data into fresh(), re-encodes it and returns the result.
func roundTrip(t *testing.T, data []byte, fresh func() any) []byte {
	t.Helper()
	v := fresh()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode into %T: %v\n%s", v, err, data)
	}
	return mustMarshal(t, v)
}

// jsonEqual compares two JSON documents semantically.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("jsonEqual: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("jsonEqual: %v\n%s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// TestStatelessExamplesRoundTrip decodes every 2026-07-28 example that maps onto
// a type of this package, re-encodes it, compares the JSON semantically, and
// validates the re-encoded form against the example's schema definition.
func TestStatelessExamplesRoundTrip(t *testing.T) {
	schema := loadSchema(t, Version20260728)
	checked := 0
	for _, ex := range testkit.Examples(Version20260728) {
		name, data := ex.Definition, ex.JSON
		t.Run(name+"/"+ex.Name, func(t *testing.T) {
			out, ok := reencodeExample(t, name, data)
			if !ok {
				return
			}
			checked++
			if !jsonEqual(t, dropFalseDefaults(t, data), out) {
				t.Errorf("round trip changed the document\nin:  %s\nout: %s", compact(data), out)
			}
			if schema.has(name) {
				if err := schema.validateJSON(t, name, out); err != nil {
					t.Errorf("re-encoded example fails %s: %v\n%s", name, err, out)
				}
			}
		})
	}
	if checked < 100 {
		t.Errorf("only %d examples checked", checked)
	}
}

// reencodeExample decodes and re-encodes the part of an example this package
// types, returning the whole re-encoded document. It reports false for
// skipped directories and fails for unknown ones.
func reencodeExample(t *testing.T, name string, data []byte) ([]byte, bool) {
	if fresh, ok := exampleValueTypes[name]; ok {
		return roundTrip(t, data, fresh), true
	}
	if examplesSkipped[name] {
		return nil, false
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("decode envelope: %v", err)
	}
	switch {
	case top["method"] != nil:
		var method string
		if err := json.Unmarshal(top["method"], &method); err != nil {
			t.Fatal(err)
		}
		fresh, ok := paramsTypes[method]
		if !ok {
			t.Fatalf("no params type for method %q", method)
		}
		if top["params"] != nil {
			top["params"] = roundTrip(t, top["params"], fresh)
		}
	case top["result"] != nil:
		fresh, ok := resultTypes[name]
		if !ok {
			t.Fatalf("no result type for %s", name)
		}
		var probe struct {
			ResultType ResultType `json:"resultType"`
		}
		if err := json.Unmarshal(top["result"], &probe); err != nil {
			t.Fatal(err)
		}
		if probe.ResultType == ResultTypeInputRequired {
			fresh = func() any { return new(InputRequiredResult) }
		}
		top["result"] = roundTrip(t, top["result"], fresh)
	case top["error"] != nil:
		fresh, ok := errorDataTypes[name]
		if !ok {
			t.Fatalf("no error data type for %s", name)
		}
		var e map[string]json.RawMessage
		if err := json.Unmarshal(top["error"], &e); err != nil {
			t.Fatal(err)
		}
		e["data"] = roundTrip(t, e["data"], fresh)
		top["error"] = mustMarshal(t, e)
	default:
		t.Fatalf("example directory %s has no mapping; add it to a table or to examplesSkipped", name)
	}
	return mustMarshal(t, top), true
}

// falseDefaults are optional booleans whose absence means false; this
// package omits them when false, so an explicit false in an example is
// equivalent.
var falseDefaults = map[string]bool{"isError": true, "hasMore": true, "listChanged": true, "subscribe": true, "required": true}

// dropFalseDefaults removes explicit false values of falseDefaults keys.
func dropFalseDefaults(t *testing.T, data []byte) []byte {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if b, ok := e.(bool); ok && !b && falseDefaults[k] {
					delete(x, k)
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return mustMarshal(t, v)
}

func compact(data []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return data
	}
	return b.Bytes()
}
