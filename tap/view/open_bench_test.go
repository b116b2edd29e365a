package view

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// bigCapture writes a stdio capture of n calls after an initialize (2n+2
// records, n+1 entries), one in ten an error; the path is cached per n.
func bigCapture(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mcpkit-view-bench-%d.jsonl", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	var sb strings.Builder
	sb.WriteString(testHeader + "\n")
	seq := 0
	rec := func(dir, msg string) {
		seq++
		ms := seq
		fmt.Fprintf(&sb, `{"seq":%d,"t":"2026-07-28T12:%02d:%02d.%03dZ","dir":"%s","transport":"stdio","session":"stdio","msg":%s}`+"\n",
			seq, ms/60000%60, ms/1000%60, ms%1000, dir, msg)
	}
	rec("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	rec("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	for i := 1; i <= n; i++ {
		rec("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"call %d"}}}`, i, i))
		if i%10 == 0 {
			rec("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"bad arguments"}}`, i))
		} else {
			rec("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"call %d"}]}}`, i, i))
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// openFile reads a capture into a hub as `mcpkit tap view` does (OpenFile, its
// feed run to the end), schema checks on.
func openFile(b *testing.B, path string) *Hub {
	hub, feed, err := OpenFile(path, timeline.Options{Limit: -1, Schema: true})
	if err != nil {
		b.Fatal(err)
	}
	feed()
	return hub
}

// BenchmarkLoad100k reads a capture of 100,000 calls into the timeline to its
// end. The views do not wait for it (their first screen comes at once, and
// fills as the load goes), but this is how long until the last row is in.
func BenchmarkLoad100k(b *testing.B) {
	path := bigCapture(b, benchEntries(b))
	b.ResetTimer()
	for range b.N {
		openFile(b, path)
	}
}

// BenchmarkPage100k is the web page's update on a 100,000-entry timeline: a
// snapshot, the filter (errors only) applied, the newest 2,000 matching rows
// made, and the analysis (sent at most once a second).
func BenchmarkPage100k(b *testing.B) {
	hub := openFile(b, bigCapture(b, benchEntries(b)))
	f := timeline.Filter{ErrorsOnly: true}
	b.Run("rows", func(b *testing.B) {
		for range b.N {
			rows := hub.Model().Snapshot().Apply(f)
			for _, e := range rows[max(len(rows)-2000, 0):] {
				_ = RowOf(e, true)
			}
		}
	})
	b.Run("analysis", func(b *testing.B) {
		for range b.N {
			_ = PanelOf(hub.Model().Snapshot())
		}
	})
}

// BenchmarkCatalog100k is the servers tab on a 100,000-entry timeline, made
// when a page asks (again when the catalog version changes).
func BenchmarkCatalog100k(b *testing.B) {
	hub := openFile(b, bigCapture(b, benchEntries(b)))
	b.ResetTimer()
	for range b.N {
		_ = CatalogOf(hub.Model().Snapshot())
	}
}

// BenchmarkPreview100k is what a call's detail adds on a 100,000-entry
// timeline: whether the call previews a view.
func BenchmarkPreview100k(b *testing.B) {
	hub := openFile(b, bigCapture(b, benchEntries(b)))
	snap := hub.Model().Snapshot()
	last := snap.Entries[len(snap.Entries)-1]
	b.ResetTimer()
	for range b.N {
		_, _ = PreviewOf(snap, last)
	}
}

// benchEntries is the size of the benchmarks' capture: 100,000 entries, or
// 1,000 when the benchmark runs more than 5 times (scripts/test.sh's smoke
// run, -benchtime 200x: 200 loads of 100,000 entries would take it past the
// test timeout; a measurement runs with -benchtime 1x..5x or a duration).
func benchEntries(b *testing.B) int {
	if b.N > 5 {
		return 1_000
	}
	return 100_000
}

var _ = capture.Format
