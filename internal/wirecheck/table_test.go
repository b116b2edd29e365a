package wirecheck

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// rawDefs reads a version's definitions with encoding/json, independently of the code
// under test.
func rawDefs(t *testing.T, version string) map[string]map[string]any {
	t.Helper()
	data := testkit.Schema(version)
	var doc struct {
		Defs        map[string]map[string]any `json:"$defs"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Defs != nil {
		return doc.Defs
	}
	return doc.Definitions
}

func TestSpecDirHoldsEveryVersion(t *testing.T) {
	specs := testSpecs(t)
	for _, v := range allVersions {
		if specs.versions[v] == nil {
			t.Errorf("no schema for %s in %s", v, specs.source)
		}
	}
	if !slices.IsSorted(specs.order) {
		t.Errorf("versions not in release order: %v", specs.order)
	}
}

// TestTableCoversEveryMethod finds every definition whose method is a constant and
// checks that the table has a row for it, pointing at that definition.
func TestTableCoversEveryMethod(t *testing.T) {
	specs := testSpecs(t)
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			tb := specs.versions[v].table
			want := map[string][]string{} // method -> definitions naming it
			for name, def := range rawDefs(t, v) {
				props, _ := def["properties"].(map[string]any)
				method, _ := props["method"].(map[string]any)
				if c, ok := method["const"].(string); ok {
					want[c] = append(want[c], name)
				}
			}
			if len(want) < 10 {
				t.Fatalf("found only %d methods in the schema; the scan is broken", len(want))
			}
			for m, defs := range want {
				row := tb.methods[m]
				if row == nil {
					t.Errorf("method %s (%v) has no row", m, defs)
					continue
				}
				if !slices.Contains(defs, row.def) {
					t.Errorf("method %s: row definition %s, want one of %v", m, row.def, defs)
				}
				if !row.fromClient && !row.fromServer {
					t.Errorf("method %s: nobody may send it", m)
				}
				if row.kind != kindNotification && row.resultDef == "" {
					t.Errorf("method %s: no result definition", m)
				}
			}
			for m := range tb.methods {
				if want[m] == nil {
					t.Errorf("row %s names no method in the schema", m)
				}
			}
		})
	}
}

// TestResultPairing checks the naming convention and its exceptions: every request's
// result is <Name>Result except those with no result of their own, which answer
// EmptyResult. Every result must be one the responding side's union lists.
func TestResultPairing(t *testing.T) {
	emptyIn := map[string][]string{
		"2024-11-05": {"logging/setLevel", "ping", "resources/subscribe", "resources/unsubscribe"},
		"2025-03-26": {"logging/setLevel", "ping", "resources/subscribe", "resources/unsubscribe"},
		"2025-06-18": {"logging/setLevel", "ping", "resources/subscribe", "resources/unsubscribe"},
		"2025-11-25": {"logging/setLevel", "ping", "resources/subscribe", "resources/unsubscribe"},
		"2026-07-28": nil,
	}
	specs := testSpecs(t)
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			tb := specs.versions[v].table
			defs := rawDefs(t, v)
			var empty []string
			for m, row := range tb.methods {
				if row.kind == kindNotification {
					continue
				}
				if row.emptyResult {
					empty = append(empty, m)
				} else if want := strings.TrimSuffix(row.def, "Request") + "Result"; row.resultDef != want {
					t.Errorf("%s: result %s, want %s", m, row.resultDef, want)
				}
				union := "ServerResult" // the client sends it, the server answers
				if row.fromServer {
					union = "ClientResult"
				}
				if row.kind == kindInputRequest {
					union = "InputResponse"
				}
				listed := alternatives(defs[union])
				result := row.resultDef
				if row.emptyResult || result == "EmptyResult" {
					result = "Result"
				}
				if !slices.Contains(listed, result) {
					t.Errorf("%s: result %s is not in %s %v", m, result, union, listed)
				}
			}
			sort.Strings(empty)
			if !slices.Equal(empty, emptyIn[v]) {
				t.Errorf("methods answering EmptyResult = %v, want %v", empty, emptyIn[v])
			}
		})
	}
}

// TestTableRows pins rows whose derivation is not a plain naming convention.
func TestTableRows(t *testing.T) {
	specs := testSpecs(t)
	row := func(v, m string) *methodSpec {
		r := specs.versions[v].table.methods[m]
		if r == nil {
			t.Fatalf("%s has no row for %s", v, m)
		}
		return r
	}
	for _, v := range allVersions {
		if r := row(v, "tools/call"); r.def != "CallToolRequest" || r.resultDef != "CallToolResult" || !r.fromClient || r.fromServer {
			t.Errorf("%s tools/call row = %+v", v, *r)
		}
		if r := row(v, "resources/templates/list"); r.resultDef != "ListResourceTemplatesResult" {
			t.Errorf("%s resources/templates/list result = %s", v, r.resultDef)
		}
		if r := row(v, "notifications/message"); r.kind != kindNotification || r.fromClient || !r.fromServer {
			t.Errorf("%s notifications/message row = %+v", v, *r)
		}
		if v != statelessVersion {
			if r := row(v, "initialize"); r.resultDef != "InitializeResult" {
				t.Errorf("%s initialize result = %s", v, r.resultDef)
			}
			if r := row(v, "ping"); !r.fromClient || !r.fromServer || r.resultDef != "EmptyResult" {
				t.Errorf("%s ping row = %+v", v, *r)
			}
			if r := row(v, "roots/list"); r.kind != kindRequest || !r.fromServer || r.fromClient {
				t.Errorf("%s roots/list row = %+v", v, *r)
			}
		}
		tb := specs.versions[v].table
		if tb.batches != (v == "2025-03-26") {
			t.Errorf("%s batches = %v", v, tb.batches)
		}
		if (tb.metaVersionKey != "") != (v == statelessVersion) {
			t.Errorf("%s meta version key = %q", v, tb.metaVersionKey)
		}
	}

	if r := row("2025-11-25", "tools/call"); !r.taskAugmentable {
		t.Error("2025-11-25 tools/call is not task-augmentable")
	}
	if r := row("2025-11-25", "tools/list"); r.taskAugmentable {
		t.Error("2025-11-25 tools/list is task-augmentable")
	}
	if r := row("2025-11-25", "tasks/result"); r.resultDef != "GetTaskPayloadResult" {
		t.Errorf("tasks/result result = %s", r.resultDef)
	}

	m := specs.versions[statelessVersion].table
	if m.metaVersionKey != "io.modelcontextprotocol/protocolVersion" {
		t.Errorf("meta version key = %q", m.metaVersionKey)
	}
	for method, inputRequired := range map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true,
		"tools/list": false, "server/discover": false, "subscriptions/listen": false} {
		if r := row(statelessVersion, method); r.inputRequired != inputRequired {
			t.Errorf("2026-07-28 %s inputRequired = %v", method, r.inputRequired)
		}
	}
	for _, method := range []string{"elicitation/create", "sampling/createMessage", "roots/list"} {
		if r := row(statelessVersion, method); r.kind != kindInputRequest {
			t.Errorf("2026-07-28 %s kind = %v, want input request", method, r.kind)
		}
	}
	if r := row(statelessVersion, "server/discover"); r.resultDef != "DiscoverResult" {
		t.Errorf("server/discover result = %s", r.resultDef)
	}
	for code, want := range map[int64]errorSpec{
		-32020: {"HeaderMismatchError", true}, -32021: {"MissingRequiredClientCapabilityError", true},
		-32022: {"UnsupportedProtocolVersionError", true}, -32602: {"InvalidParamsError", false},
		-32700: {"ParseError", false},
	} {
		if got := m.errorCodes[code]; got != want {
			t.Errorf("2026-07-28 error %d = %+v, want %+v", code, got, want)
		}
	}
	if got := specs.versions["2025-11-25"].table.errorCodes[-32042]; got.def != "URLElicitationRequiredError" {
		t.Errorf("2025-11-25 error -32042 = %+v", got)
	}
}

// TestBuildTableRejectsGaps makes sure a schema the derivation cannot explain fails
// loudly instead of leaving methods unchecked.
func TestBuildTableRejectsGaps(t *testing.T) {
	method := func(m string) map[string]any {
		return map[string]any{"properties": map[string]any{"method": map[string]any{"const": m}}}
	}
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/definitions/" + name} }
	envelopes := map[string]any{"JSONRPCRequest": map[string]any{}, "JSONRPCNotification": map[string]any{},
		"JSONRPCResponse": map[string]any{}, "JSONRPCError": map[string]any{}, "JSONRPCMessage": map[string]any{}}
	with := func(extra map[string]any) map[string]any {
		defs := map[string]any{}
		for k, v := range envelopes {
			defs[k] = v
		}
		for k, v := range extra {
			defs[k] = v
		}
		return defs
	}
	for name, defs := range map[string]map[string]any{
		"method in no union": with(map[string]any{"FooRequest": method("foo"), "EmptyResult": map[string]any{}}),
		"two definitions for one method": with(map[string]any{"FooRequest": method("foo"), "BarRequest": method("foo"),
			"ClientRequest": ref("FooRequest"), "EmptyResult": map[string]any{}}),
		"no result":   with(map[string]any{"FooRequest": method("foo"), "ClientRequest": ref("FooRequest")}),
		"no envelope": {"FooRequest": method("foo"), "ClientRequest": ref("FooRequest"), "EmptyResult": map[string]any{}},
	} {
		if _, err := buildTable(defs); err == nil {
			t.Errorf("%s: buildTable succeeded", name)
		}
	}
	ok := with(map[string]any{"FooRequest": method("foo"), "FooResult": map[string]any{}, "ClientRequest": ref("FooRequest")})
	tb, err := buildTable(ok)
	if err != nil {
		t.Fatal(err)
	}
	if r := tb.methods["foo"]; r == nil || r.resultDef != "FooResult" || !r.fromClient {
		t.Errorf("foo row = %+v", r)
	}
}
