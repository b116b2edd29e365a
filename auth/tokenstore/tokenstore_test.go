package tokenstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"golang.org/x/oauth2"
)

func testStore(t *testing.T, s auth.TokenStore) {
	ctx := t.Context()
	k1 := auth.StoreKey{Issuer: "https://as.example", Resource: "https://mcp.example/mcp"}
	k2 := auth.StoreKey{Issuer: "https://as.example", Resource: "https://other.example/mcp"}
	if got, err := s.Load(ctx, k1); err != nil || got != nil {
		t.Fatalf("empty store: %v, %v", got, err)
	}
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	want := &auth.StoredToken{
		Token:  &oauth2.Token{AccessToken: "at-1", RefreshToken: "rt-1", TokenType: "Bearer", Expiry: exp},
		Client: auth.ClientInfo{Issuer: k1.Issuer, ClientID: "c1", ClientSecret: "s1"},
		Scopes: []string{"a", "b"},
	}
	if err := s.Save(ctx, k1, want); err != nil {
		t.Fatal(err)
	}
	want.Token.AccessToken = "mutated after saving"
	got, err := s.Load(ctx, k1)
	if err != nil || got == nil {
		t.Fatalf("Load: %v, %v", got, err)
	}
	if got.Token.AccessToken != "at-1" || got.Token.RefreshToken != "rt-1" || !got.Token.Expiry.Equal(exp) ||
		got.Client.ClientSecret != "s1" || strings.Join(got.Scopes, " ") != "a b" {
		t.Errorf("Load = %+v %+v", got.Token, got.Client)
	}
	if other, _ := s.Load(ctx, k2); other != nil {
		t.Errorf("another resource's key found %v", other)
	}
	if err := s.Delete(ctx, k1); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(ctx, k1); got != nil {
		t.Errorf("deleted token still loads")
	}
	if err := s.Delete(ctx, k1); err != nil {
		t.Errorf("deleting twice: %v", err)
	}
}

func TestMemory(t *testing.T) { testStore(t, &Memory{}) }

func TestFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	s := &File{Dir: dir}
	testStore(t, s)
	// Files are private to the user.
	k := auth.StoreKey{Issuer: "https://as", Resource: "https://rs"}
	if err := s.Save(t.Context(), k, &auth.StoredToken{Token: &oauth2.Token{AccessToken: "x"}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, s.path(k)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want 1 (no temporary files left)", len(entries))
	}
}

// Stored tokens never show their secrets when printed or logged.
func TestStoredTokenRedacted(t *testing.T) {
	st := &auth.StoredToken{Token: &oauth2.Token{AccessToken: "SECRET-AT", RefreshToken: "SECRET-RT", TokenType: "Bearer"},
		Client: auth.ClientInfo{ClientID: "c", ClientSecret: "SECRET-CS"}}
	for _, s := range []string{fmt.Sprint(st), fmt.Sprintf("%v %+v %#v %s", st, st, st, st), st.LogValue().String()} {
		if strings.Contains(s, "SECRET") {
			t.Errorf("printed form shows a secret: %s", s)
		}
	}
}
