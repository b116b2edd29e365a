package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Token endpoint authentication methods (RFC 7591 §2, RFC 7523).
const (
	AuthMethodNone          = "none"
	AuthMethodSecretBasic   = "client_secret_basic"
	AuthMethodSecretPost    = "client_secret_post"
	AuthMethodPrivateKeyJWT = "private_key_jwt"
)

// Grant types and token types used by the grants of this package.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantRefreshToken      = "refresh_token"
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	GrantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeIDToken       = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG         = "urn:ietf:params:oauth:token-type:id-jag"
	ClientAssertionJWT     = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// ClientInfo identifies an OAuth client to one authorization server.
type ClientInfo struct {
	// Issuer is the authorization server the client is registered with; "" means
	// any (a pre-registered client the user vouches for everywhere).
	Issuer string `json:"issuer,omitempty"`
	// ClientID is the client identifier.
	ClientID string `json:"client_id"`
	// ClientSecret is the secret of a confidential client ("" for a public one).
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is the token endpoint authentication method; "" chooses one from
	// the server's metadata (client_secret_basic when there is a secret and the
	// server allows it, client_secret_post when only that is allowed, else none).
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// String names the client without its secret.
func (c ClientInfo) String() string { return "client " + c.ClientID }

// authMethod is the token endpoint authentication method to use with server.
func (c ClientInfo) authMethod(server *ServerMetadata) string {
	if c.AuthMethod != "" {
		return c.AuthMethod
	}
	if c.ClientSecret == "" {
		return AuthMethodNone
	}
	listed := server.TokenEndpointAuthMethodsSupported
	if len(listed) == 0 || supports(listed, AuthMethodSecretBasic) || !supports(listed, AuthMethodSecretPost) {
		return AuthMethodSecretBasic
	}
	return AuthMethodSecretPost
}

// authStyle maps an authentication method to how x/oauth2 presents the client
// (never AuthStyleAutoDetect: it tries one style and then the other, and a
// server may count the first attempt against the client).
func authStyle(method string) oauth2.AuthStyle {
	if method == AuthMethodSecretBasic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// TokenRequest is what a Grant needs to obtain a token.
type TokenRequest struct {
	// Discovery describes the MCP server and its authorization server.
	Discovery *Discovery
	// Scopes are the scopes to ask for (none: omit the scope parameter).
	Scopes []string
	// Client sends the requests to the authorization server.
	Client *http.Client
}

// Issued is a token a Grant obtained, with what is needed to refresh it.
type Issued struct {
	// Token is the token response.
	Token *oauth2.Token
	// Client is the client that obtained it (used to refresh it); ClientID is ""
	// when the grant does not support refresh.
	Client ClientInfo
}

// A Grant obtains access tokens from an authorization server: the authorization
// code flow (AuthorizationCode) or a grant without a user (ClientCredentials,
// JWTBearer, Enterprise).
type Grant interface {
	// Token obtains a new token for r.Discovery.Resource.
	Token(ctx context.Context, r *TokenRequest) (*Issued, error)
}

// withClient returns ctx carrying client for x/oauth2's token requests.
func withClient(ctx context.Context, client *http.Client) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, client)
}

// postToken sends a token request with the form params, authenticating as c by
// method (none, client_secret_basic or client_secret_post; private_key_jwt
// callers put the assertion in params themselves and pass none). It uses
// x/oauth2's client credentials request, whose grant_type may be replaced.
func postToken(ctx context.Context, client *http.Client, tokenURL string, c ClientInfo, method string, params url.Values) (*oauth2.Token, error) {
	cfg := clientcredentials.Config{
		ClientID:       c.ClientID,
		TokenURL:       tokenURL,
		AuthStyle:      authStyle(method),
		EndpointParams: params,
	}
	if method == AuthMethodSecretBasic || method == AuthMethodSecretPost {
		cfg.ClientSecret = c.ClientSecret
	}
	tok, err := cfg.Token(withClient(ctx, client))
	if err != nil {
		return nil, fmt.Errorf("auth: token request (%s) to %s: %w", params.Get("grant_type"), tokenURL, err)
	}
	return tok, nil
}

// Refresh uses iss.Token's refresh token at the server for resource. A response
// without a refresh token keeps the old one (RFC 6749 §6).
func Refresh(ctx context.Context, client *http.Client, server *ServerMetadata, iss *Issued, resource string) (*Issued, error) {
	if iss == nil || iss.Token == nil || iss.Token.RefreshToken == "" || iss.Client.ClientID == "" {
		return nil, fmt.Errorf("auth: no refresh token")
	}
	params := url.Values{"grant_type": {GrantRefreshToken}, "refresh_token": {iss.Token.RefreshToken}}
	if resource != "" {
		params.Set("resource", resource)
	}
	tok, err := postToken(ctx, client, server.TokenEndpoint, iss.Client, iss.Client.authMethod(server), params)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = iss.Token.RefreshToken
	}
	return &Issued{Token: tok, Client: iss.Client}, nil
}

// tokenScopes returns the scopes a token response granted, or requested when it
// does not say (RFC 6749 §5.1).
func tokenScopes(tok *oauth2.Token, requested []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		return strings.Fields(s)
	}
	return requested
}
