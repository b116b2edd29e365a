package replay

import (
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

// listKinds are the list results compared item by item: the member holding the
// items, what an item is called in the report, and the member naming it.
var listKinds = map[string]struct{ member, what, key string }{
	protocol.MethodToolsList:              {"tools", "tool", "name"},
	protocol.MethodPromptsList:            {"prompts", "prompt", "name"},
	protocol.MethodResourcesList:          {"resources", "resource", "uri"},
	protocol.MethodResourcesTemplatesList: {"resourceTemplates", "resource template", "uriTemplate"},
}

// diffList compares two list results item by item: items added and removed, and
// the fields of an item that changed (a tool's inputSchema, outputSchema,
// description, …). It reports ok=false when the results are not lists of named
// items, to be compared as plain results.
func diffList(call *Call, recorded, live json.RawMessage, ig ignorer) (diffs []Difference, ok bool) {
	kind, isList := listKinds[call.Method]
	if !isList {
		return nil, false
	}
	a, okA := listItems(recorded, kind.member, kind.key)
	b, okB := listItems(live, kind.member, kind.key)
	if !okA || !okB {
		return nil, false
	}
	for _, n := range unionKeys(a, b) {
		d := Difference{Seq: call.Seq, Method: call.Method, Item: fmt.Sprintf("%s %q", kind.what, n)}
		ra, ina := a[n]
		rb, inb := b[n]
		switch {
		case !ina:
			d.Kind = KindAdded
		case !inb:
			d.Kind = KindRemoved
		default:
			fields, rec, lv := diffJSONAt([]string{kind.member, n}, ra, rb, ig)
			if len(fields) == 0 {
				continue
			}
			d.Kind, d.Fields, d.Recorded, d.Live = KindChanged, fields, rec, lv
		}
		diffs = append(diffs, d)
	}
	// Whatever else the result holds (besides the items) is compared as usual.
	rest := append(ignorer{{kind.member}}, ig...)
	if fields, rec, lv := diffJSON(recorded, live, rest); len(fields) > 0 {
		diffs = append(diffs, Difference{Seq: call.Seq, Method: call.Method, Kind: KindResult, Item: call.Key, Fields: fields, Recorded: rec, Live: lv})
	}
	return diffs, true
}

// listItems returns the items of a list result by their key.
func listItems(result json.RawMessage, member, key string) (map[string]json.RawMessage, bool) {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(res[member], &items) != nil {
		return nil, false
	}
	out := make(map[string]json.RawMessage, len(items))
	for _, it := range items {
		var named map[string]json.RawMessage
		var name string
		if json.Unmarshal(it, &named) != nil || json.Unmarshal(named[key], &name) != nil {
			return nil, false
		}
		out[name] = it
	}
	return out, true
}
