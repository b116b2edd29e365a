package skills_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/ext/skills"
)

// FuzzParseFrontmatter feeds arbitrary SKILL.md bytes (a peer's, on the
// client side) to the frontmatter parser: it must not panic, and what it
// accepts must be a JSON object with a valid name and a description.
func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody\n",
		"\ufeff---\r\nname: a-b\r\ndescription: \"x\"\r\nmetadata:\n  k: [1, 2.5, true, null, 2026-01-01]\n---   \r\n",
		"---\nname: a\ndescription: b\nx: &y 1\nz: *y\n---\n",
		"---\nname: a\ndescription: b\nn: 99999999999999999999999\nf: .inf\n---\n",
		"---\n[1, 2]\n---\n",
		"---\nname: a\nname: b\ndescription: c\n---\n",
		"no frontmatter",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := skills.ParseFrontmatter(data)
		if err != nil {
			return
		}
		if _, err := json.Marshal(fm); err != nil {
			t.Fatalf("accepted frontmatter has no JSON form: %v", err)
		}
		name, _ := fm["name"].(string)
		if skills.CheckName(name) != nil || fm["description"] == "" {
			t.Fatalf("accepted frontmatter without a valid name and description: %v", fm)
		}
	})
}

// FuzzSkillEntry decodes arbitrary skill entries (a peer's skills/list or
// skills/get answer): no panic, and an accepted entry encodes again to an
// entry that decodes the same way.
func FuzzSkillEntry(f *testing.F) {
	for _, s := range []string{
		`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"b"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":1}]}`,
		`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}`,
		`{"uri":"x","resources":"static"}`,
		`{"uri":"x","resources":null}`,
		`{"uri":"x","resources":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s skills.Skill
		if json.Unmarshal(data, &s) != nil {
			return
		}
		_ = skills.CheckEntry(&s)
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("re-encoding an accepted entry: %v", err)
		}
		var back skills.Skill
		if err := json.Unmarshal(again, &back); err != nil || back.Dynamic != s.Dynamic || len(back.Resources) != len(s.Resources) {
			t.Fatalf("round trip %s -> %s: %v", data, again, err)
		}
	})
}
