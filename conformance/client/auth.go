package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/mcp"
)

// The client identity the auth scenarios expect: the redirect URI (nothing listens
// there: the test authorization server redirects at once and the client reads the
// code from the Location header) and the Client ID Metadata Document URL.
const (
	authRedirectURL       = "http://localhost:3000/callback"
	authClientMetadataURL = "https://conformance-test.local/client-metadata.json"
)

// authContext is the part of MCP_CONFORMANCE_CONTEXT the auth scenarios use.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPIssuer        string `json:"idp_issuer"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
}

// isAuthScenario reports whether name is one of the suite's OAuth scenarios
// (auth/...): each runs against a protected server, and the client authorizes
// with the grant authGrant picks.
func isAuthScenario(name string) bool { return strings.HasPrefix(name, "auth/") }

// authGrant chooses how the client obtains tokens in the named auth scenario:
// the client credentials grant, enterprise-managed authorization or a workload
// identity JWT where the scenario is about those, and otherwise the
// authorization code flow, with the pre-registered client the context may give.
func authGrant(name string, ac *authContext) (auth.Grant, error) {
	base := strings.TrimPrefix(name, "auth/")
	switch {
	case strings.HasPrefix(base, "client-credentials"):
		g := &auth.ClientCredentials{ClientID: ac.ClientID, ClientSecret: ac.ClientSecret, SigningAlgorithm: ac.SigningAlgorithm}
		if ac.PrivateKeyPEM != "" {
			key, err := auth.ParsePrivateKeyPEM([]byte(ac.PrivateKeyPEM))
			if err != nil {
				return nil, err
			}
			g.PrivateKey = key
		}
		return g, nil
	case base == "cross-app-access-complete-flow" || base == "enterprise-managed-authorization":
		return &auth.Enterprise{
			IDPTokenEndpoint: ac.IDPTokenEndpoint,
			IDPClientID:      ac.IDPClientID,
			IDToken:          func(context.Context) (string, error) { return ac.IDPIDToken, nil },
			ClientID:         ac.ClientID,
			ClientSecret:     ac.ClientSecret,
		}, nil
	case strings.HasPrefix(base, "wif-"):
		return &auth.JWTBearer{
			ClientID:  ac.ClientID,
			Assertion: func(context.Context) (string, error) { return ac.ValidJWT, nil },
		}, nil
	}
	g := &auth.AuthorizationCode{
		ClientMetadataURL: authClientMetadataURL,
		RedirectURL:       authRedirectURL,
		ClientName:        "mcpkit-conformance-client",
		Fetch:             auth.HeadlessFetcher(http.DefaultClient),
	}
	if ac.ClientID != "" {
		g.Clients = []auth.ClientInfo{{ClientID: ac.ClientID, ClientSecret: ac.ClientSecret}}
	}
	return g, nil
}

// authHTTPClient returns the HTTP client of an auth scenario: every request goes
// through an auth.Transport with the scenario's grant, and DPoP is used where the
// authorization server offers it.
func authHTTPClient(name string, ac *authContext, logger *slog.Logger) (*http.Client, error) {
	grant, err := authGrant(name, ac)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &http.Client{Transport: &auth.Transport{Grant: grant, DPoP: true, Logger: logger}}, nil
}

// playAuth is what the client does in every auth scenario once connected: list
// the tools and call test-tool, as the suite's reference client does. Some
// scenarios finish their checks only on the second authorized request.
func playAuth(ctx context.Context, cs *mcp.ClientSession, _ *scenarioContext) error {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	res, err := cs.CallTool(ctx, "test-tool", nil)
	if err != nil {
		return fmt.Errorf("calling test-tool: %w", err)
	}
	if res.IsError {
		return fmt.Errorf("test-tool failed: %s", contentText(res.Content))
	}
	return nil
}
