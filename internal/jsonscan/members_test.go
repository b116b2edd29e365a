package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestEachMember(t *testing.T) {
	type member struct {
		key, value string
		escaped    bool
	}
	collect := func(data string) ([]member, bool) {
		var got []member
		ok := EachMember([]byte(data), func(key []byte, escaped bool, value []byte) bool {
			got = append(got, member{string(key), string(value), escaped})
			return true
		})
		return got, ok
	}
	got, ok := collect(` { "a" : 1 , "b\n":{"c":[true,null]},"a":"x" } `)
	want := []member{{"a", "1", false}, {`b\n`, `{"c":[true,null]}`, true}, {"a", `"x"`, false}}
	if !ok || len(got) != len(want) {
		t.Fatalf("got %+v, %v", got, ok)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got, ok := collect(`{}`); !ok || len(got) != 0 {
		t.Errorf("empty object: %+v, %v", got, ok)
	}
	for _, bad := range []string{``, `[]`, `{"a"}`, `{"a":1,}`, `{"a":1} x`, `{a:1}`, `{"a":1 "b":2}`, `{"a":tru}`, `{"a":1`} {
		if _, ok := collect(bad); ok {
			t.Errorf("%q was accepted", bad)
		}
	}
	calls := 0
	if EachMember([]byte(`{"a":1,"b":2}`), func([]byte, bool, []byte) bool { calls++; return false }) || calls != 1 {
		t.Errorf("a callback returning false: walk went on (%d calls)", calls)
	}
}

func TestMembersLeavesTheScannerAfterTheObject(t *testing.T) {
	s := Scanner{Data: []byte(`{"a":{"b":1}} rest`)}
	if err := s.Members(0, func([]byte, bool, []byte) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if rest := string(s.Data[s.Pos:]); rest != " rest" {
		t.Fatalf("left at %q", rest)
	}
	s = Scanner{Data: []byte(`{"a":1}`)}
	if err := s.Members(0, func([]byte, bool, []byte) bool { return false }); err != ErrStopped {
		t.Fatalf("got %v, want ErrStopped", err)
	}
	deep := `{"a":` + strings.Repeat("[", 3) + strings.Repeat("]", 3) + `}`
	s = Scanner{Data: []byte(deep)}
	if err := s.Members(MaxDepth-2, func([]byte, bool, []byte) bool { return true }); err != ErrDepth {
		t.Fatalf("nesting past MaxDepth: got %v, want ErrDepth", err)
	}
}

func TestIsASCII(t *testing.T) {
	if !IsASCII([]byte("plain key")) || IsASCII([]byte("clé")) {
		t.Fatal("IsASCII")
	}
}

func TestEscapesASCII(t *testing.T) {
	for in, want := range map[string]bool{
		``:                         false,
		`{"resultType":"x"}`:       false,
		`{"text":"caf\u00e9"}`:     false,
		`{"text":"\u00E9\u0100"}`:  false,
		`{"result\u0054ype":"x"}`:  true,
		`{"text":"\u0000"}`:        true,
		`{"text":"\u007F"}`:        true,
		`{"text":"\u00e9\u0041"}`:  true,
		`{"text":"\\u0041"}`:       true, // an escaped backslash: a false positive, allowed
		`{"text":"\u00"}`:          false,
		`{"text":"\u0080 \u00ff"}`: false,
		`{"io.modelcontextprotocol\/serverInfo":{}}`: true, // \/ hides a solidus
		`{"text":"a\"b\\c\n"}`:                       false,
	} {
		if got := EscapesASCII([]byte(in)); got != want {
			t.Errorf("EscapesASCII(%s) = %v, want %v", in, got, want)
		}
	}
}

// FuzzEscapesASCII checks the promise EscapesASCII makes to the raw-byte searches
// of mcp and gateway: when it says no, every key and string of the JSON text that
// is a plain name (letters, digits, _ . / : -) appears in the raw bytes quoted as
// it is.
func FuzzEscapesASCII(f *testing.F) {
	for _, s := range []string{
		`{"resultType":"x"}`, `{"result\u0054ype":"x"}`, `{"io.modelcontextprotocol\/serverInfo":{}}`,
		`{"content":[{"type":"resource_link","uri":"a:/b"}]}`, `["caf\u00e9","\\u0041"]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil || EscapesASCII(b) {
			return
		}
		var walk func(any)
		check := func(s string) {
			if isPlainName(s) && !bytes.Contains(b, []byte(`"`+s+`"`)) {
				t.Fatalf("EscapesASCII(%s) = false, but the name %q is not in the raw bytes", b, s)
			}
		}
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, e := range v {
					check(k)
					walk(e)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			case string:
				check(v)
			}
		}
		walk(v)
	})
}

// isPlainName reports whether s is non-empty and made of the characters of the
// names the raw searches look for.
func isPlainName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:-", r)) {
			return false
		}
	}
	return s != ""
}
