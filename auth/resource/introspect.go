package resource

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/auth"
)

// IntrospectionVerifier verifies access tokens by asking the authorization
// server (OAuth 2.0 Token Introspection, RFC 7662): for opaque tokens, or where
// a revoked token must stop working before it expires. The resource server
// authenticates to the introspection endpoint as a client (HTTP Basic). A token
// is accepted when the answer says it is active, names this resource in aud,
// and is within its validity period. Active answers are remembered for at most
// CacheTTL (and never past the token's exp), so a client that presents the same
// token again costs no request; inactive answers are not remembered.
type IntrospectionVerifier struct {
	// Endpoint is the authorization server's introspection_endpoint.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server there.
	ClientID, ClientSecret string
	// Issuer, when set, must be the answer's iss where it has one.
	Issuer string
	// Audience is this resource's identifier: the answer's aud must include
	// it (an answer without aud is refused unless AllowMissingAudience).
	Audience             string
	AllowMissingAudience bool
	// HTTPClient sends the requests; nil means a client with a 10-second
	// timeout.
	HTTPClient *http.Client
	// Leeway is the clock skew allowed on exp and nbf (default 30 s).
	Leeway time.Duration
	// CacheSize bounds the answers remembered (default 10,000; negative: none);
	// CacheTTL bounds how long one is (default one minute: how long a revoked
	// token may still be accepted).
	CacheSize int
	CacheTTL  time.Duration

	once   sync.Once
	client *http.Client
	cache  tokenCache
}

// introspection is the part of an introspection answer read (RFC 7662 §2.2).
type introspection struct {
	Active   bool            `json:"active"`
	Scope    string          `json:"scope"`
	ClientID string          `json:"client_id"`
	Sub      string          `json:"sub"`
	Aud      json.RawMessage `json:"aud"`
	Iss      string          `json:"iss"`
	Exp      *float64        `json:"exp"`
	Nbf      *float64        `json:"nbf"`
	Cnf      *struct {
		Jkt string `json:"jkt"`
	} `json:"cnf"`
}

func (v *IntrospectionVerifier) init() {
	v.once.Do(func() {
		v.client = v.HTTPClient
		if v.client == nil {
			v.client = &http.Client{Timeout: 10 * time.Second}
		}
		size := v.CacheSize
		if size == 0 {
			size = 10000
		}
		v.cache = tokenCache{max: size, ttl: orDefault(v.CacheTTL, time.Minute), entries: map[[32]byte]cached{}}
	})
}

// Verify asks the introspection endpoint about token (unless a recent answer
// is remembered) and returns what it grants.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	v.init()
	now := time.Now()
	key := sha256.Sum256([]byte(token))
	if info, ok := v.cache.get(key, now); ok {
		return info, nil
	}
	in, err := v.introspect(ctx, token)
	if err != nil {
		return nil, err
	}
	info, err := v.check(in, now)
	if err != nil {
		return nil, err
	}
	v.cache.put(key, info, now)
	return info, nil
}

// introspect sends the introspection request.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (*introspection, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the credentials are form-encoded before Basic.
	req.SetBasicAuth(url.QueryEscape(v.ClientID), url.QueryEscape(v.ClientSecret))
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("introspection: %s answered %d", v.Endpoint, resp.StatusCode)
	}
	var in introspection
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("introspection: %w", err)
	}
	return &in, nil
}

// check validates an introspection answer.
func (v *IntrospectionVerifier) check(in *introspection, now time.Time) (*TokenInfo, error) {
	if !in.Active {
		return nil, fmt.Errorf("%w: not active", ErrInvalidToken)
	}
	if v.Issuer != "" && in.Iss != "" && in.Iss != v.Issuer {
		return nil, fmt.Errorf("%w: issuer %q", ErrInvalidToken, in.Iss)
	}
	info := &TokenInfo{Issuer: in.Iss, Subject: in.Sub, ClientID: in.ClientID, Scopes: strings.Fields(in.Scope)}
	if info.Issuer == "" {
		info.Issuer = v.Issuer
	}
	switch {
	case len(in.Aud) > 0 && string(in.Aud) != "null":
		aud, err := audience(in.Aud)
		if err != nil {
			return nil, invalid(errAudienceType, err)
		}
		if !slices.ContainsFunc(aud, func(a string) bool { return sameResource(a, v.Audience) }) {
			return nil, fmt.Errorf("%w: the token is for %v, not %s", ErrInvalidToken, aud, v.Audience)
		}
		info.Audience = aud
	case !v.AllowMissingAudience:
		return nil, fmt.Errorf("%w: no audience", ErrInvalidToken)
	}
	leeway := orDefault(v.Leeway, 30*time.Second)
	if in.Exp != nil {
		info.Expiration = time.Unix(int64(*in.Exp), 0)
		if now.After(info.Expiration.Add(leeway)) {
			return nil, fmt.Errorf("%w: expired", ErrInvalidToken)
		}
	}
	if in.Nbf != nil && now.Add(leeway).Before(time.Unix(int64(*in.Nbf), 0)) {
		return nil, fmt.Errorf("%w: not valid yet", ErrInvalidToken)
	}
	if in.Cnf != nil {
		info.Confirmation = in.Cnf.Jkt
	}
	return info, nil
}

// DiscoverIntrospectionVerifier returns an IntrospectionVerifier for the
// authorization server issuer (its introspection_endpoint found through RFC 8414
// discovery), authenticating as clientID with secret, for tokens addressed to
// audience. client fetches the metadata and, later, asks the endpoint; nil means
// a client with a 10-second timeout.
func DiscoverIntrospectionVerifier(ctx context.Context, client *http.Client, issuer, audience, clientID, secret string) (*IntrospectionVerifier, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	md, err := auth.DiscoverServer(ctx, client, issuer)
	if err != nil {
		return nil, err
	}
	if md.IntrospectionEndpoint == "" {
		return nil, errors.New("resource: authorization server " + issuer + " publishes no introspection_endpoint")
	}
	return &IntrospectionVerifier{Endpoint: md.IntrospectionEndpoint, ClientID: clientID, ClientSecret: secret,
		Issuer: md.Issuer, Audience: audience, HTTPClient: client}, nil
}
