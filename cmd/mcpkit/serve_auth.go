package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// serveAuthFlags make `mcpkit serve --http` an OAuth protected resource: every
// request to the MCP endpoints needs an access token (a JWT) from the
// authorization server --auth-issuer names, addressed to this server.
type serveAuthFlags struct {
	issuer   string
	audience string
	scopes   []string
}

// metadataFetchTimeout bounds each request to the authorization server: its
// metadata at start-up, its key set later.
const metadataFetchTimeout = 10 * time.Second

// register adds the flags to cmd, and a check that they come with --http.
func (a *serveAuthFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&a.issuer, "auth-issuer", "", "with --http: require OAuth access tokens (JWTs) issued by this authorization server (its issuer URL; its keys are found through its metadata)")
	fs.StringVar(&a.audience, "auth-audience", "", "with --auth-issuer: this server's resource identifier, which tokens must name in aud (default: the served origin, http://ADDR)")
	fs.StringSliceVar(&a.scopes, "auth-scopes", nil, "with --auth-issuer: the scopes every request needs (comma-separated)")
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if prev != nil {
			if err := prev(cmd, args); err != nil {
				return err
			}
		}
		httpAddr, _ := cmd.Flags().GetString("http")
		host, _, _ := net.SplitHostPort(httpAddr)
		switch ip := net.ParseIP(host); {
		case a.issuer != "" && httpAddr == "":
			return errors.New("--auth-issuer needs --http: on stdio there are no tokens to check")
		case a.issuer == "" && (a.audience != "" || len(a.scopes) > 0):
			return errors.New("--auth-audience and --auth-scopes need --auth-issuer")
		case a.issuer != "" && a.audience == "" && ip != nil && ip.IsUnspecified():
			return fmt.Errorf("--auth-issuer on all interfaces (--http %s) needs --auth-audience: the URL clients reach this server by", httpAddr)
		}
		return nil
	}
}

// middleware returns what puts the handler of /mcp, /sse and /messages behind
// the resource server when --auth-issuer is set (and a pass-through
// otherwise). publicURL is the served origin (http://host:port), the default
// resource identifier: one identifier covers both transports, so that a client
// of either finds metadata naming a resource its URL lies under. The key set's
// URL comes from the issuer's metadata, fetched now: an unreachable
// authorization server is an error at start-up rather than a 401 on every
// request.
//
// The Protected Resource Metadata is served at its RFC 9728 path (derived from
// the resource identifier), at the root well-known path and at the
// path-suffixed forms for /mcp and /sse, where clients of either transport look
// for it.
func (a *serveAuthFlags) middleware(ctx context.Context, publicURL string) (func(http.Handler) http.Handler, error) {
	if a.issuer == "" {
		return func(next http.Handler) http.Handler { return next }, nil
	}
	res, err := a.resource(publicURL)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: metadataFetchTimeout}
	v, err := resource.DiscoverVerifier(ctx, client, a.issuer, res)
	if err != nil {
		return nil, fmt.Errorf("--auth-issuer %s: %w", a.issuer, err)
	}
	mdPath, err := resource.MetadataPath(res)
	if err != nil {
		return nil, err
	}
	mdURL, err := resource.MetadataURL(res)
	if err != nil {
		return nil, err
	}
	md := resource.MetadataHandler(&auth.ProtectedResourceMetadata{
		Resource:               res,
		AuthorizationServers:   []string{v.Issuer},
		ScopesSupported:        a.scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcpkit demo server",
	})
	const wellKnown = "/.well-known/oauth-protected-resource"
	mdPaths := map[string]bool{mdPath: true, wellKnown: true, wellKnown + "/mcp": true, wellKnown + "/sse": true}
	protect := resource.Middleware(resource.Options{
		Verifier:            v,
		ResourceMetadataURL: mdURL,
		Scopes:              a.scopes,
	})
	fmt.Fprintf(os.Stderr, "mcpkit: requiring OAuth access tokens issued by %s for %s (resource metadata: %s)\n", v.Issuer, res, mdURL)
	return func(next http.Handler) http.Handler {
		protected := protect(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if mdPaths[r.URL.Path] {
				md.ServeHTTP(w, r)
				return
			}
			protected.ServeHTTP(w, r)
		})
	}, nil
}

// resource is the resource identifier tokens must name: --auth-audience, or
// the served origin (the flags' check makes sure that is not an address on all
// interfaces, which no client uses).
func (a *serveAuthFlags) resource(publicURL string) (string, error) {
	if a.audience != "" {
		res, err := auth.CanonicalResource(a.audience)
		if err != nil {
			return "", fmt.Errorf("--auth-audience: %w", err)
		}
		return res, nil
	}
	return auth.CanonicalResource(publicURL)
}
