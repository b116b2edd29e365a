package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"
)

// AuthorizationResponse is what the authorization server sent to the redirect
// URI (RFC 6749 §4.1.2, RFC 9207).
type AuthorizationResponse struct {
	Code  string
	State string
	// Iss is the RFC 9207 issuer; IssPresent tells an empty iss from none.
	Iss        string
	IssPresent bool
	// Error and ErrorDescription report a refused authorization.
	Error            string
	ErrorDescription string
}

// ParseAuthorizationResponse reads the authorization response from the query of
// the URL the authorization server redirected to.
func ParseAuthorizationResponse(redirect string) (*AuthorizationResponse, error) {
	u, err := url.Parse(redirect)
	if err != nil {
		return nil, fmt.Errorf("auth: redirect URL: %w", err)
	}
	q := u.Query()
	return &AuthorizationResponse{
		Code: q.Get("code"), State: q.Get("state"),
		Iss: q.Get("iss"), IssPresent: q.Has("iss"),
		Error: q.Get("error"), ErrorDescription: q.Get("error_description"),
	}, nil
}

// A CodeFetcher takes the user through the authorization URL and returns the
// authorization server's answer: a CLI opens a browser and listens on the
// loopback redirect URI; a test or a headless agent can use HeadlessFetcher.
type CodeFetcher func(ctx context.Context, authURL string) (*AuthorizationResponse, error)

// HeadlessFetcher returns a CodeFetcher for authorization servers that redirect
// at once (no login page): it GETs the authorization URL with client, without
// following the redirect, and reads the answer from the Location header.
func HeadlessFetcher(client *http.Client) CodeFetcher {
	return func(ctx context.Context, authURL string) (*AuthorizationResponse, error) {
		c := *client
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("auth: authorization request: %w", err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return nil, fmt.Errorf("auth: the authorization endpoint answered %d without a redirect", resp.StatusCode)
		}
		return ParseAuthorizationResponse(loc)
	}
}

// AuthorizationCode is the authorization code grant with PKCE (S256), the grant
// of MCP clients acting for a user. The client identity is chosen in the MCP
// specification's order: a pre-registered client for the authorization server,
// then a Client ID Metadata Document when the server accepts one, then Dynamic
// Client Registration.
type AuthorizationCode struct {
	// Clients are pre-registered clients; one whose Issuer matches the
	// authorization server (or is empty) is used first.
	Clients []ClientInfo
	// ClientMetadataURL is the https URL of this client's Client ID Metadata
	// Document; used as client_id where the server advertises support.
	ClientMetadataURL string
	// RedirectURL is the redirect URI (a loopback URL for a native app).
	RedirectURL string
	// ClientName is the client_name sent in Dynamic Client Registration.
	ClientName string
	// Fetch takes the user through the authorization URL.
	Fetch CodeFetcher

	mu         sync.Mutex
	registered map[string]ClientInfo // Dynamic Client Registrations, by issuer
}

// ErrIssuerResponse is returned when the authorization response's iss is
// missing where the server promised it, or names another issuer (RFC 9207).
var ErrIssuerResponse = errors.New("auth: the authorization response's issuer is wrong or missing")

// Token runs the authorization code flow.
func (g *AuthorizationCode) Token(ctx context.Context, r *TokenRequest) (*Issued, error) {
	d, srv := r.Discovery, r.Discovery.Server
	if g.Fetch == nil {
		return nil, errors.New("auth: AuthorizationCode has no CodeFetcher")
	}
	if srv.AuthorizationEndpoint == "" || srv.TokenEndpoint == "" {
		return nil, fmt.Errorf("auth: authorization server %s has no authorization or token endpoint", srv.Issuer)
	}
	if !d.Legacy && !supports(srv.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("auth: authorization server %s does not support PKCE with S256", srv.Issuer)
	}
	client, err := g.client(ctx, r)
	if err != nil {
		return nil, err
	}
	method := client.authMethod(srv)
	cfg := oauth2.Config{
		ClientID:    client.ClientID,
		Endpoint:    oauth2.Endpoint{AuthURL: srv.AuthorizationEndpoint, TokenURL: srv.TokenEndpoint, AuthStyle: authStyle(method)},
		RedirectURL: g.RedirectURL,
		Scopes:      r.Scopes,
	}
	if method == AuthMethodSecretBasic || method == AuthMethodSecretPost {
		cfg.ClientSecret = client.ClientSecret
	}
	state, err := randomString()
	if err != nil {
		return nil, err
	}
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.Resource))
	resp, err := g.Fetch(ctx, authURL)
	if err != nil {
		return nil, err
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("auth: authorization refused: %s %s", resp.Error, resp.ErrorDescription)
	}
	if resp.State != state {
		return nil, errors.New("auth: the authorization response's state does not match")
	}
	// RFC 9207: a present iss must be the issuer, by simple string comparison;
	// an absent one is only acceptable where the server does not promise it.
	if resp.IssPresent && resp.Iss != srv.Issuer {
		return nil, fmt.Errorf("%w: got %q, want %q", ErrIssuerResponse, resp.Iss, srv.Issuer)
	}
	if !resp.IssPresent && srv.AuthorizationResponseIssParameterSupported {
		return nil, fmt.Errorf("%w: %s promised iss and sent none", ErrIssuerResponse, srv.Issuer)
	}
	if resp.Code == "" {
		return nil, errors.New("auth: the authorization response has no code")
	}
	tok, err := cfg.Exchange(withClient(ctx, r.Client), resp.Code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.Resource))
	if err != nil {
		return nil, fmt.Errorf("auth: exchanging the authorization code: %w", err)
	}
	return &Issued{Token: tok, Client: client}, nil
}

