package resource

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DPoP (RFC 9449) on the resource server: a token bound to a key (cnf.jkt)
// is presented with the DPoP scheme and a proof, a JWT signed by that key,
// for this very request.

// dpopAlgorithms are the proof algorithms accepted (asymmetric only), as
// advertised in the DPoP challenge's algs.
var dpopAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.PS256, jose.EdDSA}

// DefaultDPoPProofAge is how old a proof's iat may be when
// Options.DPoPProofAge is zero.
const DefaultDPoPProofAge = 60 * time.Second

// ErrInvalidDPoPProof is the error of a DPoP proof that fails a check.
var ErrInvalidDPoPProof = errors.New("invalid DPoP proof")

// DPoPProof is what a verified DPoP proof says.
type DPoPProof struct {
	// JKT is the SHA-256 JWK thumbprint (RFC 7638) of the proof's key,
	// base64url: what a bound token's cnf.jkt names.
	JKT string
	// JTI is the proof's unique identifier, for replay detection.
	JTI string
	// IssuedAt is the proof's iat.
	IssuedAt time.Time
}

// CheckDPoPProof verifies a DPoP proof (RFC 9449 §4.3) for a request with
// method to htu (the URL without query and fragment): its type, algorithm and
// embedded public key, the signature, htm, htu, an iat no older than maxAge (and
// not ahead of now by more than a few seconds), and, when accessToken is not
// empty, that ath is its hash. Replay (a jti seen before) is the caller's to
// check.
func CheckDPoPProof(proof, method, htu, accessToken string, now time.Time, maxAge time.Duration) (*DPoPProof, error) {
	fail := func(format string, args ...any) (*DPoPProof, error) {
		return nil, fmt.Errorf("%w: %s", ErrInvalidDPoPProof, fmt.Sprintf(format, args...))
	}
	jws, err := jose.ParseSignedCompact(proof, dpopAlgorithms)
	if err != nil {
		return fail("%v", err)
	}
	h := jws.Signatures[0].Header
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" {
		return fail("typ %q, want dpop+jwt", typ)
	}
	if h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return fail("no public jwk in the header")
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return fail("%v", err)
	}
	var c struct {
		JTI string   `json:"jti"`
		HTM string   `json:"htm"`
		HTU string   `json:"htu"`
		IAT *float64 `json:"iat"`
		ATH string   `json:"ath"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return fail("claims: %v", err)
	}
	switch {
	case c.JTI == "" || c.IAT == nil:
		return fail("no jti or iat")
	case c.HTM != method:
		return fail("htm %q for a %s request", c.HTM, method)
	case !sameHTU(c.HTU, htu):
		return fail("htu %q for %s", c.HTU, htu)
	}
	iat := time.Unix(int64(*c.IAT), 0)
	const ahead = 5 * time.Second // clock skew
	if iat.After(now.Add(ahead)) || iat.Before(now.Add(-maxAge-ahead)) {
		return fail("iat %v is outside the accepted window", iat.UTC())
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return fail("ath does not match the access token")
		}
	}
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return fail("%v", err)
	}
	return &DPoPProof{JKT: base64.RawURLEncoding.EncodeToString(tp), JTI: c.JTI, IssuedAt: iat}, nil
}

// sameHTU compares two htu values: scheme and host case-insensitively (with
// the default port made explicit), the path exactly, query and fragment
// ignored.
func sameHTU(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil || ua.Host == "" {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(hostPort(ua), hostPort(ub)) && ua.EscapedPath() == ub.EscapedPath()
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if strings.EqualFold(u.Scheme, "https") {
		return u.Host + ":443"
	}
	return u.Host + ":80"
}

// checkDPoP checks the proof of a request that presents token (bound to
// info.Confirmation) with the DPoP scheme.
func (o *Options) checkDPoP(r *http.Request, token string, info *TokenInfo, seen *jtiCache) error {
	if info.Confirmation == "" {
		return fmt.Errorf("%w: the token is not DPoP-bound", ErrInvalidToken)
	}
	proofs := r.Header.Values("DPoP")
	if len(proofs) != 1 {
		return fmt.Errorf("%w: want one DPoP header, got %d", ErrInvalidDPoPProof, len(proofs))
	}
	maxAge := o.DPoPProofAge
	if maxAge <= 0 {
		maxAge = DefaultDPoPProofAge
	}
	now := time.Now()
	p, err := CheckDPoPProof(proofs[0], r.Method, o.requestHTU(r), token, now, maxAge)
	if err != nil {
		return err
	}
	if p.JKT != info.Confirmation {
		return fmt.Errorf("%w: the proof's key is not the one the token is bound to", ErrInvalidDPoPProof)
	}
	if !seen.add(p.JKT+" "+p.JTI, now.Add(maxAge+10*time.Second)) {
		return fmt.Errorf("%w: jti replayed", ErrInvalidDPoPProof)
	}
	return nil
}

// requestHTU is the URL the client sent r to, without query: the origin of
// the resource metadata URL (what clients see, behind a proxy too) or else of
// the request, and the path as the client sent it (before any StripPrefix).
func (o *Options) requestHTU(r *http.Request) string {
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if u, err := url.Parse(o.ResourceMetadataURL); err == nil && u.Host != "" {
		scheme, host = u.Scheme, u.Host
	}
	path := r.URL.EscapedPath()
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != "" {
		path = u.EscapedPath()
	}
	return scheme + "://" + host + path
}

// maxDPoPJTIs bounds the proof identifiers remembered.
const maxDPoPJTIs = 100_000

// jtiCache remembers the proofs seen until they are too old to be accepted.
type jtiCache struct {
	mu sync.Mutex
	m  map[string]time.Time
}

// add records id until expiry and reports whether it is new.
func (c *jtiCache) add(id string, expiry time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.m == nil {
		c.m = map[string]time.Time{}
	}
	if until, ok := c.m[id]; ok && now.Before(until) {
		return false
	}
	if len(c.m) >= maxDPoPJTIs {
		for k, until := range c.m {
			if now.After(until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxDPoPJTIs {
			return false // full of live proofs: refuse rather than forget one
		}
	}
	c.m[id] = expiry
	return true
}

// dpopChallenge is the DPoP challenge's algs parameter.
func dpopAlgs() string {
	names := make([]string, len(dpopAlgorithms))
	for i, a := range dpopAlgorithms {
		names[i] = string(a)
	}
	return strings.Join(names, " ")
}
