package authtest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/mcpkit/auth/resource"
)

// opaqueToken is what an opaque access token stands for.
type opaqueToken struct {
	claims Claims
	issuer string
	expiry time.Time
}

// IssueOpaque issues an opaque access token for c (a random string the server
// remembers; see Options.OpaqueTokens).
func (s *Server) IssueOpaque(c Claims) (string, error) {
	if c.Issuer == "" {
		c.Issuer = s.Issuer
	}
	tok := "opaque-" + randomID()
	s.mu.Lock()
	s.opaque[tok] = opaqueToken{claims: c, issuer: c.Issuer, expiry: time.Now().Add(c.TTL)}
	s.mu.Unlock()
	return tok, nil
}

// introspect is the token introspection endpoint (RFC 7662): a client with a
// secret asks about a token, opaque or a JWT of this server's, and learns
// whether it is active and what it grants.
func (s *Server) introspect(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if _, _, basic := r.BasicAuth(); !basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication is required")
		return
	}
	if id, ok := s.authenticate(r); !ok || s.secretOf(id) == "" {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	answer, ok := s.describe(r.PostForm.Get("token"))
	if !ok {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

func (s *Server) secretOf(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[id].secret
}

// describe returns the introspection answer for an active token.
func (s *Server) describe(token string) (map[string]any, bool) {
	s.mu.Lock()
	o, isOpaque := s.opaque[token]
	s.mu.Unlock()
	if isOpaque {
		if time.Now().After(o.expiry) {
			return nil, false
		}
		m := map[string]any{
			"active": true, "iss": o.issuer, "sub": o.claims.Subject, "client_id": o.claims.ClientID,
			"aud": o.claims.Audience, "exp": o.expiry.Unix(), "token_type": "Bearer",
		}
		if o.claims.Scope != "" {
			m["scope"] = o.claims.Scope
		}
		if o.claims.JKT != "" {
			m["cnf"] = map[string]string{"jkt": o.claims.JKT}
		}
		return m, true
	}
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(jws.Signatures) != 1 {
		return nil, false
	}
	kid := jws.Signatures[0].Header.KeyID
	s.mu.Lock()
	var payload []byte
	for _, k := range s.keys {
		if k.kid == kid {
			payload, err = jws.Verify(&k.key.PublicKey)
		}
	}
	s.mu.Unlock()
	var m map[string]any
	if payload == nil || err != nil || json.Unmarshal(payload, &m) != nil {
		return nil, false
	}
	if exp, ok := m["exp"].(float64); !ok || time.Now().Unix() > int64(exp) {
		return nil, false
	}
	m["active"], m["token_type"] = true, "Bearer"
	return m, true
}

// dpopKey checks the DPoP proof of a token request, when the server takes
// DPoP and the request has one, and returns the thumbprint of its key ("" for
// none). After a refused proof it has answered, and ok is false.
func (s *Server) dpopKey(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	proof := r.Header.Get("DPoP")
	if !s.opts.DPoP || proof == "" {
		return "", true
	}
	p, err := resource.CheckDPoPProof(proof, http.MethodPost, s.Issuer+"/token", "", time.Now(), time.Minute)
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_dpop_proof", err.Error())
		return "", false
	}
	return p.JKT, true
}
