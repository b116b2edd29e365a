package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDescriptionOnlyTag checks go-sdk's tag form: a jsonschema tag with no
// flag and no key=value item is the description, verbatim.
func TestDescriptionOnlyTag(t *testing.T) {
	type input struct {
		Query   string   `json:"query" jsonschema:"What to look for"`
		Comma   string   `json:"comma" jsonschema:"The user's name, in full"`
		Equals  int      `json:"equals" jsonschema:"Set ratio a=b, or leave 0"`
		Escaped string   `json:"escaped" jsonschema:"A path such as C:\\dir\\, quoted"`
		Tags    []string `json:"tags" jsonschema:"Labels to attach"`
		Flag    bool     `json:"flag" jsonschema:"Required by policy"` // a capital R is no flag
	}
	raw, err := For[input](nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Items       *struct {
				Description string `json:"description"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"query":   "What to look for",
		"comma":   "The user's name, in full",
		"equals":  "Set ratio a=b, or leave 0",
		"escaped": `A path such as C:\dir\, quoted`,
		"tags":    "Labels to attach",
		"flag":    "Required by policy",
	} {
		if d := got.Properties[name].Description; d != want {
			t.Errorf("%s: description %q, want %q", name, d, want)
		}
	}
	if it := got.Properties["tags"].Items; it == nil || it.Description != "" {
		t.Errorf("tags: the description belongs to the array, not its items: %s", raw)
	}
	if len(got.Required) != 6 {
		t.Errorf("required = %v: a description tag must not change the required rule", got.Required)
	}
}

// TestKeywordTagsStillParsed checks that a tag of flags alone is read as
// keywords, not as a description (the errors of mixed tags are in
// TestForErrors).
func TestKeywordTagsStillParsed(t *testing.T) {
	type flagsOnly struct {
		A *string `json:"a" jsonschema:"required,deprecated"`
	}
	raw, err := For[flagsOnly](nil)
	if err != nil || !strings.Contains(string(raw), `"deprecated":true`) || !strings.Contains(string(raw), `"required":["a"]`) ||
		strings.Contains(string(raw), `"description"`) {
		t.Errorf("For[flagsOnly] = %s, %v", raw, err)
	}
}
