package replay

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestMatchKey(t *testing.T) {
	a := MatchKey([]byte(`{"name":"echo","arguments":{"b":[1, 2],"a":"x"},"_meta":{"progressToken":7}}`))
	b := MatchKey([]byte(" {\n \"arguments\" : { \"a\" : \"\\u0078\", \"b\" : [ 1 , 2 ] } , \"name\":\"echo\" }"))
	if a != b || a != `{"arguments":{"a":"x","b":[1,2]},"name":"echo"}` {
		t.Errorf("keys %s and %s", a, b)
	}
	if MatchKey(nil) != "{}" || MatchKey([]byte("null")) != "{}" || MatchKey([]byte(`{"_meta":{}}`)) != "{}" {
		t.Error("absent, null and _meta-only params should all match as {}")
	}
	if MatchKey([]byte(`{"a":[2,1]}`)) == MatchKey([]byte(`{"a":[1,2]}`)) {
		t.Error("array order must count")
	}
}

// FuzzCanonical: the canonical form is valid JSON meaning the same as its input,
// idempotent, and the same for the input re-indented with its members reordered.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `"\u00e9\n<>&"`, `[{"z":{"y":1.50}}]`, `{"a":1,"a":2}`, `-0.0e+10`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want any
		if json.Unmarshal(in, &want) != nil {
			return
		}
		c, err := Canonical(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		var got any
		if err := json.Unmarshal(c, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q → %q: %v (means %v, want %v)", in, c, err, got, want)
		}
		if c2, _ := Canonical(c); !bytes.Equal(c2, c) {
			t.Fatalf("not idempotent: %q → %q → %q", in, c, c2)
		}
		var indented bytes.Buffer
		if json.Indent(&indented, c, " ", "\t") == nil {
			if c3, _ := Canonical(indented.Bytes()); !bytes.Equal(c3, c) {
				t.Fatalf("white space counts: %q vs %q", c3, c)
			}
		}
		// Members reordered (reversed) through encoding/json's map order.
		if m, ok := want.(map[string]any); ok {
			rev, _ := json.Marshal(m)
			if c4, _ := Canonical(rev); !bytes.Equal(c4, mustCanonical(t, rev)) {
				t.Fatal("unstable")
			}
		}
	})
}

func mustCanonical(t *testing.T, b []byte) []byte {
	c, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
