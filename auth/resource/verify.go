package resource

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/mcpkit/auth"
)

// TokenInfo is what a verified access token says.
type TokenInfo struct {
	// Issuer and Subject identify the principal (iss, sub).
	Issuer, Subject string
	// ClientID is the OAuth client the token was issued to.
	ClientID string
	// Audience lists the resources the token is for.
	Audience []string
	// Scopes are the granted scopes.
	Scopes []string
	// Expiration is when the token expires (zero: never said).
	Expiration time.Time
	// Confirmation is the JWK thumbprint the token is bound to (cnf.jkt, DPoP),
	// or "".
	Confirmation string
}

// HasScopes reports whether the token grants every scope of want.
func (t *TokenInfo) HasScopes(want []string) bool {
	for _, s := range want {
		if !slices.Contains(t.Scopes, s) {
			return false
		}
	}
	return true
}

// A TokenVerifier checks an access token presented to this resource server and
// says what it grants. An error means the token is invalid (401 invalid_token);
// wrap ErrInvalidToken or return any error.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// ErrInvalidToken is the error of a token that failed verification.
var ErrInvalidToken = errors.New("invalid token")

// tokenError is a refusal whose cause comes from a library or a decoder (Go
// type names, go-jose's wording): the client is told reason, in plain words,
// and the cause goes to the server's log (Options.Logger).
type tokenError struct {
	reason string
	cause  error
}

func (e *tokenError) Error() string {
	return ErrInvalidToken.Error() + ": " + e.reason + ": " + e.cause.Error()
}
func (e *tokenError) Unwrap() []error { return []error{ErrInvalidToken, e.cause} }

// errNoKey is the reason given for a token whose signing key is not found.
const errNoKey = "no signing key of the authorization server matches the token"

// invalid returns the refusal of a token for reason, caused by cause.
func invalid(reason string, cause error) error { return &tokenError{reason: reason, cause: cause} }

// JWTVerifier verifies JWT access tokens (RFC 9068) signed by the authorization
// server's keys (its jwks_uri): the signature (asymmetric algorithms only), the
// issuer, that the audience includes this resource, and the validity period.
// Tokens that verified are remembered until they expire (at most CacheTTL), so a
// client that presents the same token again costs a map lookup rather than a
// signature check; a change of the key set forgets them. Tokens of the usual
// shape (ES256, RS256 or EdDSA, a plain header and claims) are parsed and
// checked by hand, in about 20 allocations; go-jose handles the rest.
type JWTVerifier struct {
	// Issuer is the authorization server's issuer; tokens must carry it as iss.
	Issuer string
	// Audience is this resource's identifier (its canonical URL, as in its
	// Protected Resource Metadata); tokens must list it in aud.
	Audience string
	// JWKSURL is the authorization server's jwks_uri.
	JWKSURL string
	// HTTPClient fetches the key set; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Leeway is the clock skew allowed on exp and nbf (default 30 s).
	Leeway time.Duration
	// AllowMissingExpiration accepts tokens without exp.
	AllowMissingExpiration bool
	// MinRefetch is the least time between key set fetches caused by unknown key
	// ids (default 10 s); MaxKeyAge is when the key set is fetched again anyway
	// (default one hour).
	MinRefetch, MaxKeyAge time.Duration
	// CacheSize bounds the tokens remembered (default 10,000; negative: none);
	// CacheTTL bounds how long one is (default 5 minutes).
	CacheSize int
	CacheTTL  time.Duration

	once  sync.Once
	keys  *keySet
	cache tokenCache
}

// signatureAlgorithms are the JWS algorithms accepted (no "none", no HMAC).
var signatureAlgorithms = []jose.SignatureAlgorithm{
	jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
}

func (v *JWTVerifier) init() {
	v.once.Do(func() {
		c := v.HTTPClient
		if c == nil {
			c = http.DefaultClient
		}
		v.keys = &keySet{url: v.JWKSURL, client: c, minRefetch: orDefault(v.MinRefetch, 10*time.Second), maxAge: orDefault(v.MaxKeyAge, time.Hour)}
		size := v.CacheSize
		if size == 0 {
			size = 10000
		}
		v.cache = tokenCache{max: size, ttl: orDefault(v.CacheTTL, 5*time.Minute), entries: map[[32]byte]cached{}}
		v.keys.onChange = v.cache.clear
	})
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Verify checks token and returns what it grants.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	v.init()
	now := time.Now()
	key := sha256.Sum256([]byte(token))
	if info, ok := v.cache.get(key, now); ok {
		return info, nil
	}
	info, err := v.verify(ctx, token, now)
	if err != nil {
		return nil, err
	}
	v.cache.put(key, info, now)
	return info, nil
}

// verify checks a token not seen before: by hand for the common shape
// (verifyFast), else with go-jose.
func (v *JWTVerifier) verify(ctx context.Context, token string, now time.Time) (*TokenInfo, error) {
	info, err := v.verifyFast(ctx, token, now)
	if err != errUseJOSE {
		return info, err
	}
	return v.verifyJOSE(ctx, token, now)
}

