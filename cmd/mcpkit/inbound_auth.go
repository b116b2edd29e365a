package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// inboundAuthFlags make `mcpkit serve --http` and `mcpkit gateway --http` an
// OAuth protected resource: every request to the MCP endpoints needs an access
// token — a JWT from the authorization server --auth-issuer names, addressed to
// this server, or any token that server's introspection endpoint accepts — or
// one of the static tokens of --auth-token-file / $MCPKIT_AUTH_TOKENS. The
// principal (transport.PrincipalFrom) is the token's issuer#subject, or
// "token#NAME" for a static token.
type inboundAuthFlags struct {
	issuer        string
	audience      string
	scopes        []string
	introspection string
	dpop          bool
	tokenFile     string
	// resourceName names the server in its Protected Resource Metadata.
	resourceName string
	// envTokens and envIntrospection are the secrets of the environment, read
	// (and removed, so that the servers a gateway starts do not inherit them)
	// when the command starts.
	envTokens, envIntrospection string
}

// authTokensEnv holds static tokens (NAME:TOKEN, comma-separated) when no
// --auth-token-file is given: an environment variable so they do not show in ps.
const authTokensEnv = "MCPKIT_AUTH_TOKENS"

// introspectionClientEnv holds CLIENT_ID:SECRET, which authenticate this server
// at the introspection endpoint.
const introspectionClientEnv = "MCPKIT_AUTH_INTROSPECTION_CLIENT"

// metadataFetchTimeout bounds each request to the authorization server: its
// metadata at start-up, its key set later.
const metadataFetchTimeout = 10 * time.Second

// register adds the flags to cmd, and a check that they come with --http.
func (a *inboundAuthFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&a.issuer, "auth-issuer", "", "with --http: require OAuth access tokens (JWTs) issued by this authorization server (its issuer URL; its keys are found through its metadata)")
	fs.StringVar(&a.audience, "auth-audience", "", "with --auth-issuer: this server's resource identifier, which tokens must name in aud (default: the served origin, http://ADDR)")
	fs.StringSliceVar(&a.scopes, "auth-scopes", nil, "with --auth-issuer or static tokens: the scopes every request needs (comma-separated)")
	fs.StringVar(&a.introspection, "auth-introspection", "", "with --auth-issuer: verify tokens at this introspection endpoint (RFC 7662) instead of as JWTs; $"+introspectionClientEnv+" holds CLIENT_ID:SECRET")
	fs.BoolVar(&a.dpop, "auth-dpop", false, "with --auth-issuer: also accept DPoP-bound tokens (RFC 9449) with their proofs")
	fs.StringVar(&a.tokenFile, "auth-token-file", "", "with --http: also accept the static bearer tokens of this file, one NAME:TOKEN [SCOPE ...] a line (default: $"+authTokensEnv+", NAME:TOKEN comma-separated); the principal is token#NAME")
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if prev != nil {
			if err := prev(cmd, args); err != nil {
				return err
			}
		}
		a.envTokens, a.envIntrospection = os.Getenv(authTokensEnv), os.Getenv(introspectionClientEnv)
		_ = os.Unsetenv(authTokensEnv)
		_ = os.Unsetenv(introspectionClientEnv)
		httpAddr, _ := cmd.Flags().GetString("http")
		host, _, _ := net.SplitHostPort(httpAddr)
		static := a.tokenFile != "" || (a.envTokens != "" && httpAddr != "")
		switch ip := net.ParseIP(host); {
		case a.issuer != "" && httpAddr == "":
			return errors.New("--auth-issuer needs --http: on stdio there are no tokens to check")
		case a.tokenFile != "" && httpAddr == "":
			return errors.New("--auth-token-file needs --http: on stdio there are no tokens to check")
		case a.issuer == "" && (a.audience != "" || a.introspection != "" || a.dpop):
			return errors.New("--auth-audience, --auth-introspection and --auth-dpop need --auth-issuer")
		case a.issuer == "" && !static && len(a.scopes) > 0:
			return errors.New("--auth-scopes need --auth-issuer or static tokens")
		case a.issuer != "" && a.audience == "" && ip != nil && ip.IsUnspecified():
			return fmt.Errorf("--auth-issuer on all interfaces (--http %s) needs --auth-audience: the URL clients reach this server by", httpAddr)
		}
		return nil
	}
}

