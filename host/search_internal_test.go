package host

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// searchTools is a catalog of n tools like a filesystem server's and a
// memory server's, named by server.
func searchTools(n int) []*Tool {
	base := []protocol.Tool{
		{Name: "read_text_file", Description: "Read the complete contents of a file from the file system as text.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"number"}}}`)},
		{Name: "write_file", Description: "Create a new file or completely overwrite an existing file with new content.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
		{Name: "list_directory", Description: "Get a detailed listing of all files and directories in a specified path.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "create_entities", Description: "Create multiple new entities in the knowledge graph.", InputSchema: json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array"}}}`)},
		{Name: "searchNodes", Description: "Search for nodes in the knowledge graph based on a query.", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)},
		{Name: "echo", Description: "Echoes the message back to the client.", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
	}
	out := make([]*Tool, 0, n)
	for i := 0; len(out) < n; i++ {
		t := base[i%len(base)]
		server := fmt.Sprintf("s%d", i/len(base))
		out = append(out, &Tool{Name: server + "__" + t.Name, Server: server, MCP: t})
	}
	return out
}

// The ranking: a name's words count most, stems and camelCase parts match,
// and a word every tool has counts little.
func TestSearchRanking(t *testing.T) {
	x := newSearchIndex(searchTools(6))
	for query, want := range map[string]string{
		"read a file":                   "s0__read_text_file",
		"write content to a file":       "s0__write_file",
		"list the files in a directory": "s0__list_directory",
		"search nodes graph":            "s0__searchNodes",
		"entity":                        "s0__create_entities",
		"echo message":                  "s0__echo",
	} {
		got := x.find(query, 3)
		if len(got) == 0 || got[0].Name != want {
			names := []string{}
			for _, g := range got {
				names = append(names, g.Name)
			}
			t.Errorf("%q: %v, want %s first", query, names, want)
		}
	}
	if got := x.find("zzz qqq", 3); len(got) != 0 {
		t.Errorf("nonsense found %d tools", len(got))
	}
}

// The surface's names step aside for a server's tool of the same name.
func TestSearchSurfaceNamesDistinct(t *testing.T) {
	x := newSearchIndex([]*Tool{{Name: "search_tools"}, {Name: "load_tools"}, {Name: "load_tools_"}})
	if x.search != "search_tools_" || x.load != "load_tools__" {
		t.Errorf("surface named %s, %s", x.search, x.load)
	}
}

// FuzzSearchCall: whatever arguments a model sends to the surface, the
// answer is bounded and nothing panics.
func FuzzSearchCall(f *testing.F) {
	f.Add("search_tools", `{"query":"read file","limit":3}`)
	f.Add("load_tools", `{"names":["s0__echo","x"]}`)
	f.Add("search_tools", `{"query":"ReadFile listing\u00e9s","limit":-1}`)
	f.Add("load_tools", `{"names":"x"}`)
	x := newSearchIndex(searchTools(30))
	f.Fuzz(func(t *testing.T, name, args string) {
		loaded := map[string]bool{}
		text, _, ok := x.run(name, json.RawMessage(args), loaded)
		if !ok {
			return
		}
		if len(text) > 200*maxSearchLimit+maxQueryLen+500 {
			t.Errorf("answer of %d bytes", len(text))
		}
		if len(loaded) > maxLoad {
			t.Errorf("%d tools loaded at once", len(loaded))
		}
		for n := range loaded {
			if !strings.HasPrefix(n, "s") {
				t.Errorf("loaded %q, not a tool", n)
			}
		}
	})
}

// BenchmarkSearch: one search over 200 tools (about what ten servers list).
func BenchmarkSearch(b *testing.B) {
	x := newSearchIndex(searchTools(200))
	b.ReportAllocs()
	for b.Loop() {
		x.find("read the contents of a text file", defaultSearchLimit)
	}
}
