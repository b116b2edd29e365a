package gateway

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestAssignNamesKeepsCleanNames(t *testing.T) {
	refs := []Ref{{"github", "create_issue"}, {"everything", "trigger-sampling-request"}, {"a", "b"}}
	got := AssignNames(refs)
	for _, r := range refs {
		if want := r.Server + "__" + r.Name; got[r] != want {
			t.Errorf("%v → %q, want %q", r, got[r], want)
		}
	}
}

func TestAssignNamesSanitizesAndShortens(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := []struct {
		ref    Ref
		prefix string // the name must start with it and end with "_" and hex digits
	}{
		{Ref{"my server", "read.file"}, "my_server__read_file_"},
		{Ref{"fs", "lire_fichier_é"}, "fs__lire_fichier___"},
		{Ref{"srv", long}, "srv__" + strings.Repeat("x", 64-1-8-5) + "_"},
		{Ref{"docker", "github:create_issue"}, "docker__github_create_issue_"},
	}
	for _, c := range cases {
		got := AssignNames([]Ref{c.ref})[c.ref]
		if !validName.MatchString(got) || !strings.HasPrefix(got, c.prefix) || len(got) != min(len(c.prefix)+8, 64) {
			t.Errorf("%q/%q → %q, want %q + 8 hex digits", c.ref.Server, c.ref.Name, got, c.prefix)
		}
	}
}

func TestAssignNamesResolvesCollisions(t *testing.T) {
	// "x__y"+"z" and "x"+"y__z" join alike; forged is made to be clean and
	// equal to the suffixed name r gets alone ("q!" sanitizes to "q_").
	r := Ref{"p", "q!"}
	forged := Ref{"p", "q__" + refHash(r)[:8]}
	refs := []Ref{{"s", "a.b"}, {"s", "a_b"}, {"x__y", "z"}, {"x", "y__z"}, r, forged, {"solo", "tool"}}
	got := AssignNames(refs)
	if got[Ref{"x__y", "z"}] == "x__y__z" || got[Ref{"x", "y__z"}] == "x__y__z" {
		t.Errorf("colliding clean names must all be suffixed, not first-come: %v", got)
	}
	if got[Ref{"s", "a_b"}] != "s__a_b" || !strings.HasPrefix(got[Ref{"s", "a.b"}], "s__a_b_") {
		t.Errorf("a clean name keeps its name beside a sanitized one: %v", got)
	}
	if n := got[forged]; n != "p__q__"+refHash(r)[:8]+"_"+refHash(forged)[:8] || got[r] != "p__q__"+refHash(r)[:12] {
		t.Errorf("a clean name equal to a suffixed one: both move on (the clean one to 8 digits, the other to 12): %q, %q", n, got[r])
	}
	if got[Ref{"solo", "tool"}] != "solo__tool" {
		t.Errorf("an unrelated name changed: %q", got[Ref{"solo", "tool"}])
	}
	checkNames(t, refs, got)
}

// checkNames checks that every ref has a valid name, that no two refs share
// one, and that the refs in reverse order get the same names.
func checkNames(t *testing.T, refs []Ref, got map[Ref]string) {
	t.Helper()
	seen := map[string]Ref{}
	for _, r := range refs {
		n, ok := got[r]
		if !ok || !validName.MatchString(n) {
			t.Fatalf("%q → %q: not a valid name", r, n)
		}
		if other, dup := seen[n]; dup && other != r {
			t.Fatalf("%q and %q both → %q", r, other, n)
		}
		seen[n] = r
	}
	rev := slices.Clone(refs)
	slices.Reverse(rev)
	again := AssignNames(rev)
	for _, r := range refs {
		if again[r] != got[r] {
			t.Fatalf("%q: %q, then %q in reverse order", r, got[r], again[r])
		}
	}
}

// FuzzAssignNames checks, for any set of refs, that every name is valid, that
// the names are distinct, and that the result is the same in any order.
func FuzzAssignNames(f *testing.F) {
	f.Add("github\x00create_issue\x00github\x00create.issue\x00a__b\x00c\x00a\x00b__c")
	f.Add("s\x00" + strings.Repeat("é", 70) + "\x00s\x00" + strings.Repeat("è", 70))
	f.Add("\x00\x00\x00x")
	f.Fuzz(func(t *testing.T, data string) {
		parts := strings.Split(data, "\x00")
		var refs []Ref
		for i := 0; i+1 < len(parts); i += 2 {
			refs = append(refs, Ref{parts[i], parts[i+1]})
		}
		checkNames(t, refs, AssignNames(refs))
	})
}
