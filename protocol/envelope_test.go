package protocol

import (
	"reflect"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// stampedByServers are the result types a server stamps through
// StatelessResult; stampedElsewhere those it must not (the tasks extension's,
// whose resultType and _meta the task machinery sets where it makes them).
var (
	stampedByServers = map[string]any{
		"InputRequiredResult":         &InputRequiredResult{},
		"CallToolResult":              &CallToolResult{},
		"ListToolsResult":             &ListToolsResult{},
		"ListPromptsResult":           &ListPromptsResult{},
		"GetPromptResult":             &GetPromptResult{},
		"ListResourcesResult":         &ListResourcesResult{},
		"ListResourceTemplatesResult": &ListResourceTemplatesResult{},
		"ReadResourceResult":          &ReadResourceResult{},
		"CompleteResult":              &CompleteResult{},
		"DiscoverResult":              &DiscoverResult{},
		"SubscriptionsListenResult":   &SubscriptionsListenResult{},
		"EmptyResult":                 &EmptyResult{},
	}
	stampedElsewhere = map[string]any{
		"ExtensionCreateTaskResult": &ExtensionCreateTaskResult{},
		"DetailedTask":              &DetailedTask{},
	}
)

// TestEveryResultTypeIsStamped lists every type of this package with a
// ResultType field: each must be in one of the two lists above, so a new
// result type cannot be forgotten by servers. Those servers stamp implement
// StatelessResult, and Stamped sets resultType and _meta on a copy.
func TestEveryResultTypeIsStamped(t *testing.T) {
	found := testkit.StructsWithField(t, ".", "ResultType")
	var listed []string
	for name := range stampedByServers {
		listed = append(listed, name)
	}
	for name := range stampedElsewhere {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	if !slices.Equal(found, listed) {
		t.Fatalf("types with a ResultType field:\n%v\nlisted in this test:\n%v\n(a new result type implements StatelessResult and joins stampedByServers)", found, listed)
	}
	meta := Meta{"k": "v"}
	for name, v := range stampedByServers {
		r, ok := v.(StatelessResult)
		if !ok {
			t.Errorf("%s does not implement StatelessResult", name)
			continue
		}
		out := r.Stamped(meta)
		if reflect.TypeOf(out) != reflect.TypeOf(v) {
			t.Errorf("%s.Stamped returned a %T", name, out)
			continue
		}
		want := ResultTypeComplete
		if name == "InputRequiredResult" {
			want = ResultTypeInputRequired
		}
		got := reflect.ValueOf(out).Elem()
		if rt := got.FieldByName("ResultType").Interface(); rt != want {
			t.Errorf("%s.Stamped: resultType %q, want %q", name, rt, want)
		}
		if m := got.FieldByName("Meta").Interface().(Meta); m["k"] != "v" {
			t.Errorf("%s.Stamped: _meta %v", name, m)
		}
		if orig := reflect.ValueOf(v).Elem(); orig.FieldByName("ResultType").String() != "" || orig.FieldByName("Meta").Len() != 0 {
			t.Errorf("%s.Stamped changed the original", name)
		}
	}
	for name, v := range stampedElsewhere {
		if _, ok := v.(StatelessResult); ok {
			t.Errorf("%s implements StatelessResult, so servers would stamp it over the task machinery", name)
		}
	}
}
