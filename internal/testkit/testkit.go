// Package testkit is what the repository's tests share. It serves the official MCP
// schemas (one per protocol version) and the examples shipped with the 2026-07-28
// schema, embedded by package internal/specs, and embeds wire captures of real peers, so that no test reads anything
// outside the repository. testdata/README.md says where each file comes from.
//
// Every fixture is named in a go:embed line: a missing file is a compile error in
// every package whose tests use it, not a skipped or failing test.
//
// It also holds the helpers tests would otherwise copy: a bounded test context
// (Context), waiting for a value (Receive) or for an HTTP handler's requests to
// finish (Requests) without polling, and test HTTP servers that stop even when a
// client left a stream open (NewServer). Helpers that need package mcp live in
// internal/testkit/mcptest.
//
// The in-package tests of protocol, transport/streamable and internal/wirecheck import
// testkit, so testkit must import none of those packages (nor anything that imports
// them) or those tests stop compiling with an import cycle.
package testkit

import (
	"embed"
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/specs"
)

//go:embed testdata/wire/csharp-streamable-http-2025-06-18.json
//go:embed testdata/wire/roo-code-client-2024-11-05.json
//go:embed testdata/wire/vscode-client-2025-03-26.json
var files embed.FS

const wireRoot = "testdata/wire"

// RepoSpecDir is the directory, relative to the module root, that holds the schema
// files SpecFS serves: <RepoSpecDir>/<version>/schema.json (package internal/specs).
const RepoSpecDir = specs.RepoDir

// The wire captures, by file name. Each records the JSON-RPC messages (and, for
// Streamable HTTP, the HTTP exchanges) of one real peer.
const (
	// CaptureCSharpStreamableHTTP is the C# SDK's client talking to its server over
	// Streamable HTTP, protocol 2025-06-18: eight HTTP exchanges.
	CaptureCSharpStreamableHTTP = "csharp-streamable-http-2025-06-18.json"
	// CaptureRooCode is Roo Code's client messages over the legacy HTTP+SSE
	// transport, protocol 2024-11-05, with the shapes of the replies it expects.
	CaptureRooCode = "roo-code-client-2024-11-05.json"
	// CaptureVSCode is VS Code asking for 2025-03-26 and accepting a server's
	// downgrade to 2024-11-05.
	CaptureVSCode = "vscode-client-2025-03-26.json"
)

// SpecFS returns the official schemas (package internal/specs) as a file system
// laid out like the official repository's schema directory: <version>/schema.json
// and 2026-07-28/examples/<Definition>/<name>.json.
func SpecFS() fs.FS { return specFS{} }

// specFS joins the schemas and the examples of package specs.
type specFS struct{}

func (specFS) Open(name string) (fs.File, error) {
	if f, err := specs.FS().Open(name); err == nil {
		return f, nil
	}
	return specs.ExamplesFS().Open(name)
}

// Versions returns the protocol versions that have an embedded schema, oldest first
// (version names are dates, so lexical order is release order).
func Versions() []string { return specs.Versions() }

// Schema returns a copy of the official JSON schema of version ("2025-06-18"), or
// nil when there is none.
func Schema(version string) []byte { return specs.Schema(version) }

// Example is one example document shipped with an official schema.
type Example struct {
	// Definition is the schema definition the example is an instance of
	// ("CallToolRequest"): the name of its directory.
	Definition string
	// Name is the example's file name ("call-tool-request.json").
	Name string
	// JSON is a copy of the document.
	JSON []byte
}

// Examples returns the examples shipped with version's schema, sorted by definition
// and then name, or nil when the version has none (only 2026-07-28 ships examples).
func Examples(version string) []Example {
	if Schema(version) == nil {
		return nil
	}
	exFS := specs.ExamplesFS()
	root := path.Join(version, "examples")
	defs, err := fs.ReadDir(exFS, root)
	if err != nil {
		return nil
	}
	var out []Example
	for _, def := range defs { // ReadDir sorts by name
		if !def.IsDir() {
			continue
		}
		docs, _ := fs.ReadDir(exFS, path.Join(root, def.Name()))
		for _, doc := range docs {
			if doc.IsDir() || path.Ext(doc.Name()) != ".json" {
				continue
			}
			data, err := fs.ReadFile(exFS, path.Join(root, def.Name(), doc.Name()))
			if err != nil {
				continue
			}
			out = append(out, Example{Definition: def.Name(), Name: doc.Name(), JSON: data})
		}
	}
	return out
}

// WireCaptures returns the names of the embedded wire captures, sorted.
func WireCaptures() []string {
	entries, _ := fs.ReadDir(files, wireRoot) // the directory is embedded: no error
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// WireCapture returns a copy of the wire capture called name (one of the Capture
// constants), or nil when there is none.
func WireCapture(name string) []byte {
	if !fs.ValidPath(name) || strings.Contains(name, "/") {
		return nil
	}
	data, err := files.ReadFile(path.Join(wireRoot, name))
	if err != nil {
		return nil
	}
	return data
}

// LoadWireCapture decodes the wire capture called name into v, and fails the test at
// once, naming the capture, when there is no such capture or it does not decode.
func LoadWireCapture(t testing.TB, name string, v any) {
	t.Helper()
	data := WireCapture(name)
	if data == nil {
		t.Fatalf("testkit: no wire capture %q (have %s)", name, strings.Join(WireCaptures(), ", "))
		return
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("testkit: wire capture %s: %v", name, err)
	}
}
