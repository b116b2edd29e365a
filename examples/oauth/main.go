// Command oauth runs an MCP server that requires OAuth access tokens and a
// client that gets one, both in one program:
//
//   - the server: auth/resource's middleware in mcpkit.HTTPOptions.Middleware
//     verifies each request's bearer token (a JWT, against the issuer's keys)
//     and serves the Protected Resource Metadata (RFC 9728) that tells
//     clients where to get a token; a tool reads who called it with
//     transport.PrincipalFrom and resource.TokenInfoFrom;
//   - the client: an auth.Transport as the HTTP client's RoundTripper answers
//     the server's 401 by itself (discovery, then a token by the client
//     credentials grant) and retries.
//
// It needs an authorization server: any OAuth 2.1 one that issues JWT access
// tokens to a client with a secret (examples_test.go starts auth/authtest's).
//
//	go run ./examples/oauth -issuer https://auth.example.com -client-id ID -client-secret SECRET
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

func main() {
	issuer := flag.String("issuer", "", "the authorization server's issuer URL (required)")
	clientID := flag.String("client-id", "", "the client's id at the authorization server")
	secret := flag.String("client-secret", "", "the client's secret")
	flag.Parse()
	if *issuer == "" {
		log.Fatal("-issuer is required: the URL of an OAuth authorization server")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	origin := "http://" + ln.Addr().String() // the resource identifier tokens must name
	protect, err := protection(ctx, *issuer, origin)
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, newServer(), &mcpkit.HTTPOptions{Middleware: protect}) }()

	err = callAnonymously(ctx, origin+"/mcp")
	if err == nil {
		err = callWithToken(ctx, origin+"/mcp", *clientID, *secret)
	}
	stop()
	if serr := <-served; err == nil {
		err = serr
	}
	if err != nil {
		log.Fatal(err)
	}
}

// newServer has one tool, whoami, which reports the caller the token names.
func newServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "protected", Version: "1"}, nil)
	type none struct{}
	err := mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Says who the access token names."},
		func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
			info := resource.TokenInfoFrom(ctx)
			return fmt.Sprintf("principal %s, client %s, scopes [%s]", transport.PrincipalFrom(ctx), info.ClientID, strings.Join(info.Scopes, " ")), nil
		})
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// protection returns the middleware that requires tokens issued by issuer for
// the resource origin, and serves the resource's metadata at its well-known
// paths. The issuer's keys are found through its metadata, fetched now.
func protection(ctx context.Context, issuer, origin string) (func(http.Handler) http.Handler, error) {
	v, err := resource.DiscoverVerifier(ctx, &http.Client{Timeout: 10 * time.Second}, issuer, origin)
	if err != nil {
		return nil, err
	}
	mdURL, err := resource.MetadataURL(origin)
	if err != nil {
		return nil, err
	}
	mdPath, err := resource.MetadataPath(origin)
	if err != nil {
		return nil, err
	}
	metadata := resource.MetadataHandler(&auth.ProtectedResourceMetadata{
		Resource:             origin,
		AuthorizationServers: []string{v.Issuer},
		ResourceName:         "oauth example",
	})
	protect := resource.Middleware(resource.Options{Verifier: v, ResourceMetadataURL: mdURL})
	return func(next http.Handler) http.Handler {
		protected := protect(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == mdPath || strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
				metadata.ServeHTTP(w, r) // the metadata needs no token
				return
			}
			protected.ServeHTTP(w, r)
		})
	}, nil
}

// callAnonymously shows the server refusing a client without a token.
func callAnonymously(ctx context.Context, url string) error {
	c := mcp.NewClient(mcp.Implementation{Name: "anonymous", Version: "1"}, nil)
	_, err := mcpkit.ConnectURL(ctx, c, url, &mcpkit.ConnectOptions{NoFallback: true})
	var status *streamable.StatusError
	if !errors.As(err, &status) || status.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("without a token: %v, want 401", err)
	}
	fmt.Println("without a token: 401 Unauthorized")
	return nil
}

// callWithToken connects with an auth.Transport, which gets a token when the
// server asks for one, and calls whoami.
func callWithToken(ctx context.Context, url, clientID, secret string) error {
	tr := &auth.Transport{Grant: &auth.ClientCredentials{ClientID: clientID, ClientSecret: secret}}
	c := mcp.NewClient(mcp.Implementation{Name: "oauth-example", Version: "1"}, nil)
	cs, err := mcpkit.ConnectURL(ctx, c, url, &mcpkit.ConnectOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		return err
	}
	defer cs.Close()
	fmt.Println("with auth.Transport: connected, token from", tr.Discovery().Server.Issuer)
	res, err := cs.CallTool(ctx, "whoami", nil)
	if err != nil {
		return err
	}
	fmt.Println("whoami:", res.Content[0].Text)
	return nil
}