// staticTokens reads --auth-token-file, else $MCPKIT_AUTH_TOKENS (nil when
// neither is set). Errors name the source, never a token.
func (a *inboundAuthFlags) staticTokens() (*resource.StaticVerifier, error) {
	src, text := "$"+authTokensEnv, a.envTokens
	if a.tokenFile != "" {
		b, err := os.ReadFile(a.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--auth-token-file: %w", err)
		}
		src, text = "--auth-token-file "+a.tokenFile, string(b)
	}
	if text == "" {
		return nil, nil
	}
	tokens, err := resource.ParseStaticTokens(text, a.scopes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	v, err := resource.NewStaticVerifier(tokens)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	return v, nil
}

// middleware returns what puts the handler of /mcp, /sse and /messages behind
// the resource server when --auth-issuer or static tokens are set (and a
// pass-through otherwise). publicURL is the served origin (http://host:port),
// the default resource identifier: one identifier covers both transports, so
// that a client of either finds metadata naming a resource its URL lies under.
// The key set's URL comes from the issuer's metadata, fetched now: an
// unreachable authorization server is an error at start-up rather than a 401
// on every request.
//
// The Protected Resource Metadata is served at its RFC 9728 path (derived from
// the resource identifier), at the root well-known path and at the
// path-suffixed forms for /mcp and /sse, where clients of either transport look
// for it. With static tokens only there is no authorization server to name, so
// no metadata either: the challenge is a plain Bearer one.
func (a *inboundAuthFlags) middleware(ctx context.Context, publicURL string) (func(http.Handler) http.Handler, error) {
	static, err := a.staticTokens()
	if err != nil {
		return nil, err
	}
	if a.issuer == "" && static == nil {
		return func(next http.Handler) http.Handler { return next }, nil
	}
	var verifiers []resource.TokenVerifier
	if static != nil {
		verifiers = append(verifiers, static)
		fmt.Fprintln(os.Stderr, "mcpkit: accepting the configured static bearer tokens")
	}
	opts := resource.Options{Scopes: a.scopes, DPoP: a.dpop}
	if a.issuer == "" {
		opts.Verifier = resource.FirstOf(verifiers...)
		return resource.Middleware(opts), nil
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
	if a.introspection != "" {
		id, secret, _ := strings.Cut(a.envIntrospection, ":")
		verifiers = append(verifiers, &resource.IntrospectionVerifier{
			Endpoint: a.introspection, ClientID: id, ClientSecret: secret,
			Issuer: v.Issuer, Audience: res, HTTPClient: client,
		})
	} else {
		verifiers = append(verifiers, v)
	}
	mdPath, err := resource.MetadataPath(res)
	if err != nil {
		return nil, err
	}
	mdURL, err := resource.MetadataURL(res)
	if err != nil {
		return nil, err
	}
	name := a.resourceName
	if name == "" {
		name = "mcpkit demo server"
	}
	md := resource.MetadataHandler(&auth.ProtectedResourceMetadata{
		Resource:               res,
		AuthorizationServers:   []string{v.Issuer},
		ScopesSupported:        a.scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           name,
	})
	const wellKnown = "/.well-known/oauth-protected-resource"
	mdPaths := map[string]bool{mdPath: true, wellKnown: true, wellKnown + "/mcp": true, wellKnown + "/sse": true}
	opts.Verifier = resource.FirstOf(verifiers...)
	opts.ResourceMetadataURL = mdURL
	protect := resource.Middleware(opts)
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
func (a *inboundAuthFlags) resource(publicURL string) (string, error) {
	if a.audience != "" {
		res, err := auth.CanonicalResource(a.audience)
		if err != nil {
			return "", fmt.Errorf("--auth-audience: %w", err)
		}
		return res, nil
	}
	return auth.CanonicalResource(publicURL)
}
