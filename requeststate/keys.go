package requeststate

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// SecretSize is the length of a key secret in bytes (AES-256).
const SecretSize = 32

// MaxKeyIDLen is the longest key id accepted.
const MaxKeyIDLen = 32

// Key is a named AES-256 key. ID travels in clear inside every state sealed
// with the key so the opening replica can pick the right key; Secret must stay
// secret. Formatting a Key with fmt or slog never prints the secret.
type Key struct {
	// ID names the key: 1 to MaxKeyIDLen characters from [A-Za-z0-9._-].
	ID string
	// Secret is the key material: exactly SecretSize random bytes.
	Secret []byte
}

// GenerateKey returns a new key with a random secret and a random id of the
// form "k" followed by 12 hex digits.
func GenerateKey() (Key, error) {
	var raw [6 + SecretSize]byte
	if _, err := io.ReadFull(rand.Reader, raw[:]); err != nil {
		return Key{}, fmt.Errorf("requeststate: generate key: %w", err)
	}
	secret := make([]byte, SecretSize)
	copy(secret, raw[6:])
	return Key{ID: "k" + hex.EncodeToString(raw[:6]), Secret: secret}, nil
}

// String describes the key without its secret.
func (k Key) String() string { return "Key{ID:" + k.ID + " Secret:[redacted]}" }

// GoString describes the key without its secret, for %#v.
func (k Key) GoString() string {
	return fmt.Sprintf("requeststate.Key{ID:%q, Secret:[redacted]}", k.ID)
}

// Format prints the redacted description for every verb, so that %v, %+v,
// %s, %q, %x and %#v cannot leak the secret.
func (k Key) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, k.GoString())
		return
	}
	_, _ = io.WriteString(f, k.String())
}

// LogValue makes slog log the key id only.
func (k Key) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", k.ID), slog.String("secret", "[redacted]"))
}

// MarshalText refuses to serialise a key, so encoding/json and friends
// cannot write a secret by accident. Use FormatKeys to export keys on purpose.
func (k Key) MarshalText() ([]byte, error) {
	return nil, errors.New("requeststate: refusing to marshal a Key; use FormatKeys")
}

// validate checks the id and secret. Its messages never contain the secret
// and carry no package prefix; callers add one.
func (k Key) validate() error {
	if err := validateKeyID(k.ID); err != nil {
		return err
	}
	if len(k.Secret) != SecretSize {
		return fmt.Errorf("key %q: secret is %d bytes, want %d", k.ID, len(k.Secret), SecretSize)
	}
	return nil
}

func validateKeyID(id string) error {
	if id == "" || len(id) > MaxKeyIDLen {
		return fmt.Errorf("key id must be 1 to %d characters", MaxKeyIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return fmt.Errorf("key id %q: only letters, digits, '.', '_' and '-' are allowed", id)
		}
	}
	return nil
}

// ParseKeys reads keys from the form "id1:secret1,id2:secret2", where each
// secret is base64 of SecretSize bytes (standard or URL-safe alphabet, padding
// optional). Spaces around entries are ignored. The first key is meant to be
// the current one (NewKeyring makes it so). Errors name the entry and id but
// never include secret material.
func ParseKeys(s string) ([]Key, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("requeststate: no keys given")
	}
	entries := strings.Split(s, ",")
	keys := make([]Key, 0, len(entries))
	for i, entry := range entries {
		entry = strings.TrimSpace(entry)
		id, secret, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("requeststate: key entry %d: want id:base64secret", i+1)
		}
		id = strings.TrimSpace(id)
		raw, err := decodeSecret(strings.TrimSpace(secret))
		if err != nil {
			return nil, fmt.Errorf("requeststate: key entry %d (%q): secret is not valid base64", i+1, id)
		}
		k := Key{ID: id, Secret: raw}
		if err := k.validate(); err != nil {
			return nil, fmt.Errorf("requeststate: key entry %d: %w", i+1, err)
		}
		for _, prev := range keys {
			if prev.ID == id {
				return nil, fmt.Errorf("requeststate: key entry %d: duplicate key id %q", i+1, id)
			}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// decodeSecret accepts standard or URL-safe base64, with or without padding.
// Its error deliberately carries no detail (a position would hint at content).
func decodeSecret(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	raw, err := base64.RawStdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errors.New("invalid base64")
	}
	return raw, nil
}

// FormatKeys writes keys in the form ParseKeys reads, secrets included
// (standard base64 with padding). The result is secret: store it like a
// password, never log it.
func FormatKeys(keys ...Key) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k.ID)
		b.WriteByte(':')
		b.WriteString(base64.StdEncoding.EncodeToString(k.Secret))
	}
	return b.String()
}
