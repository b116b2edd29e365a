package mcp

import (
	"bytes"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// versionKeyBoth fails unless hasVersionKey agrees with a plain search for the
// quoted key.
func versionKeyBoth(t *testing.T, params []byte) {
	t.Helper()
	want := bytes.Contains(params, []byte(`"`+protocol.MetaKeyProtocolVersion+`"`))
	if got := hasVersionKey(params); got != want {
		t.Fatalf("hasVersionKey(%q) = %v, want %v", params, got, want)
	}
}

var versionKeySeeds = []string{
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`"io.modelcontextprotocol/protocolVersion"`,
	`io.modelcontextprotocol/protocolVersion"`,
	`"io.modelcontextprotocol/protocolVersion`,
	`{"protocolVersion":"2025-06-18","x":"a/protocolVersion\""}`,
	`"io.modelcontextprotocol/protocolVersion/protocolVersion"`,
	`/protocolVersion"`, ``, `{}`,
}

func TestHasVersionKey(t *testing.T) {
	for _, s := range versionKeySeeds {
		versionKeyBoth(t, []byte(s))
	}
}

func FuzzHasVersionKey(f *testing.F) {
	for _, s := range versionKeySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) { versionKeyBoth(t, params) })
}
