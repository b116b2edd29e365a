package web

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCloseJSON: each prefix of streamed arguments gives the object as far
// as it is known: complete members kept, an unfinished string value shown
// as far as it goes, an unfinished key, number or literal left out.
func TestCloseJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{`, `{}`},
		{`{"ci`, `{}`},
		{`{"city"`, `{}`},
		{`{"city":`, `{}`},
		{`{"city":"Ly`, `{"city":"Ly"}`},
		{`{"city":"Ly\`, `{"city":"Ly"}`},
		{`{"city":"L\u00`, `{}`},
		{`{"city":"Lyon","points":1`, `{"city":"Lyon"}`},
		{`{"city":"Lyon","points":12,`, `{"city":"Lyon","points":12}`},
		{`{"a":[1,{"b":tr`, `{"a":[1,{}]}`},
		{`{"a":[1,{"b":true}`, `{"a":[1,{"b":true}]}`},
		{`{"a":{"b":[]}} trailing`, `{"a":{"b":[]}}`},
		{` {"q":"say \"hi`, ` {"q":"say \"hi"}`},
	} {
		got, ok := closeJSON(c.in)
		if !ok || string(got) != c.want {
			t.Errorf("closeJSON(%q) = %s, %v; want %s", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{``, `  `, `[1,2`, `"x"`, `12`, `{]`, strings.Repeat("[", 10), `{"a":` + strings.Repeat("[", maxPartialDepth+1), "{" + strings.Repeat(" ", maxPartial)} {
		if got, ok := closeJSON(in); ok {
			t.Errorf("closeJSON(%.40q) = %s, want no object", in, got)
		}
	}
}

// FuzzCloseJSON: whatever the model writes, a recovered value is a valid
// JSON object; and every prefix of a valid object is recovered.
func FuzzCloseJSON(f *testing.F) {
	for _, s := range []string{`{"city":"Lyon","points":12}`, `{"a":[1,{"b":true,"c":null}],"d":"\u00e9\"x"}`, `{"a":1e-5,"b":-0.5}`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > maxPartial {
			return
		}
		if out, ok := closeJSON(s); ok {
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("closeJSON(%q) = %s: %v", s, out, err)
			}
		}
		var whole map[string]any
		if json.Unmarshal([]byte(s), &whole) != nil || strings.Count(s, "[") > maxPartialDepth || strings.Count(s, "{") > maxPartialDepth {
			return
		}
		for i := 1; i <= len(s); i++ {
			if strings.TrimSpace(s[:i]) == "" {
				continue
			}
			if _, ok := closeJSON(s[:i]); !ok {
				t.Fatalf("closeJSON(%q), a prefix of the object %q, recovered nothing", s[:i], s)
			}
		}
	})
}
