package interop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// The peers accept more than the specification allows (the TypeScript SDK parses
// with lenient schemas), so the tests also hold every message mcpkit wrote during
// an exchange against the official JSON schema of the negotiated version.

// methodDefs names, per method, the schema definitions of its request (or
// notification) and of its result.
var methodDefs = map[string]struct{ request, result string }{
	"initialize":                           {"InitializeRequest", "InitializeResult"},
	"ping":                                 {"PingRequest", "EmptyResult"},
	"tools/list":                           {"ListToolsRequest", "ListToolsResult"},
	"tools/call":                           {"CallToolRequest", "CallToolResult"},
	"resources/list":                       {"ListResourcesRequest", "ListResourcesResult"},
	"resources/templates/list":             {"ListResourceTemplatesRequest", "ListResourceTemplatesResult"},
	"resources/read":                       {"ReadResourceRequest", "ReadResourceResult"},
	"resources/subscribe":                  {"SubscribeRequest", "EmptyResult"},
	"resources/unsubscribe":                {"UnsubscribeRequest", "EmptyResult"},
	"prompts/list":                         {"ListPromptsRequest", "ListPromptsResult"},
	"prompts/get":                          {"GetPromptRequest", "GetPromptResult"},
	"completion/complete":                  {"CompleteRequest", "CompleteResult"},
	"logging/setLevel":                     {"SetLevelRequest", "EmptyResult"},
	"sampling/createMessage":               {"CreateMessageRequest", "CreateMessageResult"},
	"elicitation/create":                   {"ElicitRequest", "ElicitResult"},
	"roots/list":                           {"ListRootsRequest", "ListRootsResult"},
	"notifications/initialized":            {"InitializedNotification", ""},
	"notifications/cancelled":              {"CancelledNotification", ""},
	"notifications/progress":               {"ProgressNotification", ""},
	"notifications/message":                {"LoggingMessageNotification", ""},
	"notifications/resources/updated":      {"ResourceUpdatedNotification", ""},
	"notifications/resources/list_changed": {"ResourceListChangedNotification", ""},
	"notifications/tools/list_changed":     {"ToolListChangedNotification", ""},
	"notifications/prompts/list_changed":   {"PromptListChangedNotification", ""},
	"notifications/roots/list_changed":     {"RootsListChangedNotification", ""},
	// 2026-07-28
	"server/discover":      {"DiscoverRequest", "DiscoverResult"},
	"subscriptions/listen": {"SubscriptionsListenRequest", "SubscriptionsListenResult"},
}

// wireMessage is one message of an exchange.
type wireMessage struct {
	FromMcpkit bool // written by mcpkit (rather than by the peer)
	Raw        json.RawMessage
}

// recordingConn records every message that passes through a transport.Conn.
type recordingConn struct {
	transport.Conn
	mu   sync.Mutex
	msgs []wireMessage
}

func (c *recordingConn) add(fromMcpkit bool, msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, wireMessage{FromMcpkit: fromMcpkit, Raw: bytes.Clone(msg)})
}

// Read records what the peer sent.
func (c *recordingConn) Read(ctx context.Context) ([]byte, error) {
	msg, err := c.Conn.Read(ctx)
	if err == nil {
		c.add(false, msg)
	}
	return msg, err
}

// Write records what mcpkit sends.
func (c *recordingConn) Write(ctx context.Context, msg []byte) error {
	c.add(true, msg)
	return c.Conn.Write(ctx, msg)
}

func (c *recordingConn) snapshot() []wireMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wireMessage(nil), c.msgs...)
}

// versionSchema is one version's schema, loaded into a compiler. Parallel tests
// share it: the compiler is not safe for concurrent use, so compile serializes it.
type versionSchema struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema // by definition name
	defsURL  string                        // URL prefix of its definitions: ".../schema.json#/$defs/" or "#/definitions/"
	defs     map[string]any                // the definitions, by name
}

// compile returns the compiled schema of the definition def, compiling it once.
func (s *versionSchema) compile(def string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.compiled[def]; ok {
		return c, nil
	}
	c, err := s.compiler.Compile(s.defsURL + def)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", def, err)
	}
	s.compiled[def] = c
	return c, nil
}

// first returns the first of names that the schema defines, or "".
func (s *versionSchema) first(names ...string) string {
	for _, n := range names {
		if _, ok := s.defs[n]; ok {
			return n
		}
	}
	return ""
}

var (
	schemasMu sync.Mutex
	schemas   = map[string]*versionSchema{}
)