// client picks the client identity for the authorization server.
func (g *AuthorizationCode) client(ctx context.Context, r *TokenRequest) (ClientInfo, error) {
	srv := r.Discovery.Server
	for _, c := range g.Clients {
		if c.Issuer == "" || c.Issuer == srv.Issuer {
			return c, nil
		}
	}
	if g.ClientMetadataURL != "" && srv.ClientIDMetadataDocumentSupported && strings.HasPrefix(g.ClientMetadataURL, "https://") {
		return ClientInfo{Issuer: srv.Issuer, ClientID: g.ClientMetadataURL, AuthMethod: AuthMethodNone}, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.registered[srv.Issuer]; ok {
		return c, nil
	}
	if srv.RegistrationEndpoint == "" {
		return ClientInfo{}, fmt.Errorf("auth: no client for authorization server %s: none is pre-registered, it takes no client metadata document URL and has no registration endpoint", srv.Issuer)
	}
	c, err := Register(ctx, r.Client, srv, g.clientMetadata(srv))
	if err != nil {
		return ClientInfo{}, err
	}
	if g.registered == nil {
		g.registered = map[string]ClientInfo{}
	}
	g.registered[srv.Issuer] = c
	return c, nil
}

// ClientMetadata is the body of a Dynamic Client Registration request (RFC 7591
// §2) with the fields MCP clients send.
type ClientMetadata struct {
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// clientMetadata is what the grant registers: a native app (loopback or custom
// scheme redirect) or a web one, asking for refresh tokens too, and a public
// client unless the server takes only secrets.
func (g *AuthorizationCode) clientMetadata(srv *ServerMetadata) ClientMetadata {
	method := AuthMethodNone
	if l := srv.TokenEndpointAuthMethodsSupported; len(l) > 0 && !supports(l, AuthMethodNone) {
		method = AuthMethodSecretPost
		if supports(l, AuthMethodSecretBasic) {
			method = AuthMethodSecretBasic
		}
	}
	name := g.ClientName
	if name == "" {
		name = "mcpkit"
	}
	return ClientMetadata{
		ClientName:              name,
		RedirectURIs:            []string{g.RedirectURL},
		GrantTypes:              []string{GrantAuthorizationCode, GrantRefreshToken},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         applicationType(g.RedirectURL),
	}
}

// applicationType is "native" for a loopback http or custom-scheme redirect URI
// and "web" otherwise (OpenID Connect Dynamic Registration, SEP-837).
func applicationType(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return "native"
	}
	switch u.Scheme {
	case "https":
		return "web"
	case "http":
		h := u.Hostname()
		if ip := net.ParseIP(h); h == "localhost" || (ip != nil && ip.IsLoopback()) {
			return "native"
		}
		return "web"
	}
	return "native"
}

// Register registers a client with the server's registration endpoint (RFC 7591)
// and returns its identity there.
func Register(ctx context.Context, client *http.Client, srv *ServerMetadata, md ClientMetadata) (ClientInfo, error) {
	body, err := json.Marshal(md)
	if err != nil {
		return ClientInfo{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return ClientInfo{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return ClientInfo{}, fmt.Errorf("auth: client registration: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize))
	if err != nil {
		return ClientInfo{}, fmt.Errorf("auth: client registration: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return ClientInfo{}, fmt.Errorf("auth: client registration: %w: %.200s", &errStatus{url: srv.RegistrationEndpoint, status: resp.StatusCode}, data)
	}
	var out struct {
		ClientID                string `json:"client_id"`
		ClientSecret            string `json:"client_secret"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return ClientInfo{}, fmt.Errorf("auth: client registration response: %w", err)
	}
	if out.ClientID == "" {
		return ClientInfo{}, errors.New("auth: the client registration response has no client_id")
	}
	return ClientInfo{Issuer: srv.Issuer, ClientID: out.ClientID, ClientSecret: out.ClientSecret, AuthMethod: out.TokenEndpointAuthMethod}, nil
}

// randomString returns 32 random bytes, base64url-encoded.
func randomString() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("auth: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
