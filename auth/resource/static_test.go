package resource

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestStaticVerifier(t *testing.T) {
	tokens, err := ParseStaticTokens("# comment\nalice:aaaaaaaaaaaaaaaa1 read write\n\nbob:bbbbbbbbbbbbbbbb2", []string{"call"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewStaticVerifier(tokens)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, err := v.Verify(ctx, "aaaaaaaaaaaaaaaa1")
	if err != nil || info.Principal() != "token#alice" || strings.Join(info.Scopes, " ") != "read write" {
		t.Errorf("alice: %+v %v", info, err)
	}
	info, err = v.Verify(ctx, "bbbbbbbbbbbbbbbb2")
	if err != nil || info.Principal() != "token#bob" || strings.Join(info.Scopes, " ") != "call" {
		t.Errorf("bob (default scopes): %+v %v", info, err)
	}
	for _, bad := range []string{"", "aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaa1 ", "bbbbbbbbbbbbbbbb2x"} {
		if _, err := v.Verify(ctx, bad); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%q: %v, want ErrInvalidToken", bad, err)
		}
	}
}

func TestStaticTokensRefused(t *testing.T) {
	const secret = "sEcReT-0123456789abcdef"
	for _, c := range []struct {
		text, want string
	}{
		{"", "no tokens"},
		{"noseparator", "want NAME:TOKEN"},
		{"a:short", "shorter than 16"},
		{"a:" + secret + ",a:" + secret + "x", "used twice"},
		{"a:" + secret + ",b:" + secret, "same token"},
		{"a:" + secret + "\"", "only letters"},
	} {
		tokens, err := ParseStaticTokens(c.text, nil)
		if err == nil {
			_, err = NewStaticVerifier(tokens)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%q: %v; want an error saying %q without the token", c.text, err, c.want)
		}
	}
}

// FuzzParseStaticTokens: the parser of a token file never panics, and what it
// accepts either makes a verifier that accepts each token or is refused.
func FuzzParseStaticTokens(f *testing.F) {
	f.Add("alice:aaaaaaaaaaaaaaaa1 read\nbob:bbbbbbbbbbbbbbbb2")
	f.Add("# x\n,,:\n a:b:c d")
	f.Fuzz(func(t *testing.T, text string) {
		tokens, err := ParseStaticTokens(text, nil)
		if err != nil {
			return
		}
		v, err := NewStaticVerifier(tokens)
		if err != nil {
			return
		}
		for _, tok := range tokens {
			if info, err := v.Verify(context.Background(), tok.Token); err != nil || info.Subject != tok.Name {
				t.Fatalf("%q: %+v %v", tok.Name, info, err)
			}
		}
	})
}
