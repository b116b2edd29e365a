package resource

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// keySet is a cached JSON Web Key Set fetched from a jwks_uri. An unknown key id
// triggers a refetch (at most once per minRefetch), so that a rotated-in key is
// picked up; the set is also refetched when older than maxAge.
type keySet struct {
	url        string
	client     *http.Client
	minRefetch time.Duration
	maxAge     time.Duration
	onChange   func() // called after a refetch changed the set

	mu      sync.Mutex // held during fetches, so that one fetch serves all waiters
	keys    map[string]any
	fetched time.Time
	tried   time.Time
}

// key returns the public key with kid ("" takes the only key of the set).
func (s *keySet) key(ctx context.Context, kid string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.keys == nil || now.Sub(s.fetched) > s.maxAge {
		if err := s.refetch(ctx, now); err != nil && s.keys == nil {
			return nil, err
		}
	}
	if k, ok := s.lookup(kid); ok {
		return k, nil
	}
	if now.Sub(s.tried) < s.minRefetch {
		return nil, fmt.Errorf("unknown signing key %q", kid)
	}
	if err := s.refetch(ctx, now); err != nil {
		return nil, err
	}
	if k, ok := s.lookup(kid); ok {
		return k, nil
	}
	return nil, fmt.Errorf("unknown signing key %q", kid)
}

func (s *keySet) lookup(kid string) (any, bool) {
	if kid == "" && len(s.keys) == 1 {
		for _, k := range s.keys {
			return k, true
		}
	}
	k, ok := s.keys[kid]
	return k, ok
}

// refetch loads the set; s.mu is held.
func (s *keySet) refetch(ctx context.Context, now time.Time) error {
	s.tried = now
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return fmt.Errorf("JWKS: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("JWKS: %s answered %d", s.url, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("JWKS: %w", err)
	}
	keys, err := parseKeySet(data)
	if err != nil {
		return err
	}
	changed := len(keys) != len(s.keys)
	for kid := range keys {
		if _, ok := s.keys[kid]; !ok {
			changed = true
		}
	}
	s.keys, s.fetched = keys, now
	if changed && s.onChange != nil {
		s.onChange()
	}
	return nil
}

// parseKeySet decodes a JWKS and keeps its public signature keys by key id
// (asymmetric keys only: a symmetric key in a set published on the web would let
// anyone sign).
func parseKeySet(data []byte) (map[string]any, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	keys := make(map[string]any, len(set.Keys))
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		switch pub := k.Key.(type) {
		case *ecdsa.PublicKey, *rsa.PublicKey, ed25519.PublicKey:
			keys[k.KeyID] = pub
		}
	}
	return keys, nil
}
