package requeststate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestNewKeyringRejectsBadKeys(t *testing.T) {
	cases := map[string][]Key{
		"none":         nil,
		"short secret": {{ID: "k1", Secret: make([]byte, 16)}},
		"empty id":     {{ID: "", Secret: make([]byte, SecretSize)}},
		"duplicate":    {testKey("k1", 1), testKey("k1", 2)},
	}
	for name, keys := range cases {
		t.Run(name, func(t *testing.T) {
			if kr, err := NewKeyring(keys...); err == nil {
				t.Fatalf("NewKeyring accepted %v: %v", keys, kr)
			}
		})
	}
}

func TestKeyringCopiesSecrets(t *testing.T) {
	k := testKey("k1", 1)
	kr := newTestKeyring(t, k)
	b := mustBinding(t, "tools/call", "t", "", "")
	state := mustSeal(t, kr, b, "p", 0)
	for i := range k.Secret {
		k.Secret[i] = 0 // caller wipes its copy
	}
	if _, err := kr.Open(b, state); err != nil {
		t.Fatalf("Open after the caller wiped its secret: %v", err)
	}
}

// Two replicas configured from the same string open each other's states.
func TestReplicasShareStates(t *testing.T) {
	k1, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	config := FormatKeys(k1, k2)
	replicaA, err := ParseKeyring(config)
	if err != nil {
		t.Fatal(err)
	}
	replicaB, err := ParseKeyring(config)
	if err != nil {
		t.Fatal(err)
	}
	if replicaA.Current() != k1.ID {
		t.Fatalf("current = %q, want the first key %q", replicaA.Current(), k1.ID)
	}
	b := mustBinding(t, "tools/call", "deploy", `{"env":"prod"}`, "alice")
	state := mustSeal(t, replicaA, b, "step-2", 0)
	got, err := replicaB.Open(b, state)
	if err != nil || string(got) != "step-2" {
		t.Fatalf("replica B Open = %q, %v; want step-2", got, err)
	}
}

func TestRotation(t *testing.T) {
	oldKey, newKey := testKey("old", 1), testKey("new", 2)
	kr := newTestKeyring(t, oldKey)
	b := mustBinding(t, "prompts/get", "greet", `{"who":"bob"}`, "")
	sealedOld := mustSeal(t, kr, b, "old-state", 0)

	if err := kr.Rotate(newKey); err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	if kr.Current() != "new" || !slices.Equal(kr.IDs(), []string{"old", "new"}) {
		t.Fatalf("after Rotate: current %q, ids %v", kr.Current(), kr.IDs())
	}
	if got, err := kr.Open(b, sealedOld); err != nil || string(got) != "old-state" {
		t.Fatalf("old key no longer opens: %q, %v", got, err)
	}
	sealedNew := mustSeal(t, kr, b, "new-state", 0)
	onlyNew := newTestKeyring(t, newKey)
	if got, err := onlyNew.Open(b, sealedNew); err != nil || string(got) != "new-state" {
		t.Fatalf("state sealed after rotation does not open with the new key alone: %q, %v", got, err)
	}
	if _, err := onlyNew.Open(b, sealedOld); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("keyring without the old key: err = %v, want ErrUnknownKey", err)
	}

	if err := kr.Remove("new"); err == nil {
		t.Fatal("Remove of the current key succeeded")
	}
	if err := kr.Remove("old"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if err := kr.Remove("old"); err != nil {
		t.Fatalf("second Remove of the same id: %v", err)
	}
	if _, err := kr.Open(b, sealedOld); !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrInvalidState) {
		t.Fatalf("after Remove: err = %v, want ErrUnknownKey", err)
	}
	if got, err := kr.Open(b, sealedNew); err != nil || string(got) != "new-state" {
		t.Fatalf("new key stopped opening after removing the old: %q, %v", got, err)
	}
}