// verifyJOSE checks a token with go-jose: any algorithm of
// signatureAlgorithms, any header go-jose accepts.
func (v *JWTVerifier) verifyJOSE(ctx context.Context, token string, now time.Time) (*TokenInfo, error) {
	jws, err := jose.ParseSignedCompact(token, signatureAlgorithms)
	if err != nil {
		return nil, invalid("not a signed JWT of an accepted algorithm", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, fmt.Errorf("%w: want one signature", ErrInvalidToken)
	}
	h := jws.Signatures[0].Header
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string) // a typ that is not a string is ignored
	if err := checkType(typ); err != nil {
		return nil, err
	}
	pub, err := v.keys.key(ctx, h.KeyID)
	if err != nil {
		return nil, invalid(errNoKey, err)
	}
	payload, err := jws.Verify(pub)
	if err != nil {
		return nil, invalid("bad signature", err)
	}
	c, err := decodeClaims(payload)
	if err != nil {
		return nil, err
	}
	return v.check(&c, now)
}

// check validates the claims of a token whose signature verified.
func (v *JWTVerifier) check(c *claims, now time.Time) (*TokenInfo, error) {
	leeway := orDefault(v.Leeway, 30*time.Second)
	if c.iss != v.Issuer {
		return nil, fmt.Errorf("%w: issuer %q", ErrInvalidToken, c.iss)
	}
	if !c.hasAud {
		return nil, fmt.Errorf("%w: no audience", ErrInvalidToken)
	}
	if !slices.ContainsFunc(c.aud, func(a string) bool { return sameResource(a, v.Audience) }) {
		return nil, fmt.Errorf("%w: the token is for %v, not %s", ErrInvalidToken, c.aud, v.Audience)
	}
	info := &TokenInfo{Issuer: c.iss, Subject: c.sub, ClientID: c.clientID, Audience: c.aud, Confirmation: c.jkt}
	if info.ClientID == "" {
		info.ClientID = c.azp
	}
	switch {
	case c.hasExp:
		info.Expiration = time.Unix(int64(c.exp), 0)
		if now.After(info.Expiration.Add(leeway)) {
			return nil, fmt.Errorf("%w: expired", ErrInvalidToken)
		}
	case !v.AllowMissingExpiration:
		return nil, fmt.Errorf("%w: no expiration", ErrInvalidToken)
	}
	if c.hasNbf && now.Add(leeway).Before(time.Unix(int64(c.nbf), 0)) {
		return nil, fmt.Errorf("%w: not valid yet", ErrInvalidToken)
	}
	if c.scope != "" {
		info.Scopes = strings.Fields(c.scope)
	} else {
		info.Scopes = c.scp
	}
	return info, nil
}

// sameResource compares resource identifiers, ignoring one trailing slash.
func sameResource(a, b string) bool {
	return a == b || strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// tokenCache remembers verified tokens by their SHA-256.
type tokenCache struct {
	max     int
	ttl     time.Duration
	mu      sync.RWMutex
	entries map[[32]byte]cached
}

type cached struct {
	info  *TokenInfo
	until time.Time
}

func (c *tokenCache) get(key [32]byte, now time.Time) (*TokenInfo, bool) {
	if c.max < 0 {
		return nil, false
	}
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if !ok || now.After(e.until) {
		return nil, false
	}
	return e.info, true
}

func (c *tokenCache) put(key [32]byte, info *TokenInfo, now time.Time) {
	if c.max < 0 {
		return
	}
	until := now.Add(c.ttl)
	if !info.Expiration.IsZero() && info.Expiration.Before(until) {
		until = info.Expiration
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		for k, e := range c.entries { // drop the expired, or else any one
			if now.After(e.until) || len(c.entries) >= c.max {
				delete(c.entries, k)
			}
			if len(c.entries) < c.max/2 {
				break
			}
		}
	}
	c.entries[key] = cached{info: info, until: until}
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}

// DiscoverVerifier returns a JWTVerifier for tokens of the authorization server
// issuer addressed to audience, with the key set its metadata names (RFC 8414
// discovery, the issuer checked). client fetches the metadata and, later, the
// keys; nil means http.DefaultClient.
func DiscoverVerifier(ctx context.Context, client *http.Client, issuer, audience string) (*JWTVerifier, error) {
	if client == nil {
		client = http.DefaultClient
	}
	md, err := auth.DiscoverServer(ctx, client, issuer)
	if err != nil {
		return nil, err
	}
	if md.JWKSURI == "" {
		return nil, fmt.Errorf("resource: authorization server %s publishes no jwks_uri", issuer)
	}
	return &JWTVerifier{Issuer: md.Issuer, Audience: audience, JWKSURL: md.JWKSURI, HTTPClient: client}, nil
}
