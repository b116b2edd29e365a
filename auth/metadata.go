package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// ProtectedResourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728 §2), as an MCP server publishes it.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier: the MCP server's canonical URI.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuers of the authorization servers that
	// issue tokens for the resource.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// JWKSURI is the resource's own key set (rarely used).
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported are the scopes the resource understands.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported says how tokens may be presented ("header").
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is a URL of documentation for people.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// DPoPSigningAlgValuesSupported lists the DPoP proof algorithms the resource
	// accepts (RFC 9449 §5.2).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// DPoPBoundAccessTokensRequired says the resource takes only DPoP-bound tokens.
	DPoPBoundAccessTokensRequired bool `json:"dpop_bound_access_tokens_required,omitempty"`
}

// ServerMetadata is an OAuth 2.0 Authorization Server Metadata document (RFC
// 8414 §2), or the OAuth part of an OpenID Connect discovery document.
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	IntrospectionEndpoint                      string   `json:"introspection_endpoint,omitempty"`
	RevocationEndpoint                         string   `json:"revocation_endpoint,omitempty"`
	// ClientIDMetadataDocumentSupported says the server accepts an https URL of a
	// Client ID Metadata Document as client_id.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says the server adds iss to its
	// authorization responses (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists the DPoP proof algorithms the server
	// accepts (RFC 9449 §5.1).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// Supports reports whether list holds v; an absent list supports nothing.
func supports(list []string, v string) bool { return slices.Contains(list, v) }

// maxMetadataSize bounds the metadata documents read from the network.
const maxMetadataSize = 1 << 20

// ParseProtectedResourceMetadata decodes and checks a Protected Resource
// Metadata document: resource must be an absolute http(s) URL without a
// fragment, and every authorization server an absolute http(s) URL.
func ParseProtectedResourceMetadata(data []byte) (*ProtectedResourceMetadata, error) {
	var m ProtectedResourceMetadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("auth: protected resource metadata: %w", err)
	}
	if err := checkHTTPURL(m.Resource, "resource"); err != nil {
		return nil, fmt.Errorf("auth: protected resource metadata: %w", err)
	}
	for _, as := range m.AuthorizationServers {
		if err := checkHTTPURL(as, "authorization server"); err != nil {
			return nil, fmt.Errorf("auth: protected resource metadata: %w", err)
		}
	}
	return &m, nil
}

// ParseServerMetadata decodes and checks an authorization server metadata
// document: issuer and every endpoint must be absolute http(s) URLs, and the
// issuer has neither query nor fragment (RFC 8414 §2). It does not compare the
// issuer with the one the document was looked up for; see DiscoverServer.
func ParseServerMetadata(data []byte) (*ServerMetadata, error) {
	var m ServerMetadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("auth: authorization server metadata: %w", err)
	}
	if err := checkHTTPURL(m.Issuer, "issuer"); err != nil {
		return nil, fmt.Errorf("auth: authorization server metadata: %w", err)
	}
	if u, _ := url.Parse(m.Issuer); u.RawQuery != "" || u.ForceQuery {
		return nil, errors.New("auth: authorization server metadata: the issuer has a query")
	}
	for name, v := range map[string]string{
		"authorization_endpoint": m.AuthorizationEndpoint,
		"token_endpoint":         m.TokenEndpoint,
		"registration_endpoint":  m.RegistrationEndpoint,
		"jwks_uri":               m.JWKSURI,
	} {
		if v == "" {
			continue
		}
		if err := checkHTTPURL(v, name); err != nil {
			return nil, fmt.Errorf("auth: authorization server metadata: %w", err)
		}
	}
	return &m, nil
}

// checkHTTPURL checks that s is an absolute http or https URL with a host and no
// fragment.
func checkHTTPURL(s, what string) error {
	if s == "" {
		return fmt.Errorf("%s is missing", what)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, s, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" || strings.Contains(s, "#") {
		return fmt.Errorf("%s %q is not an absolute http(s) URL without a fragment", what, s)
	}
	return nil
}

// ResourceAllowed reports whether the resource a Protected Resource Metadata
// document names may stand for the server at serverURL: it has the same origin,
// and serverURL's path lies at or below the resource's path (RFC 9728 §3.3, in the
// prefix form MCP clients apply).
func ResourceAllowed(resource, serverURL string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(serverURL)
	if err1 != nil || err2 != nil {
		return false
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(hostPort(r), hostPort(s)) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/") + "/"
	sp := strings.TrimSuffix(s.EscapedPath(), "/") + "/"
	return strings.HasPrefix(sp, rp)
}

// hostPort is u's host with the scheme's default port made explicit.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Host + ":443"
	case "http":
		return u.Host + ":80"
	}
	return u.Host
}

// CanonicalResource is the canonical URI of the MCP server at serverURL (RFC 8707
// and the MCP authorization spec): scheme and host lower-cased, no fragment, no
// query, no trailing slash unless the path is just "/".
func CanonicalResource(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("auth: server URL: %w", err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("auth: server URL %q is not absolute", serverURL)
	}
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	s := c.String()
	if len(c.Path) > 1 {
		s = strings.TrimSuffix(s, "/")
	}
	return s, nil
}

// protectedResourceURLs lists the places to look for the Protected Resource
// Metadata of the server at serverURL when no challenge named one: the path form
// (when the URL has a path), then the root (RFC 9728 §3.1).
func protectedResourceURLs(serverURL *url.URL) []string {
	const wk = "/.well-known/oauth-protected-resource"
	origin := serverURL.Scheme + "://" + serverURL.Host
	var out []string
	if p := strings.TrimSuffix(serverURL.EscapedPath(), "/"); p != "" {
		out = append(out, origin+wk+p)
	}
	return append(out, origin+wk)
}

// serverMetadataURLs lists where to look for the metadata of issuer, in the order
// the MCP specification gives: OAuth with path insertion, OpenID Connect with
// path insertion, OpenID Connect with path appending; for an issuer without a
// path, OAuth then OpenID Connect at the root.
func serverMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, fmt.Errorf("auth: issuer: %w", err)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}, nil
}

// sameIssuer compares a metadata document's issuer with the issuer it was looked
// up for: exactly, except that one trailing slash on either side is ignored.
func sameIssuer(got, want string) bool {
	return got == want || strings.TrimSuffix(got, "/") == strings.TrimSuffix(want, "/")
}
