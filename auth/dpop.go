package auth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// dpopProver makes DPoP proofs (RFC 9449) with one P-256 key, and remembers the
// latest nonce each server (by origin) asked for.
type dpopProver struct {
	signer jose.Signer

	mu     sync.Mutex
	nonces map[string]string
}

func newDPoPProver() (*dpopProver, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("auth: DPoP key: %w", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, fmt.Errorf("auth: DPoP signer: %w", err)
	}
	return &dpopProver{signer: signer, nonces: map[string]string{}}, nil
}

// htu is the request URL without query and fragment (RFC 9449 §4.2).
func htu(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return c.String()
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// proof returns a fresh proof for a request; accessToken, when not empty, is
// bound by its hash (ath).
func (p *dpopProver) proof(method string, u *url.URL, accessToken string) (string, error) {
	jti, err := randomString()
	if err != nil {
		return "", err
	}
	claims := map[string]any{"jti": jti, "htm": method, "htu": htu(u), "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	p.mu.Lock()
	if n := p.nonces[origin(u)]; n != "" {
		claims["nonce"] = n
	}
	p.mu.Unlock()
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := p.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("auth: signing a DPoP proof: %w", err)
	}
	return jws.CompactSerialize()
}

// noteNonce remembers the DPoP-Nonce a response carries and reports whether it
// carried a new one.
func (p *dpopProver) noteNonce(resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if n == "" {
		return false
	}
	o := origin(resp.Request.URL)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.nonces[o] == n {
		return false
	}
	p.nonces[o] = n
	return true
}

// dpopTokenTransport adds a DPoP proof to the requests sent to the token
// endpoint, and retries once with the nonce an authorization server demands
// (use_dpop_nonce, RFC 9449 §8).
type dpopTokenTransport struct {
	base     http.RoundTripper
	prover   *dpopProver
	tokenURL string
}

func (t *dpopTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || htu(req.URL) != htu(mustParse(t.tokenURL)) {
		return t.base.RoundTrip(req)
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 {
			if req.GetBody == nil {
				return nil, fmt.Errorf("auth: cannot resend the token request with a DPoP nonce")
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		proof, err := t.prover.proof(http.MethodPost, r.URL, "")
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := t.prover.noteNonce(resp)
		if attempt > 0 || !fresh || (resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized) {
			return resp, nil
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		if e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(data))
			return resp, nil
		}
	}
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// isDPoPNonceChallenge reports whether a resource server's 401 asks for a DPoP
// nonce.
func isDPoPNonceChallenge(resp *http.Response, cs []Challenge) bool {
	if resp.Header.Get("DPoP-Nonce") == "" {
		return false
	}
	c, ok := challengeFor(cs, "DPoP")
	return ok && strings.EqualFold(c.Param("error"), "use_dpop_nonce")
}