// loadSchema loads the schema of version (from package testkit) once.
func loadSchema(t *testing.T, version string) *versionSchema {
	t.Helper()
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if s, ok := schemas[version]; ok {
		return s
	}
	path := testkit.RepoSpecDir + "/" + version + "/schema.json"
	data := testkit.Schema(version)
	if data == nil {
		t.Fatalf("no schema for %s in package testkit", version)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	root, _ := doc.(map[string]any)
	url := "file:///mcp/" + version + "/schema.json"
	s := &versionSchema{compiler: jsonschema.NewCompiler(), compiled: map[string]*jsonschema.Schema{}}
	for _, key := range []string{"$defs", "definitions"} { // the older schemas use "definitions"
		if defs, ok := root[key].(map[string]any); ok {
			s.defsURL, s.defs = url+"#/"+key+"/", defs
		}
	}
	if s.defsURL == "" {
		t.Fatalf("%s has no definitions", path)
	}
	s.compiler.AssertFormat()
	s.compiler.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(v any) error {
		str, ok := v.(string)
		if !ok {
			return nil
		}
		_, err := base64.StdEncoding.DecodeString(str)
		return err
	}})
	if err := s.compiler.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	schemas[version] = s
	return s
}

// checkWireAgainstSchema fails the test for each message mcpkit wrote in msgs that
// the official schema of version rejects (see schemaProblems).
func checkWireAgainstSchema(t *testing.T, version string, msgs []wireMessage) {
	t.Helper()
	problems := schemaProblems(t, version, msgs)
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) == 0 {
		t.Logf("%d messages checked against the %s schema", len(msgs), version)
	}
}

// checkSessionSchema holds what mcpkit wrote in a session against the schema of
// version. A server/discover probe that ended in a fallback to a legacy version is a
// 2026-07-28 message (sent before the era was known), so it is held against that
// schema, and the rest against version's.
func checkSessionSchema(t *testing.T, version string, msgs []wireMessage) {
	t.Helper()
	if !protocol.IsLegacy(version) {
		checkWireAgainstSchema(t, version, msgs)
		return
	}
	var probe, rest []wireMessage
	probeIDs := map[string]bool{}
	for _, m := range msgs {
		var e struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(m.Raw, &e)
		switch {
		case m.FromMcpkit && e.Method == "server/discover":
			probeIDs[string(e.ID)] = true
			probe = append(probe, m)
		case !m.FromMcpkit && e.Method == "" && probeIDs[string(e.ID)]:
			probe = append(probe, m) // the peer's answer: not checked, kept for context
		default:
			rest = append(rest, m)
		}
	}
	if len(probe) > 0 {
		t.Run("probe", func(t *testing.T) { checkWireAgainstSchema(t, protocol.Version20260728, probe) })
	}
	checkWireAgainstSchema(t, version, rest)
}

