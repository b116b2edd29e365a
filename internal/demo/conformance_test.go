package demo

// These tests drive each conformance fixture through mcpkit's client, in memory, and
// assert what the matching scenario of @modelcontextprotocol/conformance 0.1.16
// asserts (and a little more), so that a regression shows without Node.

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	_ "image/png" // image.DecodeConfig must know PNG
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// conformanceToolNames are the tools the suite's server scenarios call.
var conformanceToolNames = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress",
	"test_error_handling", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "json_schema_2020_12_tool", "test_reconnection",
}

// connectFixtures serves only the conformance fixtures and connects a client with
// opts to them through initialize, at the newest legacy version unless opts names
// another (0.1.16's client asks for it; the stateless era has tests of its own, in
// conformance_stateless_test.go). Every message either side sends is checked against
// that version's schema.
func connectFixtures(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = protocol.LatestLegacy
	}
	opts = &o
	srv := mcp.NewServer(protocol.Implementation{Name: "fixtures", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	if err := addConformanceFixtures(srv, &Options{CountInterval: 2 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(protocol.Implementation{Name: "conformance-test-client", Version: "1.0.0"}, opts)
	cs, _ := mcptest.Connect(t, srv, client, nil)
	return cs
}

// callFixture calls a tool and fails the test if the call itself fails.
func callFixture(t *testing.T, cs *mcp.ClientSession, name string, args any, opts ...mcp.RequestOption) *protocol.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), name, args, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestConformanceFixturesInDemoServer(t *testing.T) {
	srv, err := NewServer(&Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c, s := memory.NewPair()
	ss, err := srv.Connect(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	var names []string
	for tool, err := range cs.Tools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	var missing []string
	for _, want := range conformanceToolNames {
		if !slices.Contains(names, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("demo.NewServer lacks the conformance tools %v: does it call addConformanceFixtures?", missing)
	}
}

func TestConformanceCapabilities(t *testing.T) {
	caps := connectFixtures(t, nil).InitializeResult().Capabilities
	if caps.Tools == nil || caps.Prompts == nil || caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities %+v lack tools, prompts, logging or completions", caps)
	}
	if caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("resources capability %+v does not offer subscribe", caps.Resources)
	}
}

// tools-list, json-schema-2020-12
func TestConformanceToolList(t *testing.T) {
	res, err := connectFixtures(t, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]protocol.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
		if tool.Description == "" || len(tool.InputSchema) == 0 {
			t.Errorf("tool %s lacks a description or an inputSchema", tool.Name)
		}
	}
	for _, name := range conformanceToolNames {
		if _, ok := byName[name]; !ok {
			t.Errorf("tool %s is missing", name)
		}
	}
	var schema struct {
		Schema               string                     `json:"$schema"`
		Defs                 map[string]json.RawMessage `json:"$defs"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]map[string]any  `json:"properties"`
		AllOf                []json.RawMessage          `json:"allOf"`
		If, Then, Else       json.RawMessage
	}
	if err := json.Unmarshal(byName["json_schema_2020_12_tool"].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Schema != "https://json-schema.org/draft/2020-12/schema" || schema.Defs["address"] == nil ||
		schema.AdditionalProperties == nil || *schema.AdditionalProperties || schema.Properties["address"]["$ref"] != "#/$defs/address" ||
		!bytes.Contains(schema.Defs["address"], []byte(`"$anchor":"addressDef"`)) || len(schema.AllOf) != 1 ||
		schema.If == nil || schema.Then == nil || schema.Else == nil {
		t.Errorf("json_schema_2020_12_tool inputSchema lost its 2020-12 keywords: %s", byName["json_schema_2020_12_tool"].InputSchema)
	}
}

// json_schema_2020_12_tool validates its arguments against its own schema: $ref,
// allOf/anyOf and if/then/else included.
func TestConformanceSchemaToolValidates(t *testing.T) {
	cs := connectFixtures(t, nil)
	for _, good := range []string{
		`{"name":"Ada","email":"ada@example.com","address":{"street":"1 Main St","city":"London"}}`,
		`{"contactMethod":"phone","phone":"555"}`,
	} {
		ok := callFixture(t, cs, "json_schema_2020_12_tool", json.RawMessage(good))
		if ok.IsError || !strings.Contains(textOf(ok.Content), good) {
			t.Errorf("valid call %s = %+v", good, ok)
		}
	}
	for _, bad := range []string{
		`{"email":"a@b","extra":1}`,               // additionalProperties
		`{"email":"a@b","address":{"city":7}}`,    // $ref
		`{"name":"Ada"}`,                          // allOf/anyOf: neither phone nor email
		`{"contactMethod":"phone","email":"a@b"}`, // if/then: phone required
		`{"phone":"555"}`,                         // else: email required
	} {
		if res := callFixture(t, cs, "json_schema_2020_12_tool", json.RawMessage(bad)); !res.IsError {
			t.Errorf("arguments %s were accepted: %+v", bad, res)
		}
	}
}

// tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content, -error
func TestConformanceContentTools(t *testing.T) {
	cs := connectFixtures(t, nil)

	res := callFixture(t, cs, "test_simple_text", nil)
	if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != "This is a simple text response for testing." {
		t.Errorf("test_simple_text = %+v", res)
	}

	res = callFixture(t, cs, "test_image_content", nil)
	if len(res.Content) != 1 {
		t.Fatalf("test_image_content = %+v", res)
	}
	assertPNG(t, res.Content[0])

	res = callFixture(t, cs, "test_audio_content", nil)
	if len(res.Content) != 1 || res.Content[0].Type != "audio" || res.Content[0].MimeType != "audio/wav" {
		t.Fatalf("test_audio_content = %+v", res)
	}
	if d := res.Content[0].Data; len(d) < 44 || string(d[:4]) != "RIFF" || string(d[8:12]) != "WAVE" || string(d[36:40]) != "data" {
		t.Errorf("audio data is not a WAV file: % x", d)
	}

	res = callFixture(t, cs, "test_embedded_resource", nil)
	if len(res.Content) != 1 || res.Content[0].Type != "resource" || res.Content[0].Resource == nil {
		t.Fatalf("test_embedded_resource = %+v", res)
	}
	if r := res.Content[0].Resource; r.URI != "test://embedded-resource" || r.MimeType != "text/plain" || r.Text != "This is an embedded resource content." {
		t.Errorf("embedded resource = %+v", r)
	}

	res = callFixture(t, cs, "test_multiple_content_types", nil)
	var types []string
	for _, c := range res.Content {
		types = append(types, c.Type)
	}
	if !slices.Equal(types, []string{"text", "image", "resource"}) {
		t.Fatalf("test_multiple_content_types types = %v", types)
	}
	if r := res.Content[2].Resource; r.URI != "test://mixed-content-resource" || r.MimeType != "application/json" || !json.Valid([]byte(r.Text)) {
		t.Errorf("mixed content resource = %+v", r)
	}
	assertPNG(t, res.Content[1])

	res = callFixture(t, cs, "test_error_handling", nil)
	if !res.IsError || len(res.Content) == 0 || res.Content[0].Text != "This tool intentionally returns an error for testing" {
		t.Errorf("test_error_handling = %+v", res)
	}
}

// assertPNG checks that c is an image block holding a decodable PNG.
func assertPNG(t *testing.T, c protocol.Content) {
	t.Helper()
	if c.Type != "image" || c.MimeType != "image/png" {
		t.Fatalf("block %+v is not a PNG image", c)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(c.Data))
	if err != nil || format != "png" || cfg.Width != 1 || cfg.Height != 1 {
		t.Errorf("image data: %v %q %v", cfg, format, err)
	}
}

// tools-call-with-logging
func TestConformanceLoggingTool(t *testing.T) {
	var mu sync.Mutex
	var logs []*protocol.LoggingMessageParams
	cs := connectFixtures(t, &mcp.ClientOptions{LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.LoggingMessageParams) {
		mu.Lock()
		logs = append(logs, p)
		mu.Unlock()
	}})
	if err := cs.SetLogLevel(context.Background(), protocol.LevelDebug); err != nil {
		t.Fatal(err)
	}
	res := callFixture(t, cs, "test_tool_with_logging", nil)
	if res.IsError || textOf(res.Content) == "" {
		t.Errorf("test_tool_with_logging = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	if len(logs) != len(want) {
		t.Fatalf("got %d log messages before the result, want %d", len(logs), len(want))
	}
	for i, l := range logs {
		if l.Level != protocol.LevelInfo || l.Data != want[i] {
			t.Errorf("log %d = %+v, want info %q", i, l, want[i])
		}
	}
}

// A client that never set a level hears nothing (mcpkit's rule), and the tool still
// succeeds.
func TestConformanceLoggingToolSilentWithoutLevel(t *testing.T) {
	var mu sync.Mutex
	n := 0
	cs := connectFixtures(t, &mcp.ClientOptions{LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *protocol.LoggingMessageParams) {
		mu.Lock()
		n++
		mu.Unlock()
	}})
	if res := callFixture(t, cs, "test_tool_with_logging", nil); res.IsError {
		t.Errorf("test_tool_with_logging = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 0 {
		t.Errorf("%d log messages sent to a client that set no level", n)
	}
}

// tools-call-with-progress
func TestConformanceProgressTool(t *testing.T) {
	cs := connectFixtures(t, nil)
	var got []protocol.ProgressParams
	res := callFixture(t, cs, "test_tool_with_progress", nil, mcp.WithProgress(func(p *protocol.ProgressParams) { got = append(got, *p) }))
	if res.IsError || textOf(res.Content) == "" {
		t.Errorf("test_tool_with_progress = %+v", res)
	}
	if len(got) != 3 {
		t.Fatalf("got %d progress notifications, want 3: %+v", len(got), got)
	}
	for i, want := range []float64{0, 50, 100} {
		if got[i].Progress != want || got[i].Total != 100 {
			t.Errorf("progress %d = %+v, want %v of 100", i, got[i], want)
		}
	}
	// Without a progress token the tool still runs, silently.
	if res := callFixture(t, cs, "test_tool_with_progress", nil); res.IsError {
		t.Errorf("without a token: %+v", res)
	}
}

// server-sse-polling's tool answers normally when the transport does not cut it.
func TestConformanceReconnectionTool(t *testing.T) {
	res := callFixture(t, connectFixtures(t, nil), "test_reconnection", nil)
	if res.IsError || textOf(res.Content) == "" {
		t.Errorf("test_reconnection = %+v", res)
	}
}

func TestSilentWAVHeader(t *testing.T) {
	le := func(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }
	if got := le(silentWAV[4:8]); int(got) != len(silentWAV)-8 {
		t.Errorf("RIFF size %d, file is %d bytes", got, len(silentWAV))
	}
	if got := le(silentWAV[40:44]); int(got) != len(silentWAV)-44 {
		t.Errorf("data size %d, file has %d data bytes", got, len(silentWAV)-44)
	}
	if rate, byteRate := le(silentWAV[24:28]), le(silentWAV[28:32]); rate != 8000 || byteRate != 16000 {
		t.Errorf("rate %d byte rate %d", rate, byteRate)
	}
}

// The fixtures are written for the suite's client (2025-11-25), but a client of any
// legacy version may call them: every message must still fit that version's schema
// (wirecheck reports any that does not).
func TestConformanceFixturesInEveryVersion(t *testing.T) {
	for _, v := range protocol.LegacyVersions() {
		t.Run(v, func(t *testing.T) {
			cs := connectFixtures(t, &mcp.ClientOptions{ProtocolVersion: v})
			ctx := context.Background()
			if cs.ProtocolVersion() != v {
				t.Fatalf("negotiated %s", cs.ProtocolVersion())
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListResources(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListPrompts(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for _, tool := range []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types", "test_error_handling"} {
				if res := callFixture(t, cs, tool, nil); len(res.Content) == 0 {
					t.Errorf("%s returned no content", tool)
				}
			}
			for _, p := range []string{"test_simple_prompt", "test_prompt_with_image"} {
				if _, err := cs.GetPrompt(ctx, p, nil); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
		})
	}
}
