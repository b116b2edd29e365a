package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Discovery is what a client learns about a protected MCP server before it asks
// for a token.
type Discovery struct {
	// ServerURL is the MCP server's URL.
	ServerURL string
	// Resource is the RFC 8707 resource indicator to send: the Protected Resource
	// Metadata's resource, verbatim, or the canonical server URL in legacy mode.
	Resource string
	// ResourceMetadata is the Protected Resource Metadata; nil in legacy mode.
	ResourceMetadata *ProtectedResourceMetadata
	// Server is the authorization server's metadata. In legacy mode without a
	// metadata document it holds the default endpoints of the 2025-03-26 spec.
	Server *ServerMetadata
	// Legacy is set when the server publishes no Protected Resource Metadata and
	// the 2025-03-26 rules applied: the authorization server is the MCP server's
	// origin.
	Legacy bool
	// ServerMetadataFound is false when, in legacy mode, no metadata document was
	// found and the default endpoints are used.
	ServerMetadataFound bool
}

// ErrResourceMismatch is returned when a Protected Resource Metadata document
// names a resource that the MCP server's URL does not belong to.
var ErrResourceMismatch = errors.New("auth: the protected resource metadata names another resource")

// ErrIssuerMismatch is returned when no authorization server metadata document
// names the issuer it was looked up for (RFC 8414 §3.3).
var ErrIssuerMismatch = errors.New("auth: the authorization server metadata names another issuer")

// Discover finds the Protected Resource Metadata of the MCP server at serverURL
// (from the challenge's resource_metadata, then the path and root well-known
// URLs; RFC 9728) and the metadata of its first authorization server (RFC 8414
// and OpenID Connect discovery). When the server publishes no resource metadata
// it falls back to the 2025-03-26 rules. client makes the requests.
func Discover(ctx context.Context, client *http.Client, serverURL string, challenge Challenge) (*Discovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil || su.Scheme == "" || su.Host == "" {
		return nil, fmt.Errorf("auth: server URL %q is not absolute", serverURL)
	}
	d := &Discovery{ServerURL: serverURL}
	prm, err := fetchResourceMetadata(ctx, client, su, challenge.Param("resource_metadata"))
	if err != nil {
		return nil, err
	}
	if prm == nil {
		return discoverLegacy(ctx, client, su, d)
	}
	if !ResourceAllowed(prm.Resource, serverURL) {
		return nil, fmt.Errorf("%w: %q for %s", ErrResourceMismatch, prm.Resource, serverURL)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("auth: the protected resource metadata names no authorization server")
	}
	d.ResourceMetadata, d.Resource = prm, prm.Resource
	d.Server, err = DiscoverServer(ctx, client, prm.AuthorizationServers[0])
	if err != nil {
		return nil, err
	}
	d.ServerMetadataFound = true
	return d, nil
}

// fetchResourceMetadata tries the Protected Resource Metadata candidates in order
// and returns the first document found, or nil when there is none. The root URL is
// only tried when the challenge's URL and the path form both failed. When none is
// found and a candidate could not be fetched for a reason that may pass
// (Transient), that is the error.
func fetchResourceMetadata(ctx context.Context, client *http.Client, su *url.URL, fromChallenge string) (*ProtectedResourceMetadata, error) {
	var candidates []string
	if fromChallenge != "" {
		if ref, err := su.Parse(fromChallenge); err == nil && (ref.Scheme == "https" || ref.Scheme == "http") {
			candidates = append(candidates, ref.String())
		}
	}
	candidates = append(candidates, protectedResourceURLs(su)...)
	var failed error // the first failure that may pass
	for _, u := range candidates {
		data, err := getJSON(ctx, client, u)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("auth: fetching protected resource metadata: %w", ctx.Err())
			}
			if failed == nil && Transient(err) {
				failed = err
			}
			continue
		}
		prm, err := ParseProtectedResourceMetadata(data)
		if err != nil {
			continue
		}
		return prm, nil
	}
	if failed != nil {
		// Not a server without metadata: one that could not be asked. The
		// 2025-03-26 rules would send the flow astray.
		return nil, fmt.Errorf("auth: fetching protected resource metadata: %w", failed)
	}
	return nil, nil
}

// DiscoverServer fetches the metadata of the authorization server issuer, trying
// the well-known URLs in the MCP specification's order, and accepts the first
// document whose issuer is issuer (RFC 8414 §3.3). A document that names another
// issuer is never used.
func DiscoverServer(ctx context.Context, client *http.Client, issuer string) (*ServerMetadata, error) {
	urls, err := serverMetadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, u := range urls {
		data, err := getJSON(ctx, client, u)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("auth: fetching authorization server metadata: %w", ctx.Err())
			}
			errs = append(errs, err)
			continue
		}
		m, err := ParseServerMetadata(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		if !sameIssuer(m.Issuer, issuer) {
			errs = append(errs, fmt.Errorf("%w: %s says %q, want %q", ErrIssuerMismatch, u, m.Issuer, issuer))
			continue
		}
		return m, nil
	}
	return nil, fmt.Errorf("auth: no metadata for authorization server %s: %w", issuer, errors.Join(errs...))
}

// discoverLegacy applies the 2025-03-26 rules: the authorization server is the
// MCP server's origin; its metadata is at the origin's well-known URL (the issuer
// it names is not checked: servers of that era often named another), and without
// one the endpoints are /authorize, /token and /register.
func discoverLegacy(ctx context.Context, client *http.Client, su *url.URL, d *Discovery) (*Discovery, error) {
	origin := su.Scheme + "://" + su.Host
	res, err := CanonicalResource(su.String())
	if err != nil {
		return nil, err
	}
	d.Legacy, d.Resource = true, res
	data, err := getJSON(ctx, client, origin+"/.well-known/oauth-authorization-server")
	if err == nil {
		if m, perr := ParseServerMetadata(data); perr == nil {
			d.Server, d.ServerMetadataFound = m, true
			return d, nil
		}
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("auth: fetching authorization server metadata: %w", ctx.Err())
	}
	if Transient(err) {
		return nil, fmt.Errorf("auth: fetching authorization server metadata: %w", err)
	}
	d.Server = &ServerMetadata{
		Issuer:                        origin,
		AuthorizationEndpoint:         origin + "/authorize",
		TokenEndpoint:                 origin + "/token",
		RegistrationEndpoint:          origin + "/register",
		CodeChallengeMethodsSupported: []string{"S256"},
	}
	return d, nil
}

// errStatus reports a URL that answered a status other than the one expected.
type errStatus struct {
	url    string
	status int
}

func (e *errStatus) Error() string { return fmt.Sprintf("%s answered %d", e.url, e.status) }

// getJSON GETs u and returns the body of a 200 answer (at most maxMetadataSize).
func getJSON(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, &errStatus{url: u, status: resp.StatusCode}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(strings.ToLower(ct), "json") {
		return nil, fmt.Errorf("auth: %s answered %s, not JSON", u, ct)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize+1))
	if err != nil {
		return nil, fmt.Errorf("auth: reading %s: %w", u, err)
	}
	if len(data) > maxMetadataSize {
		return nil, fmt.Errorf("auth: %s: the document exceeds %d bytes", u, maxMetadataSize)
	}
	return data, nil
}