// schemaProblems validates every message mcpkit wrote in msgs against the schema of
// version: a request or notification against its method's definition, a result
// against the definition for the method of the peer's request it answers, an error
// against JSONRPCErrorResponse. It returns one line per problem.
func schemaProblems(t *testing.T, version string, msgs []wireMessage) []string {
	t.Helper()
	schema := loadSchema(t, version)
	var problems []string
	validate := func(def string, raw []byte, what string) {
		s, err := schema.compile(def)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: not JSON: %v\n%s", what, err, clip(raw, 2000)))
			return
		}
		if err := s.Validate(inst); err != nil {
			problems = append(problems, fmt.Sprintf("%s does not match %s (%s):\n%s\n%v", what, def, version, clip(raw, 2000), err))
		}
	}

	type envelope struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	peerRequests := map[string]string{} // id → method of the requests the peer sent
	for _, m := range msgs {
		var e envelope
		if !m.FromMcpkit && json.Unmarshal(m.Raw, &e) == nil && e.Method != "" && e.ID != nil {
			peerRequests[string(e.ID)] = e.Method
		}
	}
	// The envelopes changed names over the versions.
	requestEnvelope, notificationEnvelope := "JSONRPCRequest", "JSONRPCNotification"
	resultEnvelope := schema.first("JSONRPCResultResponse", "JSONRPCResponse")
	errorEnvelope := schema.first("JSONRPCErrorResponse", "JSONRPCError")
	// checkMethod validates a message mcpkit starts (a request or a notification)
	// against def, which must exist in this version: mcpkit must not send what the
	// negotiated version does not have.
	checkMethod := func(method, def string, raw []byte, what string) {
		if schema.first(def) == "" {
			problems = append(problems, fmt.Sprintf("%s: %s has no %s in %s: the method does not exist in the negotiated version:\n%s", what, method, def, version, clip(raw, 2000)))
			return
		}
		validate(def, raw, what)
	}
	// checkAnswer validates mcpkit's result for a request the peer sent. A peer may
	// send a request the negotiated version does not have (server-everything sends
	// elicitation/create in a 2024-11-05 session when the client declared
	// elicitation); answering it is lenient, not wrong, and there is no definition to
	// check the answer against. Where the version defines the whole response
	// (2026-07-28's CallToolResultResponse allows the method's result or an
	// InputRequiredResult), the response is checked against that.
	checkAnswer := func(method, def string, msg, result []byte, what string) {
		switch {
		case schema.first(def+"Response") != "":
			validate(def+"Response", msg, what)
		case schema.first(def) != "":
			validate(def, result, what)
		}
	}
	written := 0
	for _, m := range msgs {
		if !m.FromMcpkit {
			continue
		}
		written++
		var e envelope
		if err := json.Unmarshal(m.Raw, &e); err != nil {
			problems = append(problems, fmt.Sprintf("mcpkit wrote a message that is not a JSON object: %v\n%s", err, clip(m.Raw, 2000)))
			continue
		}
		switch {
		case e.Method != "":
			if e.ID != nil {
				validate(requestEnvelope, m.Raw, "request "+e.Method)
			} else {
				validate(notificationEnvelope, m.Raw, "notification "+e.Method)
			}
			if defs, ok := methodDefs[e.Method]; ok {
				checkMethod(e.Method, defs.request, m.Raw, "message "+e.Method)
			}
		case e.Error != nil:
			validate(errorEnvelope, m.Raw, "error response")
		default:
			validate(resultEnvelope, m.Raw, "response")
			method := peerRequests[string(e.ID)]
			if defs, ok := methodDefs[method]; ok && defs.result != "" {
				checkAnswer(method, defs.result, m.Raw, e.Result, "result of "+method)
			} else {
				problems = append(problems, fmt.Sprintf("mcpkit answered id %s, which is no request of the peer's with a known method (%q):\n%s", e.ID, method, clip(m.Raw, 2000)))
			}
		}
	}
	if written == 0 {
		problems = append(problems, "mcpkit wrote no messages")
	}
	return problems
}

// TestSchemaProblemsFindsInvalidMessages makes sure the schema check above rejects
// what it should, and only that; it needs no npm peer.
func TestSchemaProblemsFindsInvalidMessages(t *testing.T) {
	peer := func(s string) wireMessage { return wireMessage{Raw: json.RawMessage(s)} }
	ours := func(s string) wireMessage { return wireMessage{FromMcpkit: true, Raw: json.RawMessage(s)} }
	tests := []struct {
		name    string
		version string // empty means 2025-11-25
		msgs    []wireMessage
		bad     bool
	}{
		{"valid result", "", []wireMessage{
			peer(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`),
			ours(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`),
		}, false},
		{"valid notification", "", []wireMessage{
			ours(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`),
		}, false},
		{"text block without text", "", []wireMessage{
			peer(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo"}}`),
			ours(`{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text"}]}}`),
		}, true},
		{"progress without token", "", []wireMessage{
			ours(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`),
		}, true},
		{"answer to no request", "", []wireMessage{
			ours(`{"jsonrpc":"2.0","id":9,"result":{}}`),
		}, true},
		{"wrong jsonrpc version", "", []wireMessage{
			ours(`{"jsonrpc":"1.0","method":"notifications/initialized"}`),
		}, true},
		{"method the version lacks", "2024-11-05", []wireMessage{
			ours(`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}`),
		}, true},
		{"2026-07-28 input_required answer", "2026-07-28", []wireMessage{
			peer(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
			ours(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}}`),
		}, false},
		{"2026-07-28 tool result without resultType", "2026-07-28", []wireMessage{
			peer(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
			ours(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`),
		}, true},
		{"error without code", "", []wireMessage{
			peer(`{"jsonrpc":"2.0","id":2,"method":"ping"}`),
			ours(`{"jsonrpc":"2.0","id":2,"error":{"message":"no"}}`),
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := tt.version
			if version == "" {
				version = "2025-11-25"
			}
			problems := schemaProblems(t, version, tt.msgs)
			if bad := len(problems) > 0; bad != tt.bad {
				t.Errorf("problems found: %v, want %v: %q", bad, tt.bad, problems)
			}
		})
	}
}
