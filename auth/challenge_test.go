package auth

import (
	"reflect"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		in   []string
		want []Challenge
	}{
		{[]string{`Bearer error="invalid_token", error_description="Missing Authorization header", scope="mcp:basic", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp"`},
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"error": "invalid_token", "error_description": "Missing Authorization header", "scope": "mcp:basic", "resource_metadata": "http://localhost:1/.well-known/oauth-protected-resource/mcp"}}}},
		{[]string{`Bearer`}, []Challenge{{Scheme: "Bearer", Params: map[string]string{}}}},
		{[]string{`DPoP algs="ES256 PS256", error=use_dpop_nonce`},
			[]Challenge{{Scheme: "DPoP", Params: map[string]string{"algs": "ES256 PS256", "error": "use_dpop_nonce"}}}},
		// Several challenges in one value, and a second value.
		{[]string{`Basic realm="a b", Bearer realm=x,scope="s t"`, `DPoP resource_metadata="u"`},
			[]Challenge{
				{Scheme: "Basic", Params: map[string]string{"realm": "a b"}},
				{Scheme: "Bearer", Params: map[string]string{"realm": "x", "scope": "s t"}},
				{Scheme: "DPoP", Params: map[string]string{"resource_metadata": "u"}},
			}},
		// token68, then another challenge.
		{[]string{`Negotiate abc+/==, Bearer scope=a`},
			[]Challenge{{Scheme: "Negotiate", Token68: "abc+/==", Params: map[string]string{}}, {Scheme: "Bearer", Params: map[string]string{"scope": "a"}}}},
		// Escapes, case-insensitive names, spaces around '=', the first of two values.
		{[]string{`bearer Error = "a\"b\\c", ERROR="second"`},
			[]Challenge{{Scheme: "bearer", Params: map[string]string{"error": `a"b\c`}}}},
		// An unterminated quoted string ends the value; what came before stays.
		{[]string{`Bearer scope="a", error="oops`}, []Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "a"}}}},
		{[]string{``, `  ,, `}, nil},
	}
	for _, tt := range tests {
		got := ParseChallenges(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseChallenges(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
	}
	c, ok := challengeFor(ParseChallenges([]string{`Basic realm=x, DPoP error="use_dpop_nonce"`}), "bearer", "dpop")
	if !ok || !c.Is("DPoP") || c.Param("ERROR") != "use_dpop_nonce" {
		t.Errorf("challengeFor = %+v, %v", c, ok)
	}
}

func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer error="invalid_token", scope="a b", resource_metadata="http://x/y"`,
		`Negotiate abc==, Bearer realm=x`, `DPoP algs="ES256", error=use_dpop_nonce`,
		`Bearer a="\"", b=c,, ,Basic`, `x y=`, `=`, `"`, `Bearer a="b\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		cs := ParseChallenges([]string{v})
		for _, c := range cs {
			if c.Scheme == "" {
				t.Fatalf("empty scheme in %+v", cs)
			}
			for name := range c.Params {
				if name == "" {
					t.Fatalf("empty parameter name in %+v", c)
				}
				for i := 0; i < len(name); i++ {
					if !isTchar(name[i]) || ('A' <= name[i] && name[i] <= 'Z') {
						t.Fatalf("parameter name %q is not a lower-case token", name)
					}
				}
			}
		}
		if len(cs) > len(v) {
			t.Fatalf("%d challenges from %d bytes", len(cs), len(v))
		}
	})
}
