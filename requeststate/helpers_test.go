package requeststate

import (
	"bytes"
	"testing"
	"time"
)

// testKey returns a deterministic key whose secret bytes are all fill.
func testKey(id string, fill byte) Key {
	return Key{ID: id, Secret: bytes.Repeat([]byte{fill}, SecretSize)}
}

func newTestKeyring(t testing.TB, keys ...Key) *Keyring {
	t.Helper()
	if len(keys) == 0 {
		keys = []Key{testKey("k1", 1)}
	}
	kr, err := NewKeyring(keys...)
	if err != nil {
		t.Fatalf("NewKeyring: %v", err)
	}
	return kr
}

func mustBinding(t testing.TB, method, name, args, principal string) Binding {
	t.Helper()
	var raw []byte
	if args != "" {
		raw = []byte(args)
	}
	b, err := NewBinding(method, name, raw, principal)
	if err != nil {
		t.Fatalf("NewBinding(%q): %v", args, err)
	}
	return b
}

func mustSeal(t testing.TB, kr *Keyring, b Binding, payload string, ttl time.Duration) string {
	t.Helper()
	state, err := kr.Seal(b, []byte(payload), ttl)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return state
}
