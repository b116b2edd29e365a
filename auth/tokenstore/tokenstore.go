// Package tokenstore keeps OAuth tokens for auth.Transport: in memory (Memory)
// or in files under the user's configuration directory (File), one file per
// authorization server and resource, readable by the user only.
package tokenstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/internal/safefile"
)

// Memory is a TokenStore in memory. The zero value is ready to use.
type Memory struct {
	mu sync.Mutex
	m  map[auth.StoreKey]auth.StoredToken
}

// Load returns a copy of the token stored for key, or nil.
func (s *Memory) Load(_ context.Context, key auth.StoreKey) (*auth.StoredToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[key]
	if !ok {
		return nil, nil
	}
	return clone(&t), nil
}

// Save stores a copy of tok for key.
func (s *Memory) Save(_ context.Context, key auth.StoreKey, tok *auth.StoredToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[auth.StoreKey]auth.StoredToken{}
	}
	s.m[key] = *clone(tok)
	return nil
}

// Delete forgets the token stored for key.
func (s *Memory) Delete(_ context.Context, key auth.StoreKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

func clone(t *auth.StoredToken) *auth.StoredToken {
	c := *t
	if t.Token != nil {
		tok := *t.Token
		c.Token = &tok
	}
	c.Scopes = append([]string(nil), t.Scopes...)
	return &c
}

// File is a TokenStore that keeps each token in its own JSON file in Dir, named
// by a hash of the issuer and the resource, written with mode 0600 in a
// directory of mode 0700.
type File struct {
	// Dir is the directory; see DefaultDir.
	Dir string

	mu sync.Mutex
}

// DefaultDir is mcpkit's token directory in the user's configuration directory
// (for example ~/.config/mcpkit/tokens on Linux).
func DefaultDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("tokenstore: %w", err)
	}
	return filepath.Join(d, "mcpkit", "tokens"), nil
}

// fileEntry is a stored file: the key (for listing) and the token.
type fileEntry struct {
	Key    auth.StoreKey   `json:"key"`
	Token  *oauth2.Token   `json:"token"`
	Client auth.ClientInfo `json:"client"`
	Scopes []string        `json:"scopes,omitempty"`
}

func (s *File) path(key auth.StoreKey) string {
	sum := sha256.Sum256([]byte(key.Issuer + "\x00" + key.Resource))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+".json")
}

// Load reads the token stored for key, or returns nil.
func (s *File) Load(_ context.Context, key auth.StoreKey) (*auth.StoredToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tokenstore: %w", err)
	}
	var e fileEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("tokenstore: %s: %w", s.path(key), err)
	}
	if e.Key != key { // a hash collision, or a file copied from elsewhere
		return nil, nil
	}
	return &auth.StoredToken{Token: e.Token, Client: e.Client, Scopes: e.Scopes}, nil
}

// Save writes tok for key, replacing the file atomically.
func (s *File) Save(_ context.Context, key auth.StoreKey, tok *auth.StoredToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("tokenstore: %w", err)
	}
	data, err := json.Marshal(fileEntry{Key: key, Token: tok.Token, Client: tok.Client, Scopes: tok.Scopes})
	if err != nil {
		return fmt.Errorf("tokenstore: %w", err)
	}
	// A fresh file renamed over the token's: a symlink planted there is
	// replaced, never written through.
	if err := safefile.WriteOwn(s.path(key), data, 0o600); err != nil {
		return fmt.Errorf("tokenstore: %w", err)
	}
	return nil
}

// Delete removes the token stored for key.
func (s *File) Delete(_ context.Context, key auth.StoreKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tokenstore: %w", err)
	}
	return nil
}
