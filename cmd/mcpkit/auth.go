package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/tokenstore"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// authFlags are the flags of the auth commands.
type authFlags struct {
	url     string
	oauth   oauthFlags
	timeout time.Duration
}

// newAuthCmd is "mcpkit auth": log in to a protected server, show the stored
// token's state, log out. Tokens are kept under the user's configuration
// directory (tokenstore.DefaultDir), one file per authorization server and
// server, readable by the user only.
func newAuthCmd() *cobra.Command {
	f := &authFlags{}
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in to OAuth-protected MCP servers and manage the stored tokens",
		Example: `  mcpkit auth login --url https://mcp.example.com/mcp
  mcpkit auth status --url https://mcp.example.com/mcp
  mcpkit auth logout --url https://mcp.example.com/mcp`,
	}
	cmd.PersistentFlags().StringVar(&f.url, "url", "", "the protected MCP server's URL (required)")
	login := &cobra.Command{
		Use:   "login",
		Short: "Authorize with the server's authorization server and store the token",
		Long: `Authorize with the server's authorization server and store the token.

The browser opens at the authorization page (its URL is printed too); the
authorization server sends the browser back to a listener on 127.0.0.1. With
--oauth-client-credentials the client authorizes as itself, without a browser.`,
		Example: `  mcpkit auth login --url https://mcp.example.com/mcp
  mcpkit auth login --url https://mcp.example.com/mcp --client-id my-app --oauth-port 8976
  mcpkit auth login --url https://mcp.example.com/mcp --oauth-client-credentials --client-id svc --client-secret "$SECRET"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return authLogin(cmd.Context(), f, cmd.ErrOrStderr(), cmd.OutOrStdout())
		},
	}
	f.oauth.register(login.Flags())
	// --port was auth login's name for --oauth-port: still accepted, not shown.
	login.Flags().IntVar(&f.oauth.port, "port", 0, "the old name of --oauth-port")
	_ = login.Flags().MarkHidden("port")
	login.Flags().DurationVar(&f.timeout, "wait", 5*time.Minute, "how long to wait for the authorization")
	status := &cobra.Command{
		Use:     "status",
		Short:   "Show the stored token for the server (never the token itself)",
		Example: `  mcpkit auth status --url https://mcp.example.com/mcp`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return authStatus(cmd.Context(), f, cmd.OutOrStdout()) },
	}
	logout := &cobra.Command{
		Use:     "logout",
		Short:   "Forget the stored token for the server",
		Example: `  mcpkit auth logout --url https://mcp.example.com/mcp`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return authLogout(cmd.Context(), f, cmd.OutOrStdout()) },
	}
	cmd.AddCommand(login, status, logout)
	return cmd
}

// fileStore is the token store of the CLI.
func fileStore() (*tokenstore.File, error) {
	dir, err := tokenstore.DefaultDir()
	if err != nil {
		return nil, err
	}
	return &tokenstore.File{Dir: dir}, nil
}

func authLogin(ctx context.Context, f *authFlags, stderr, stdout io.Writer) error {
	if f.url == "" {
		return errors.New("--url is required")
	}
	tr, cleanup, err := authTransport(&f.oauth, stderr, nil, 0)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	conn, err := mcpkit.Dial(ctx, mcpkit.Target{URL: f.url}, &mcpkit.DialOptions{
		HTTPClient: &http.Client{Transport: tr},
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "mcpkit", Version: clientVersion()}, &mcp.ClientOptions{Logger: slog.New(slog.DiscardHandler)}).Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("connecting to %s: %w", f.url, err)
	}
	_ = cs.Close()
	d := tr.Discovery()
	if d == nil {
		fmt.Fprintf(stdout, "%s did not ask for authorization\n", f.url)
		return nil
	}
	fmt.Fprintf(stdout, "logged in to %s (authorization server %s)\n", d.Resource, d.Server.Issuer)
	return nil
}

// discoverURL finds the authorization server of the server at rawURL from its
// challenge to an unauthenticated request.
func discoverURL(ctx context.Context, rawURL string) (*auth.Discovery, error) {
	req, err := pingRequest(ctx, rawURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	var ch auth.Challenge
	for _, c := range auth.ChallengesOf(resp) {
		if c.Is("Bearer") || c.Is("DPoP") {
			ch = c
			break
		}
	}
	if ch.Scheme == "" && resp.StatusCode != http.StatusUnauthorized {
		return nil, fmt.Errorf("%w: %s answered %s without asking for a token", errNotProtected, rawURL, resp.Status)
	}
	return auth.Discover(ctx, http.DefaultClient, rawURL, ch)
}

// errNotProtected: the server answered a request without a token and did not
// ask for one, so it names no authorization server.
var errNotProtected = errors.New("the server does not ask for authorization")

func storedFor(ctx context.Context, f *authFlags) (*tokenstore.File, auth.StoreKey, *auth.StoredToken, error) {
	if f.url == "" {
		return nil, auth.StoreKey{}, nil, errors.New("--url is required")
	}
	store, err := fileStore()
	if err != nil {
		return nil, auth.StoreKey{}, nil, err
	}
	d, err := discoverURL(ctx, f.url)
	if err != nil {
		return nil, auth.StoreKey{}, nil, err
	}
	key := auth.StoreKey{Issuer: d.Server.Issuer, Resource: d.Resource}
	st, err := store.Load(ctx, key)
	return store, key, st, err
}

func authStatus(ctx context.Context, f *authFlags, stdout io.Writer) error {
	_, key, st, err := storedFor(ctx, f)
	if errors.Is(err, errNotProtected) {
		fmt.Fprintf(stdout, "%s does not ask for authorization: no login needed\n", f.url)
		return nil
	}
	if err != nil {
		return err
	}
	if st == nil || st.Token == nil {
		fmt.Fprintf(stdout, "not logged in to %s (authorization server %s)\n", key.Resource, key.Issuer)
		return exitError{code: 1}
	}
	state := "valid"
	switch {
	case !st.Token.Valid() && st.Token.RefreshToken != "":
		state = "expired, refreshable"
	case !st.Token.Valid():
		state = "expired"
	}
	expiry := "no expiry"
	if !st.Token.Expiry.IsZero() {
		expiry = "expires " + st.Token.Expiry.Local().Format(time.RFC3339)
	}
	scopes := strings.Join(st.Scopes, " ")
	if scopes == "" {
		scopes = "(none)"
	}
	fmt.Fprintf(stdout, "logged in to %s\n  authorization server %s\n  client %s\n  scopes %s\n  token %s, %s\n",
		key.Resource, key.Issuer, st.Client.ClientID, scopes, state, expiry)
	return nil
}

func authLogout(ctx context.Context, f *authFlags, stdout io.Writer) error {
	store, key, _, err := storedFor(ctx, f)
	if err != nil {
		return err
	}
	if err := store.Delete(ctx, key); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "logged out of %s\n", key.Resource)
	return nil
}
