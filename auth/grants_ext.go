package auth

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// ClientCredentials is the client credentials grant (RFC 6749 §4.4) for a
// machine acting for itself: with a client secret (client_secret_basic or
// client_secret_post, as the server says), or with a private key signing a JWT
// client assertion (private_key_jwt, RFC 7523 §2.2).
type ClientCredentials struct {
	// ClientID identifies the client.
	ClientID string
	// ClientSecret authenticates a client that has a secret.
	ClientSecret string
	// AuthMethod forces a token endpoint authentication method; "" chooses from
	// the server's metadata.
	AuthMethod string
	// PrivateKey, when set, authenticates with private_key_jwt. SigningAlgorithm
	// is its JWS algorithm (ES256 when empty).
	PrivateKey       crypto.Signer
	SigningAlgorithm string
}

// ParsePrivateKeyPEM reads a PKCS#8 (or SEC 1 EC, or PKCS#1 RSA) private key in
// PEM form.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("auth: no PEM block in the private key")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("auth: private key: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("auth: a %T cannot sign", key)
	}
	return s, nil
}

// Token obtains a token with the client credentials grant.
func (g *ClientCredentials) Token(ctx context.Context, r *TokenRequest) (*Issued, error) {
	srv := r.Discovery.Server
	if srv.TokenEndpoint == "" {
		return nil, fmt.Errorf("auth: authorization server %s has no token endpoint", srv.Issuer)
	}
	params := url.Values{"grant_type": {GrantClientCredentials}}
	if r.Discovery.Resource != "" {
		params.Set("resource", r.Discovery.Resource)
	}
	if len(r.Scopes) > 0 {
		params.Set("scope", strings.Join(r.Scopes, " "))
	}
	client := ClientInfo{Issuer: srv.Issuer, ClientID: g.ClientID, ClientSecret: g.ClientSecret, AuthMethod: g.AuthMethod}
	method := client.authMethod(srv)
	if g.PrivateKey != nil {
		assertion, err := ClientAssertion(g.PrivateKey, g.SigningAlgorithm, g.ClientID, srv.Issuer)
		if err != nil {
			return nil, err
		}
		params.Set("client_assertion_type", ClientAssertionJWT)
		params.Set("client_assertion", assertion)
		method = AuthMethodNone // client_id in the body, no secret
	}
	tok, err := postToken(ctx, r.Client, srv.TokenEndpoint, client, method, params)
	if err != nil {
		return nil, err
	}
	return &Issued{Token: tok}, nil
}

// ClientAssertion signs a private_key_jwt client assertion (RFC 7523 §3) for
// clientID, addressed to the authorization server's issuer, valid five minutes.
func ClientAssertion(key crypto.Signer, alg, clientID, audience string) (string, error) {
	if alg == "" {
		alg = string(jose.ES256)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("auth: client assertion signer: %w", err)
	}
	jti, err := randomString()
	if err != nil {
		return "", err
	}
	now := time.Now()
	payload, err := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience, "jti": jti,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	})
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("auth: signing the client assertion: %w", err)
	}
	return jws.CompactSerialize()
}

// JWTBearer is the JWT bearer grant (RFC 7523 §2.1) with an assertion the client
// already holds, such as a workload identity token: the token request carries
// the assertion and the client_id, and a refused request is not retried.
type JWTBearer struct {
	// ClientID is sent as client_id ("" sends none).
	ClientID string
	// Assertion returns the JWT to present.
	Assertion func(ctx context.Context) (string, error)
}

// Token obtains a token with the JWT bearer grant.
func (g *JWTBearer) Token(ctx context.Context, r *TokenRequest) (*Issued, error) {
	srv := r.Discovery.Server
	if srv.TokenEndpoint == "" {
		return nil, fmt.Errorf("auth: authorization server %s has no token endpoint", srv.Issuer)
	}
	if g.Assertion == nil {
		return nil, errors.New("auth: JWTBearer has no Assertion")
	}
	assertion, err := g.Assertion(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: obtaining the assertion: %w", err)
	}
	params := url.Values{"grant_type": {GrantJWTBearer}, "assertion": {assertion}}
	if r.Discovery.Resource != "" {
		params.Set("resource", r.Discovery.Resource)
	}
	if len(r.Scopes) > 0 {
		params.Set("scope", strings.Join(r.Scopes, " "))
	}
	tok, err := postToken(ctx, r.Client, srv.TokenEndpoint, ClientInfo{ClientID: g.ClientID}, AuthMethodNone, params)
	if err != nil {
		return nil, err
	}
	return &Issued{Token: tok}, nil
}

// Enterprise is enterprise-managed authorization: the client exchanges the
// user's identity token at the enterprise identity provider for an Identity
// Assertion JWT Authorization Grant (ID-JAG, RFC 8693 token exchange) addressed
// to the MCP server's authorization server, then presents it there with the JWT
// bearer grant.
type Enterprise struct {
	// IDPTokenEndpoint is the identity provider's token endpoint.
	IDPTokenEndpoint string
	// IDPClientID is the client's id at the identity provider.
	IDPClientID string
	// IDPClientSecret, if set, authenticates the client there (client_secret_post).
	IDPClientSecret string
	// IDToken returns the user's identity token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
	// ClientID and ClientSecret authenticate the client to the MCP server's
	// authorization server.
	ClientID, ClientSecret string
	// AuthMethod forces the authentication method at the authorization server; ""
	// chooses from its metadata.
	AuthMethod string
}

// Token runs the token exchange and the JWT bearer grant.
func (g *Enterprise) Token(ctx context.Context, r *TokenRequest) (*Issued, error) {
	srv := r.Discovery.Server
	if srv.TokenEndpoint == "" || g.IDPTokenEndpoint == "" || g.IDToken == nil {
		return nil, errors.New("auth: enterprise authorization needs the IdP token endpoint, an ID token and the server's token endpoint")
	}
	idToken, err := g.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: obtaining the ID token: %w", err)
	}
	exchange := url.Values{
		"grant_type":           {GrantTokenExchange},
		"subject_token":        {idToken},
		"subject_token_type":   {TokenTypeIDToken},
		"requested_token_type": {TokenTypeIDJAG},
		"audience":             {srv.Issuer},
		"resource":             {r.Discovery.Resource},
	}
	if len(r.Scopes) > 0 {
		exchange.Set("scope", strings.Join(r.Scopes, " "))
	}
	idp := ClientInfo{ClientID: g.IDPClientID, ClientSecret: g.IDPClientSecret}
	idpMethod := AuthMethodNone
	if g.IDPClientSecret != "" {
		idpMethod = AuthMethodSecretPost
	}
	jag, err := postToken(ctx, r.Client, g.IDPTokenEndpoint, idp, idpMethod, exchange)
	if err != nil {
		return nil, err
	}
	if it, _ := jag.Extra("issued_token_type").(string); it != "" && it != TokenTypeIDJAG {
		return nil, fmt.Errorf("auth: the identity provider issued a %s, not an ID-JAG", it)
	}
	client := ClientInfo{Issuer: srv.Issuer, ClientID: g.ClientID, ClientSecret: g.ClientSecret, AuthMethod: g.AuthMethod}
	params := url.Values{"grant_type": {GrantJWTBearer}, "assertion": {jag.AccessToken}}
	tok, err := postToken(ctx, r.Client, srv.TokenEndpoint, client, client.authMethod(srv), params)
	if err != nil {
		return nil, err
	}
	return &Issued{Token: tok}, nil
}
