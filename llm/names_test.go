package llm

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolNamesSanitizesAndShortens(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := []struct {
		ref  ToolRef
		want string // the whole name, or its start when it ends with "_" (then 8 hex digits follow)
	}{
		{ToolRef{"my server", "read.file"}, "my_server__read_file_"}, // changed: a suffix
		{ToolRef{"fs", "lire_fichier_é"}, "fs__lire_fichier_e_"},     // accents dropped
		{ToolRef{"docker", "github:create_issue"}, "docker__github_create_issue_"},
		{ToolRef{"", "get.weather"}, "get_weather_"},
		{ToolRef{"edge", "ünï_tööl_🚀"}, "edge__uni_tool___"}, // one "_" for the rocket
		{ToolRef{"", "ﬁle_ｘ"}, "file_x_"},                    // compatibility forms
		{ToolRef{"fs", "read_file"}, "fs__read_file"},        // clean: kept
		{ToolRef{"a__b", "c"}, "a__b__c_"},                   // ambiguous server: a suffix
		{ToolRef{"srv", long}, "srv__" + strings.Repeat("x", 64-1-8-5) + "_"},
		{ToolRef{"", ""}, "_"},
	}
	for _, c := range cases {
		got := ToolNames([]ToolRef{c.ref})[c.ref]
		hashed := strings.HasSuffix(c.want, "_") && len(got) == len(c.want)+8 && strings.HasPrefix(got, c.want)
		if !validName.MatchString(got) || got != c.want && !hashed {
			t.Errorf("%q/%q → %q, want %q", c.ref.Server, c.ref.Name, got, c.want)
		}
	}
}

func TestToolNamesResolvesCollisions(t *testing.T) {
	// "x__y"+"z" and "x"+"y__z" join alike; "q!" sanitizes to "q_", which
	// the clean "q_" holds, so r gets a suffix; forged is made to be clean
	// and equal to that suffixed name.
	r := ToolRef{"p", "q!"}
	forged := ToolRef{"p", "q__" + r.hash()[:8]}
	refs := []ToolRef{{"s", "a.b"}, {"s", "a_b"}, {"x__y", "z"}, {"x", "y__z"}, r, {"p", "q_"}, forged, {"solo", "tool"}}
	got := ToolNames(refs)
	if got[ToolRef{"x__y", "z"}] == "x__y__z" || got[ToolRef{"x", "y__z"}] != "x__y__z" {
		t.Errorf("a server name with the separator gets a suffix; the clean, unambiguous name keeps its own: %v", got)
	}
	if got[ToolRef{"s", "a_b"}] != "s__a_b" || !strings.HasPrefix(got[ToolRef{"s", "a.b"}], "s__a_b_") {
		t.Errorf("a clean name keeps its name beside a sanitized one: %v", got)
	}
	if n := got[forged]; n != "p__q__"+r.hash()[:8] || got[r] != "p__q__"+r.hash()[:12] || got[ToolRef{"p", "q_"}] != "p__q_" {
		t.Errorf("a clean name equal to a suffixed one keeps it, the other moves on to 12 digits: %q, %q", n, got[r])
	}
	if got[ToolRef{"solo", "tool"}] != "solo__tool" {
		t.Errorf("an unrelated name changed: %q", got[ToolRef{"solo", "tool"}])
	}
	checkNames(t, refs, got)
}

// TestToolNamesStable: a tool gets the same name whatever other tools there
// are (the name of a non-ASCII tool used to change from its sanitized form to a
// hashed one when a second tool sanitized alike appeared).
func TestToolNamesStable(t *testing.T) {
	tool := ToolRef{"edge", "ünï_tööl_🚀"}
	alone := ToolNames([]ToolRef{tool})[tool]
	for _, others := range [][]ToolRef{
		{{"edge", "uni_tool__"}, {"edge", "ùnî_töol_🛸"}},
		{{"edge", "ünï_tööl_🚁"}, {"edge", "uni_tool___"}},
		{{"edge", "a.b"}, {"edge", "a_b"}, {"edg", "e__uni_tool__"}},
	} {
		if got := ToolNames(append(others, tool))[tool]; got != alone {
			t.Errorf("%q alone → %q, beside %v → %q", tool.Name, alone, others, got)
		}
	}
	if !strings.HasPrefix(alone, "edge__uni_tool__") {
		t.Errorf("%q → %q: not readable", tool.Name, alone)
	}
	for _, pair := range [][2]ToolRef{{{"s", "a.b"}, {"s", "a_b"}}, {{"s", "a.b"}, {"s", "a b"}}} {
		if ToolNames([]ToolRef{pair[0]})[pair[0]] != ToolNames(pair[:])[pair[0]] {
			t.Errorf("%q changed when %q appeared", pair[0].Name, pair[1].Name)
		}
	}
}

// checkNames checks that every ref has a valid name, that no two refs share
// one, and that the refs in reverse order get the same names.
func checkNames(t *testing.T, refs []ToolRef, got map[ToolRef]string) {
	t.Helper()
	seen := map[string]ToolRef{}
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
	again := ToolNames(rev)
	for _, r := range refs {
		if again[r] != got[r] {
			t.Fatalf("%q: %q, then %q in reverse order", r, got[r], again[r])
		}
	}
}

// FuzzToolNames checks, for any set of refs, that every name is valid, that
// the names are distinct, and that the result is the same in any order.
func FuzzToolNames(f *testing.F) {
	f.Add("github\x00create_issue\x00github\x00create.issue\x00a__b\x00c\x00a\x00b__c")
	f.Add("s\x00" + strings.Repeat("é", 70) + "\x00s\x00" + strings.Repeat("è", 70))
	f.Add("\x00\x00\x00x")
	f.Fuzz(func(t *testing.T, data string) {
		parts := strings.Split(data, "\x00")
		var refs []ToolRef
		for i := 0; i+1 < len(parts); i += 2 {
			refs = append(refs, ToolRef{parts[i], parts[i+1]})
		}
		checkNames(t, refs, ToolNames(refs))
	})
}
