package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// FuzzCatalog: whatever two servers answer to initialize, tools/list and
// resources/read (peer bytes), the catalog and the previews are made without
// a panic, a duplicate names at least two listers, a view has a ui:// URI
// and a preview's document stays within MaxAppHTML.
func FuzzCatalog(f *testing.F) {
	f.Add(`{"serverInfo":{"name":"a","version":"1"}}`, `{"tools":[{"name":"x","_meta":{"ui":{"resourceUri":"ui://v"}}},{"name":"x"}]}`,
		`{"contents":[{"uri":"ui://v","mimeType":"text/html;profile=mcp-app","text":"<p>","_meta":{"ui":{"csp":{"connectDomains":["https://a"]}}}}]}`, `{"name":"x","arguments":{"k":1}}`)
	f.Add(`{"serverInfo":{"name":""}}`, `{"tools":[{"name":"x","_meta":{"ui/resourceUri":"ui://v"}}]}`,
		`{"contents":[{"uri":"ui://v","mimeType":"TEXT/HTML; profile=MCP-APP","blob":"PHA+"}]}`, `{"name":"x"}`)
	f.Add(`null`, `{"tools":null}`, `{"contents":[null,{"uri":"ui://v"}]}`, `[]`)
	f.Fuzz(func(t *testing.T, initResult, toolsResult, readResult, callParams string) {
		m := timeline.New(timeline.Options{Limit: -1})
		seq := uint64(0)
		add := func(session, dir, msg string) {
			seq++
			m.Add(&capture.Record{Seq: seq, Time: time.Unix(0, int64(seq)), Dir: dir, Transport: capture.TransportStdio,
				Session: session, Msg: json.RawMessage(msg)})
		}
		call := func(session, method, params, result string) {
			add(session, capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`)
			add(session, capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":`+result+`}`)
		}
		for _, s := range []string{"one", "two"} {
			call(s, "initialize", `{}`, initResult)
			call(s, "tools/list", `{}`, toolsResult)
			call(s, "resources/read", `{"uri":"ui://v"}`, readResult)
			call(s, "tools/call", callParams, `{"content":[]}`)
		}
		snap := m.Snapshot()
		c := CatalogOf(snap)
		for _, d := range c.Duplicates {
			if len(d.Servers) < 2 || len(d.Entries) == 0 {
				t.Fatalf("duplicate %+v", d)
			}
		}
		for _, v := range c.Apps {
			if !strings.HasPrefix(v.URI, apps.URIScheme) {
				t.Fatalf("view %+v", v)
			}
		}
		for _, e := range snap.Entries {
			p, ok := PreviewOf(snap, e)
			if !ok {
				continue
			}
			r, found := m.Entry(mustID(t, p.View.Entry))
			if !found {
				t.Fatalf("preview of %s names entry %s", e.ID, p.View.Entry)
			}
			if doc, _, err := AppDocument(r, p.View.URI); err == nil && len(doc) > MaxAppHTML {
				t.Fatalf("a document of %d bytes", len(doc))
			}
		}
	})
}

func mustID(t *testing.T, s string) timeline.EntryID {
	id, err := ParseEntryID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