// The multi-replica rollout: Add everywhere first, then Rotate.
func TestAddThenRotate(t *testing.T) {
	replicaA := newTestKeyring(t, testKey("k1", 1))
	replicaB := newTestKeyring(t, testKey("k1", 1))
	k2 := testKey("k2", 2)
	if err := replicaB.Add(k2); err != nil {
		t.Fatalf("Add: %v", err)
	}
	if replicaB.Current() != "k1" {
		t.Fatalf("Add changed the current key to %q", replicaB.Current())
	}
	if err := replicaA.Rotate(k2); err != nil {
		t.Fatal(err)
	}
	b := mustBinding(t, "tools/call", "t", "", "")
	if _, err := replicaB.Open(b, mustSeal(t, replicaA, b, "x", 0)); err != nil {
		t.Fatalf("replica with the added key cannot open: %v", err)
	}
	if err := replicaB.Add(k2); err != nil {
		t.Fatalf("re-adding the same key: %v", err)
	}
	if err := replicaB.Rotate(k2); err != nil || replicaB.Current() != "k2" {
		t.Fatalf("Rotate to an already-added key: %v, current %q", err, replicaB.Current())
	}
	if err := replicaB.Add(testKey("k2", 9)); err == nil {
		t.Fatal("Add accepted a known id with a different secret")
	}
	if err := replicaB.Rotate(testKey("k1", 9)); err == nil || replicaB.Current() != "k2" {
		t.Fatalf("Rotate accepted a known id with a different secret: %v, current %q", err, replicaB.Current())
	}
	if err := replicaB.Add(Key{ID: "bad id", Secret: make([]byte, SecretSize)}); err == nil {
		t.Fatal("Add accepted an invalid id")
	}
}

func TestKeyringStringHasNoSecrets(t *testing.T) {
	kr := newTestKeyring(t, testKey("a", 0xAB), testKey("b", 0xCD))
	for _, out := range []string{kr.String(), fmt.Sprint(kr), fmt.Sprintf("%+v", kr)} {
		if !strings.Contains(out, "current:a") || !strings.Contains(out, "keys:[a b]") {
			t.Errorf("String() = %q, want ids", out)
		}
		if strings.Contains(strings.ToLower(out), "abab") || strings.Contains(strings.ToLower(out), "cdcd") {
			t.Errorf("String() = %q leaks a secret", out)
		}
	}
}

// Seal and Open from many goroutines while keys rotate; run under -race.
func TestConcurrentUseDuringRotation(t *testing.T) {
	kr := newTestKeyring(t, testKey("k0", 0))
	b := mustBinding(t, "tools/call", "t", `{"n":1}`, "p")
	const workers, rounds, rotations = 8, 200, 50

	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				payload := fmt.Sprintf("w%d-%d", w, i)
				state, err := kr.Seal(b, []byte(payload), 0)
				if err != nil {
					errs <- fmt.Errorf("Seal: %w", err)
					return
				}
				got, err := kr.Open(b, state)
				switch {
				case errors.Is(err, ErrUnknownKey):
					// the rotator removed the sealing key in between: allowed
				case err != nil:
					errs <- fmt.Errorf("Open: %w", err)
					return
				case string(got) != payload:
					errs <- fmt.Errorf("Open = %q, want %q", got, payload)
					return
				}
			}
		}()
	}
	for r := 1; r <= rotations; r++ {
		if err := kr.Rotate(testKey(fmt.Sprintf("k%d", r), byte(r))); err != nil {
			t.Fatalf("Rotate: %v", err)
		}
		if r >= 3 {
			if err := kr.Remove(fmt.Sprintf("k%d", r-3)); err != nil {
				t.Fatalf("Remove: %v", err)
			}
		}
		_ = kr.IDs()
		_ = kr.String()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := kr.IDs(); !slices.Equal(got, []string{"k48", "k49", "k50"}) {
		t.Fatalf("ids after rotations = %v", got)
	}
}

func TestZeroKeyring(t *testing.T) {
	var kr Keyring
	b := mustBinding(t, "tools/call", "t", "", "")
	if _, err := kr.Seal(b, nil, 0); err == nil {
		t.Fatal("zero Keyring sealed")
	}
	state := mustSeal(t, newTestKeyring(t), b, "p", 0)
	if _, err := kr.Open(b, state); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("zero Keyring Open: err = %v, want ErrUnknownKey", err)
	}
	if kr.Current() != "" || kr.IDs() != nil || kr.String() != "requeststate.Keyring{current: keys:[]}" {
		t.Fatalf("zero Keyring describes itself as %v", &kr)
	}
	if err := kr.Add(testKey("k1", 1)); err == nil {
		t.Fatal("Add on a keyring without a current key succeeded")
	}
	if err := kr.Remove("k1"); err != nil {
		t.Fatalf("Remove on the zero Keyring: %v", err)
	}
	kr.SetClock(nil)
	if err := kr.Rotate(testKey("k1", 1)); err != nil {
		t.Fatalf("Rotate on the zero Keyring: %v", err)
	}
	if got, err := kr.Open(b, state); err != nil || string(got) != "p" {
		t.Fatalf("after Rotate: Open = %q, %v", got, err)
	}
}
