package requeststate

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, `{}`},
		{` null `, `{}`},
		{`{}`, `{}`},
		{` { } `, `{}`},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"{\n  \"b\" : [ 1 , 2 ],\t\"a\" : { \"y\":true, \"x\":null }\r\n}", `{"a":{"x":null,"y":true},"b":[1,2]}`},
		{`{"n":1.50,"m":-0,"e":1E+2}`, `{"e":1E+2,"m":-0,"n":1.50}`}, // numbers kept as written
		{`{"s":"\u0041\/\n\"\\\u00e9<>&"}`, `{"s":"A/\u000a\"\\é<>&"}`},
		{`{"é":1,"z":2,"B":3,"a":4}`, `{"a":4,"B":3,"z":2,"é":1}`},                  // case-insensitive order
		{`{"b":1,"a":2,"A":3,"K":4,"\u212a":5}`, `{"a":2,"A":3,"b":1,"K":4,"K":5}`}, // fold-equal keys keep their order
		{`[3,1,2]`, `[3,1,2]`}, // arrays keep their order
		{`"text"`, `"text"`},
		{`{"a":[{"d":1,"c":2},[]]}`, `{"a":[{"c":2,"d":1},[]]}`},
	}
	for _, c := range cases {
		got, err := canonicalJSON([]byte(c.in))
		if err != nil {
			t.Errorf("canonicalJSON(%q): %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("canonicalJSON(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestDigestArgumentsEquivalence(t *testing.T) {
	same := [][]string{
		{`{"a":1,"b":{"c":"x","d":[1,2]}}`, `{ "b" : { "d" : [1, 2], "c":"\u0078" }, "a" : 1 }`},
		{``, `null`, `{}`, " {\n} "},
	}
	for _, group := range same {
		first, err := DigestArguments([]byte(group[0]))
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range group[1:] {
			d, err := DigestArguments([]byte(other))
			if err != nil || d != first {
				t.Errorf("DigestArguments(%q) differs from %q (err %v)", other, group[0], err)
			}
		}
	}
	different := []string{`{"a":1}`, `{"a":"1"}`, `{"a":1.0}`, `{"a":[1]}`, `{"a":1,"b":null}`, `{"A":1}`, `[{"a":1}]`, `{"a":true}`}
	seen := map[[32]byte]string{}
	for _, in := range different {
		d, err := DigestArguments([]byte(in))
		if err != nil {
			t.Fatalf("DigestArguments(%q): %v", in, err)
		}
		if prev, ok := seen[d]; ok {
			t.Errorf("%q and %q share a digest", in, prev)
		}
		seen[d] = in
	}
}

func TestCanonicalJSONRejectsInvalid(t *testing.T) {
	for _, in := range []string{
		`{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `{a:1}`, `{"a":1}{"b":2}`, `{"a":1} x`,
		`{"a":1,"a":2}`, `{"x":{"a":1,"a":1}}`, `nul`, `01`, `1.`, `"\x"`, "\"a\x01\"", `'a'`,
		strings.Repeat("[", maxArgumentsDepth+1) + strings.Repeat("]", maxArgumentsDepth+1),
	} {
		if got, err := canonicalJSON([]byte(in)); !errors.Is(err, ErrInvalidArguments) {
			t.Errorf("canonicalJSON(%.40q) = %s, %v; want ErrInvalidArguments", in, got, err)
		}
		if _, err := NewBinding("tools/call", "t", []byte(in), ""); !errors.Is(err, ErrInvalidArguments) {
			t.Errorf("NewBinding(%.40q) err = %v; want ErrInvalidArguments", in, err)
		}
	}
	deep := strings.Repeat("[", maxArgumentsDepth) + strings.Repeat("]", maxArgumentsDepth)
	if _, err := canonicalJSON([]byte(deep)); err != nil {
		t.Errorf("nesting at the limit refused: %v", err)
	}
}

// Surrogate escapes decode as encoding/json decodes them, so different
// strings keep different digests.
func TestCanonicalJSONSurrogates(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\ud83d"`, `"` + "\uFFFD" + `"`},
		{`"\ude00"`, `"` + "\uFFFD" + `"`},
		{`"\ude00\ude00"`, `"` + "\uFFFD\uFFFD" + `"`},
		{`"\ud83d\u0041"`, `"` + "\uFFFD" + `A"`},
		{`"\ud83d\ud83d\ude00"`, `"` + "\uFFFD" + `😀"`},
		{`"\ud83dx"`, `"` + "\uFFFD" + `x"`},
	}
	for _, c := range cases {
		got, err := canonicalJSON([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("canonicalJSON(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// encoding/json matches struct fields case-insensitively and the last match
// wins, so reordering keys that differ only in case changes what a handler
// decodes: those orders must give different digests, other orders not.
func TestDigestArgumentsCaseFoldedKeys(t *testing.T) {
	first := []byte(`{"amount":1,"memo":"x","Amount":1000}`)
	swapped := []byte(`{"Amount":1000,"memo":"x","amount":1}`)
	var a, b struct{ Amount int }
	if err := json.Unmarshal(first, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(swapped, &b); err != nil {
		t.Fatal(err)
	}
	if a.Amount == b.Amount {
		t.Fatalf("premise: encoding/json decoded both as %d", a.Amount)
	}
	da, _ := DigestArguments(first)
	db, _ := DigestArguments(swapped)
	if da == db {
		t.Fatal("reordering case-variant keys kept the digest")
	}
	moved, _ := DigestArguments([]byte(`{"memo":"x","amount":1,"Amount":1000}`))
	if moved != da {
		t.Fatal("moving an unrelated key changed the digest")
	}
	// Exact repeats are refused even when separated by a case variant.
	if _, err := DigestArguments([]byte(`{"a":1,"A":2,"a":3}`)); !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("repeated key around a case variant: err = %v", err)
	}
}
