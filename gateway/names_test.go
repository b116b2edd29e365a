package gateway

import "testing"

// The gateway's names are llm.ToolNames' (tested there): a clean
// "<server>__<tool>" is kept.
func TestAssignNamesKeepsCleanNames(t *testing.T) {
	refs := []Ref{{Server: "github", Name: "create_issue"}, {Server: "everything", Name: "trigger-sampling-request"}, {Server: "a", Name: "b"}}
	got := AssignNames(refs)
	for _, r := range refs {
		if want := r.Server + "__" + r.Name; got[r] != want {
			t.Errorf("%v → %q, want %q", r, got[r], want)
		}
	}
}
