// Package specs embeds the official MCP JSON schemas, one per protocol version,
// and the examples shipped with the 2026-07-28 schema. README.md beside this file
// says where they come from and under which license.
//
// It is a leaf with no test dependency, so that programs (the tap's schema flags
// in `mcpkit tap`) and tests (internal/testkit, internal/wirecheck) read the same
// copies. The examples are a separate embedded file system: a program that never
// calls Examples does not carry them (about 870 KB).
package specs

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed spec/2024-11-05/schema.json
//go:embed spec/2025-03-26/schema.json
//go:embed spec/2025-06-18/schema.json
//go:embed spec/2025-11-25/schema.json
//go:embed spec/2026-07-28/schema.json
var schemas embed.FS

//go:embed spec/2026-07-28/examples
var examples embed.FS

// root is the directory of the files inside the embedded file systems.
const root = "spec"

// RepoDir is the directory, relative to the module root, that holds the schema
// files: <RepoDir>/<version>/schema.json.
const RepoDir = "internal/specs/" + root

// FS returns the embedded schemas as a file system laid out like the official
// repository's schema directory: <version>/schema.json.
func FS() fs.FS {
	sub, _ := fs.Sub(schemas, root) // fails only for an invalid path, which root is not
	return sub
}

// ExamplesFS returns the embedded examples, laid out like the official
// repository's: 2026-07-28/examples/<Definition>/<name>.json.
func ExamplesFS() fs.FS {
	sub, _ := fs.Sub(examples, root)
	return sub
}

// Versions returns the protocol versions that have an embedded schema, oldest
// first (version names are dates, so lexical order is release order).
func Versions() []string {
	entries, _ := fs.ReadDir(schemas, root) // the directory is embedded: no error
	versions := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			versions = append(versions, e.Name())
		}
	}
	sort.Strings(versions)
	return versions
}

// Schema returns a copy of the official JSON schema of version ("2025-06-18"), or
// nil when there is none.
func Schema(version string) []byte {
	if !fs.ValidPath(version) || strings.Contains(version, "/") {
		return nil
	}
	data, err := schemas.ReadFile(path.Join(root, version, "schema.json"))
	if err != nil {
		return nil
	}
	return data
}
