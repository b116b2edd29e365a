package requeststate

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Keyring is a set of keys that seal and open request state. One key is
// current and seals; every key opens. It is safe for concurrent use: Seal and
// Open read an immutable snapshot without locking, and changes (Add, Rotate,
// Remove, SetClock) replace the snapshot.
//
// Replicas that must open each other's states build their keyrings from the
// same keys (for example with ParseKeyring on a shared secret).
//
// The zero Keyring holds no keys: Seal and Open fail until Rotate gives it one.
type Keyring struct {
	mu    sync.Mutex // serialises writers; readers use snap only
	state atomic.Pointer[snapshot]
}

// snapshot is one immutable version of the keyring.
type snapshot struct {
	current *entry   // nil only when keys is empty (zero Keyring)
	keys    []*entry // in the order they were added; small, so a scan beats a map
	now     func() time.Time
}

// entry is a key ready for use. The secret is kept only to detect an Add or
// Rotate that reuses an id with different material.
type entry struct {
	id     string
	secret []byte
	aead   cipher.AEAD
}

// NewKeyring returns a keyring holding keys, with the first one current.
// It copies the secrets, so the caller may wipe its own.
func NewKeyring(keys ...Key) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("requeststate: a keyring needs at least one key")
	}
	s := &snapshot{now: time.Now}
	for _, k := range keys {
		e, err := newEntry(k)
		if err != nil {
			return nil, err
		}
		if s.find(k.ID) != nil {
			return nil, fmt.Errorf("requeststate: duplicate key id %q", k.ID)
		}
		s.keys = append(s.keys, e)
	}
	s.current = s.keys[0]
	kr := &Keyring{}
	kr.state.Store(s)
	return kr, nil
}

// ParseKeyring is ParseKeys followed by NewKeyring: the first key in s is
// current.
func ParseKeyring(s string) (*Keyring, error) {
	keys, err := ParseKeys(s)
	if err != nil {
		return nil, err
	}
	return NewKeyring(keys...)
}

func newEntry(k Key) (*entry, error) {
	if err := k.validate(); err != nil {
		return nil, fmt.Errorf("requeststate: %w", err)
	}
	secret := append([]byte(nil), k.Secret...)
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, fmt.Errorf("requeststate: key %q: %w", k.ID, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("requeststate: key %q: %w", k.ID, err)
	}
	return &entry{id: k.ID, secret: secret, aead: aead}, nil
}

func (s *snapshot) find(id string) *entry {
	for _, e := range s.keys {
		if e.id == id {
			return e
		}
	}
	return nil
}

// findBytes is find for an id still inside a decoded token; the string
// conversion in the comparison does not allocate.
func (s *snapshot) findBytes(id []byte) *entry {
	for _, e := range s.keys {
		if e.id == string(id) {
			return e
		}
	}
	return nil
}

// update applies change to a copy of the current snapshot and publishes it.
func (kr *Keyring) update(change func(s *snapshot) error) error {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	s := &snapshot{now: time.Now}
	if old := kr.state.Load(); old != nil {
		s = &snapshot{current: old.current, keys: append([]*entry(nil), old.keys...), now: old.now}
	}
	if err := change(s); err != nil {
		return err
	}
	kr.state.Store(s)
	return nil
}

// addTo adds k to s, or returns the entry already holding the same id and
// secret. An id reused with a different secret is an error.
func addTo(s *snapshot, k Key) (*entry, error) {
	e, err := newEntry(k)
	if err != nil {
		return nil, err
	}
	if old := s.find(k.ID); old != nil {
		if subtle.ConstantTimeCompare(old.secret, e.secret) != 1 {
			return nil, fmt.Errorf("requeststate: key id %q already holds a different secret", k.ID)
		}
		return old, nil
	}
	s.keys = append(s.keys, e)
	return e, nil
}

// Add makes k available for opening without making it current. Rolling out a
// rotation across replicas starts here: once every replica has the new key,
// Rotate to it. Adding a key that is already present is a no-op.
func (kr *Keyring) Add(k Key) error {
	return kr.update(func(s *snapshot) error {
		if s.current == nil {
			return errors.New("requeststate: keyring has no current key; Rotate to set one")
		}
		_, err := addTo(s, k)
		return err
	})
}

// Rotate makes k the current key, adding it if needed. Older keys keep
// opening the states they sealed until they are removed.
func (kr *Keyring) Rotate(k Key) error {
	return kr.update(func(s *snapshot) error {
		e, err := addTo(s, k)
		if err != nil {
			return err
		}
		s.current = e
		return nil
	})
}

// Remove drops the key with the given id; states it sealed then fail with
// ErrUnknownKey. Removing an absent id is a no-op. The current key cannot be
// removed: Rotate away from it first.
func (kr *Keyring) Remove(id string) error {
	return kr.update(func(s *snapshot) error {
		if s.current != nil && s.current.id == id {
			return fmt.Errorf("requeststate: key %q is current; rotate before removing it", id)
		}
		for i, e := range s.keys {
			if e.id == id {
				s.keys = append(s.keys[:i], s.keys[i+1:]...)
				break
			}
		}
		return nil
	})
}

// SetClock replaces the time source used for expiry (time.Now when now is
// nil). Tests use it to move time without sleeping.
func (kr *Keyring) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	_ = kr.update(func(s *snapshot) error {
		s.now = now
		return nil
	})
}

// Current returns the id of the key that seals ("" for the zero Keyring).
func (kr *Keyring) Current() string {
	if s := kr.state.Load(); s != nil && s.current != nil {
		return s.current.id
	}
	return ""
}

// IDs returns the ids of all keys, in the order they were added.
func (kr *Keyring) IDs() []string {
	s := kr.state.Load()
	if s == nil {
		return nil
	}
	ids := make([]string, len(s.keys))
	for i, e := range s.keys {
		ids[i] = e.id
	}
	return ids
}

// String describes the keyring by key ids; it never includes secrets.
func (kr *Keyring) String() string {
	var b strings.Builder
	b.WriteString("requeststate.Keyring{current:" + kr.Current() + " keys:[")
	for i, id := range kr.IDs() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(id)
	}
	b.WriteString("]}")
	return b.String()
}
