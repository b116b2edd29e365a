package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// allVersions lists every version with a schema, oldest first.
var allVersions = []string{Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}

// versionSchema is one version's parsed and compiled schema.
type versionSchema struct {
	version  string
	path     string
	defsKey  string                        // "definitions" or "$defs"
	defs     map[string]any                // raw definitions
	compiler *jsonschema.Compiler          // has the schema document loaded
	compiled map[string]*jsonschema.Schema // by definition pointer
	mu       sync.Mutex
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*versionSchema{}
)

// loadSchema parses (once) the schema of version v.
func loadSchema(t testing.TB, v string) *versionSchema {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[v]; ok {
		return s
	}
	path := testkit.RepoSpecDir + "/" + v + "/schema.json"
	data := testkit.Schema(v)
	if data == nil {
		t.Fatalf("no schema for %s in package testkit", v)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	root := doc.(map[string]any)
	s := &versionSchema{version: v, path: path, compiled: map[string]*jsonschema.Schema{}}
	for _, k := range []string{"definitions", "$defs"} {
		if d, ok := root[k].(map[string]any); ok {
			s.defsKey, s.defs = k, d
		}
	}
	if s.defs == nil {
		t.Fatalf("%s has no definitions", path)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	// "byte" (base64, from OpenAPI) is not a JSON Schema format; check it.
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(v any) error {
		str, ok := v.(string)
		if !ok {
			return nil
		}
		_, err := base64.StdEncoding.DecodeString(str)
		return err
	}})
	if err := c.AddResource("file:///mcp/"+v+"/schema.json", doc); err != nil {
		t.Fatalf("add schema resource: %v", err)
	}
	s.compiler = c
	schemaCache[v] = s
	return s
}

// has reports whether the version defines def.
func (s *versionSchema) has(def string) bool { _, ok := s.defs[def]; return ok }

// def returns a definition's raw JSON object (nil when absent).
func (s *versionSchema) def(def string) map[string]any {
	m, _ := s.defs[def].(map[string]any)
	return m
}

// schemaFor compiles the definition def (a name, or a name followed by a
// JSON-pointer tail such as "CallToolRequest/properties/params").
func (s *versionSchema) schemaFor(t testing.TB, def string) *jsonschema.Schema {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[def]; ok {
		return sch
	}
	sch, err := s.compiler.Compile("file:///mcp/" + s.version + "/schema.json#/" + s.defsKey + "/" + def)
	if err != nil {
		t.Fatalf("%s: compile %s: %v", s.version, def, err)
	}
	s.compiled[def] = sch
	return sch
}

// validateJSON validates data against def, returning the validation error.
func (s *versionSchema) validateJSON(t testing.TB, def string, data []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: re-parse encoded %s: %v\n%s", s.version, def, err, data)
	}
	return s.schemaFor(t, def).Validate(inst)
}

// hasProp reports whether definition def declares property prop (looking
// through a nested "params" object when params is true).
func (s *versionSchema) hasProp(def, prop string, params bool) bool {
	d := s.def(def)
	if d == nil {
		return false
	}
	props, _ := d["properties"].(map[string]any)
	if params {
		p, _ := props["params"].(map[string]any)
		if ref, ok := p["$ref"].(string); ok {
			p = s.def(filepath.Base(ref))
		}
		props, _ = p["properties"].(map[string]any)
	}
	_, ok := props[prop]
	return ok
}

// TestFeaturePredicatesMatchSchemas checks every feature predicate against
// what each version's schema actually defines.
func TestFeaturePredicatesMatchSchemas(t *testing.T) {
	for _, v := range allVersions {
		s := loadSchema(t, v)
		checks := []struct {
			name      string
			predicate bool
			schema    bool
		}{
			{"HasResourceLinks/ResourceLink", HasResourceLinks(v), s.has("ResourceLink")},
			{"HasAudio/AudioContent", HasAudio(v), s.has("AudioContent")},
			{"HasElicitation/ElicitRequest", HasElicitation(v), s.has("ElicitRequest")},
			{"HasURLElicitation/ElicitRequestURLParams", HasURLElicitation(v), s.has("ElicitRequestURLParams")},
			{"HasSamplingTools/ToolUseContent", HasSamplingTools(v), s.has("ToolUseContent")},
			{"HasTasks/Task", HasTasks(v), s.has("Task")},
			{"HasIcons/Icon", HasIcons(v), s.has("Icon")},
			{"HasTitle/Tool.title", HasTitle(v), s.hasProp("Tool", "title", false)},
			{"HasStructuredOutput/CallToolResult.structuredContent", HasStructuredOutput(v), s.hasProp("CallToolResult", "structuredContent", false)},
			{"HasStructuredOutput/Tool.outputSchema", HasStructuredOutput(v), s.hasProp("Tool", "outputSchema", false)},
			{"SupportsBatching/JSONRPCBatchRequest", SupportsBatching(v), s.has("JSONRPCBatchRequest")},
			{"HasToolAnnotations/ToolAnnotations", HasToolAnnotations(v), s.has("ToolAnnotations")},
			{"HasCompletionsCapability", HasCompletionsCapability(v), s.hasProp("ServerCapabilities", "completions", false)},
			{"HasCompletionContext", HasCompletionContext(v), s.hasProp("CompleteRequest", "context", true)},
			{"HasProgressMessage", HasProgressMessage(v), s.hasProp("ProgressNotification", "message", true)},
			{"HasResultType/Result.resultType", HasResultType(v), s.hasProp("Result", "resultType", false)},
			{"HasInitialize/InitializeRequest", HasInitialize(v), s.has("InitializeRequest")},
			{"IsStateless/DiscoverRequest", IsStateless(v), s.has("DiscoverRequest")},
		}
		for _, c := range checks {
			if c.predicate != c.schema {
				t.Errorf("%s: %s: predicate %v, schema %v", v, c.name, c.predicate, c.schema)
			}
		}
	}
}

// TestValidatorRejectsBadShapes proves the schema validation used by the
// other tests can fail: default-encoded shapes that break required fields are
// rejected.
func TestValidatorRejectsBadShapes(t *testing.T) {
	for _, v := range allVersions {
		s := loadSchema(t, v)
		bad := []struct{ def, json string }{
			{"TextContent", `{"type":"text"}`},
			{"ListToolsResult", `{"tools":null}`},
			{"CallToolResult", `{"content":null}`},
			{"ImageContent", `{"type":"image","data":"not base64!","mimeType":"image/png"}`},
		}
		for _, b := range bad {
			if err := s.validateJSON(t, b.def, []byte(b.json)); err == nil {
				t.Errorf("%s: %s accepted invalid %s", v, b.def, b.json)
			}
		}
	}
}

// mustMarshal encodes v or fails the test.
func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return data
}
