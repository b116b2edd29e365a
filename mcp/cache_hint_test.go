package mcp

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/protocol"
)

// cacheableResults are protocol's result types with caching fields; the test
// below keeps the list complete.
var cacheableResults = map[string]any{
	"DiscoverResult":              &protocol.DiscoverResult{},
	"ListToolsResult":             &protocol.ListToolsResult{},
	"ListPromptsResult":           &protocol.ListPromptsResult{},
	"ListResourcesResult":         &protocol.ListResourcesResult{},
	"ListResourceTemplatesResult": &protocol.ListResourceTemplatesResult{},
	"ReadResourceResult":          &protocol.ReadResourceResult{},
}

// TestEveryCacheableResultHasAnOption: every protocol type that embeds
// CacheHint gets its hint from its own CacheOptions field when a server
// stamps it for a stateless client.
func TestEveryCacheableResultHasAnOption(t *testing.T) {
	found := testkit.StructsWithField(t, "../protocol", "CacheHint")
	if len(found) != len(cacheableResults) {
		t.Fatalf("types embedding CacheHint: %v; listed here: %d (a new one needs a CacheOptions field and a case in hintFor)", found, len(cacheableResults))
	}
	co := CacheOptions{}
	opts := reflect.ValueOf(&co).Elem()
	for i := range opts.NumField() {
		opts.Field(i).Set(reflect.ValueOf(CacheHint{TTL: time.Duration(i+1) * time.Second}))
	}
	srv := NewServer(protocol.Implementation{Name: "s", Version: "1"}, &ServerOptions{Cache: co})
	seen := map[int64]string{}
	for _, name := range found {
		v, ok := cacheableResults[name]
		if !ok {
			t.Errorf("%s embeds CacheHint but is not listed here", name)
			continue
		}
		out := srv.finishStateless(v).(interface{ CacheFields() *protocol.CacheHint })
		ttl := out.CacheFields().TTLMs
		if ttl == nil || *ttl == 0 {
			t.Errorf("%s: no CacheOptions field sets its hint", name)
			continue
		}
		if other, dup := seen[*ttl]; dup {
			t.Errorf("%s and %s share a CacheOptions field", name, other)
		}
		seen[*ttl] = name
	}
}
