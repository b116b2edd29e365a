package requeststate

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Token layout (before URL-safe base64 without padding):
//
//	version (1) | key id length (1) | key id | nonce (12) | ciphertext | tag (16)
//
// The header (version, id length, id) is the AEAD additional data. The
// plaintext is
//
//	expiry, Unix milliseconds, big-endian (8) | binding digest (32) | payload
//
// so expiry and binding are both confidential and authenticated.
const (
	tokenVersion = 1
	nonceSize    = 12
	tagSize      = 16
	expirySize   = 8
	plainHeader  = expirySize + sha256.Size
)

// MaxPayload is the largest payload Seal accepts.
const MaxPayload = 64 << 10

// DefaultTTL is the lifetime Seal gives a state when ttl is zero. The spec
// asks for a short expiry: long enough for a user to answer an elicitation.
const DefaultTTL = 10 * time.Minute

// MaxStateLen is the longest state string Open will decode: a MaxPayload
// payload under the longest key id. Longer input is refused before decoding.
const MaxStateLen = (maxRawLen*4 + 2) / 3

const maxRawLen = 2 + MaxKeyIDLen + nonceSize + plainHeader + MaxPayload + tagSize

// encoding is strict so that each token has exactly one spelling: a lenient
// decoder ignores the unused low bits of the last character, which would let
// a modified string decode to the same bytes. (Line breaks, which even the
// strict decoder skips, are refused before decoding.)
var encoding = base64.RawURLEncoding.Strict()

// Seal encrypts payload under the current key, bound to b and valid for ttl
// (DefaultTTL when ttl is zero), and returns the URL-safe text to put in
// InputRequiredResult.requestState. Seal does not keep payload.
func (kr *Keyring) Seal(b Binding, payload []byte, ttl time.Duration) (string, error) {
	return kr.seal(b, payload, ttl, rand.Reader)
}

// seal is Seal with the nonce drawn from random, so tests can build a
// reproducible token.
func (kr *Keyring) seal(b Binding, payload []byte, ttl time.Duration, random io.Reader) (string, error) {
	if len(payload) > MaxPayload {
		return "", fmt.Errorf("%w: %d bytes, limit %d", ErrPayloadTooLarge, len(payload), MaxPayload)
	}
	if ttl < 0 {
		return "", fmt.Errorf("requeststate: negative ttl %v", ttl)
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	s := kr.state.Load()
	if s == nil || s.current == nil {
		return "", errors.New("requeststate: keyring has no keys")
	}
	key := s.current
	expiry := s.now().Add(ttl).UnixMilli()

	headerLen := 2 + len(key.id)
	plainStart := headerLen + nonceSize
	raw := make([]byte, plainStart+plainHeader+len(payload)+tagSize)
	raw[0] = tokenVersion
	raw[1] = byte(len(key.id))
	copy(raw[2:], key.id)
	nonce := raw[headerLen:plainStart]
	if _, err := io.ReadFull(random, nonce); err != nil {
		return "", fmt.Errorf("requeststate: nonce: %w", err)
	}
	plain := raw[plainStart : plainStart+plainHeader+len(payload)]
	binary.BigEndian.PutUint64(plain, uint64(expiry))
	digest := b.digest()
	copy(plain[expirySize:], digest[:])
	copy(plain[plainHeader:], payload)
	key.aead.Seal(plain[:0], nonce, plain, raw[:headerLen]) // in place
	return encoding.EncodeToString(raw), nil
}

// Open verifies state against b and returns the payload it was sealed with.
// Every error matches ErrInvalidState and one of ErrMalformed, ErrUnknownKey,
// ErrTampered, ErrMismatch or ErrExpired. The checks run in that order: the
// binding and expiry are read only from a state that authenticated.
func (kr *Keyring) Open(b Binding, state string) ([]byte, error) {
	payload, _, err := kr.open(b, state)
	return payload, err
}

// OpenExpiry is Open that also returns the expiry sealed in the state (the
// moment it stops opening, by the keyring's clock). A server that records
// accepted states to refuse a second use (mcp.ServerOptions.StateUse) keeps
// each record exactly that long.
func (kr *Keyring) OpenExpiry(b Binding, state string) ([]byte, time.Time, error) {
	payload, exp, err := kr.open(b, state)
	if err != nil {
		return nil, time.Time{}, err
	}
	return payload, time.UnixMilli(exp), nil
}

// open does the work of Open and OpenExpiry; the expiry is in Unix milliseconds.
func (kr *Keyring) open(b Binding, state string) ([]byte, int64, error) {
	if len(state) == 0 {
		return nil, 0, fmt.Errorf("%w: empty", ErrMalformed)
	}
	if len(state) > MaxStateLen {
		return nil, 0, fmt.Errorf("%w: longer than %d characters", ErrMalformed, MaxStateLen)
	}
	// The base64 decoder skips CR and LF, which would give one token many
	// spellings; refuse them.
	if strings.ContainsAny(state, "\r\n") {
		return nil, 0, fmt.Errorf("%w: line break", ErrMalformed)
	}
	raw := make([]byte, encoding.DecodedLen(len(state)))
	n, err := encoding.Decode(raw, []byte(state))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: not URL-safe base64", ErrMalformed)
	}
	raw = raw[:n]
	if len(raw) < 2 || raw[0] != tokenVersion {
		return nil, 0, fmt.Errorf("%w: unknown version", ErrMalformed)
	}
	headerLen := 2 + int(raw[1])
	if raw[1] == 0 || len(raw) < headerLen+nonceSize+plainHeader+tagSize {
		return nil, 0, fmt.Errorf("%w: too short", ErrMalformed)
	}
	s := kr.state.Load()
	if s == nil {
		return nil, 0, fmt.Errorf("%w: keyring has no keys", ErrUnknownKey)
	}
	key := s.findBytes(raw[2:headerLen])
	if key == nil {
		return nil, 0, ErrUnknownKey
	}
	nonce := raw[headerLen : headerLen+nonceSize]
	sealed := raw[headerLen+nonceSize:]
	plain, err := key.aead.Open(sealed[:0], nonce, sealed, raw[:headerLen]) // in place
	if err != nil {
		return nil, 0, ErrTampered
	}
	want := b.digest()
	if subtle.ConstantTimeCompare(plain[expirySize:plainHeader], want[:]) != 1 {
		return nil, 0, ErrMismatch
	}
	expiry := int64(binary.BigEndian.Uint64(plain))
	if s.now().UnixMilli() >= expiry {
		return nil, 0, ErrExpired
	}
	return plain[plainHeader:len(plain):len(plain)], expiry, nil
}
