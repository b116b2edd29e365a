package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/internal/h1"
)

// OAuth in the CLI: every command that reaches a server by URL (the client
// commands and `auth login`) sends its requests through an auth.Transport with
// the file token store, so that a server that answers 401 gets the stored token,
// or else the authorization the flags choose: the browser flow (authorization
// code with PKCE, the code received on a loopback redirect), or the client
// credentials grant for machines.

// browserWait bounds the wait for the user to finish authorizing in the browser
// during a client command (auth login has --wait).
const browserWait = 5 * time.Minute

// oauthFlags are the OAuth flags of the client commands and of auth login.
type oauthFlags struct {
	clientID          string
	clientSecret      string
	clientCredentials bool
	port              int
	noBrowser         bool
}

// register adds the flags to fs. The loopback port's flag is --oauth-port
// everywhere (a bare --port would read as the server's); auth login keeps its
// old --port as a hidden alias.
func (o *oauthFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.clientID, "client-id", "", "OAuth: a pre-registered client id (else the client registers itself with the authorization server)")
	fs.StringVar(&o.clientSecret, "client-secret", "", "OAuth: the pre-registered client's secret")
	fs.BoolVar(&o.clientCredentials, "oauth-client-credentials", false, "OAuth: use the client credentials grant (a machine, no browser); needs --client-id")
	fs.IntVar(&o.port, "oauth-port", 0, "OAuth: the port of the loopback redirect listener (0: any free port)")
	fs.BoolVar(&o.noBrowser, "no-browser", false, "OAuth: only print the authorization URL, do not open a browser")
}

// authTransport is the OAuth layer of the CLI's HTTP requests: stored tokens
// first, then the grant the flags choose. A browser flow pauses clock (nil: no
// clock) while the user is in the browser, and waits at most wait there (0: as
// long as the request's context allows). The returned cleanup stops the
// loopback listener, if a flow started one.
func authTransport(f *oauthFlags, stderr io.Writer, clock *requestClock, wait time.Duration) (*auth.Transport, func(), error) {
	store, err := fileStore()
	if err != nil {
		return nil, nil, err
	}
	tr := &auth.Transport{Store: store, Base: plainHTTP()}
	if f.clientCredentials {
		if f.clientID == "" {
			return nil, nil, errors.New("--oauth-client-credentials needs --client-id (and usually --client-secret)")
		}
		tr.Grant = &auth.ClientCredentials{ClientID: f.clientID, ClientSecret: f.clientSecret}
		return tr, func() {}, nil
	}
	g := &browserGrant{flags: f, stderr: stderr, clock: clock, wait: wait}
	tr.Grant = g
	return tr, g.close, nil
}

// plainHTTP is the transport under the CLI's clients of MCP servers (the
// OAuth transports, the gateway's identity header): internal/h1, the Streamable
// HTTP client's default, for a plain http:// URL that http.ProxyFromEnvironment
// names no proxy for, and net/http's default transport for the rest (https,
// proxies). One for the process: its pool keeps a connection per server.
var plainHTTP = sync.OnceValue(func() *h1.Transport {
	return h1.New(&h1.Options{Proxy: http.ProxyFromEnvironment})
})

// browserGrant is the CLI's authorization code grant. Its loopback listener
// starts with the first authorization, so that a server that asks for none costs
// nothing, and stops at close; one listener serves every flow of the command, so
// that a client registered for its redirect URI stays valid.
type browserGrant struct {
	flags  *oauthFlags
	stderr io.Writer
	clock  *requestClock
	wait   time.Duration

	mu sync.Mutex
	lb *auth.LoopbackRedirect
	g  *auth.AuthorizationCode
}

// Token runs the authorization code flow.
func (b *browserGrant) Token(ctx context.Context, r *auth.TokenRequest) (*auth.Issued, error) {
	g, err := b.grant()
	if err != nil {
		return nil, err
	}
	return g.Token(ctx, r)
}

func (b *browserGrant) grant() (*auth.AuthorizationCode, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.g != nil {
		return b.g, nil
	}
	lb, err := auth.ListenLoopback(b.flags.port)
	if err != nil {
		return nil, err
	}
	fetch := lb.Fetcher(b.open)
	b.lb = lb
	b.g = &auth.AuthorizationCode{
		RedirectURL: lb.URL(),
		ClientName:  "mcpkit",
		Fetch: func(ctx context.Context, authURL string) (*auth.AuthorizationResponse, error) {
			// The user's time in the browser does not count against --timeout.
			b.clock.pause()
			defer b.clock.resume()
			if b.wait > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, b.wait)
				defer cancel()
			}
			return fetch(ctx, authURL)
		},
	}
	if b.flags.clientID != "" {
		b.g.Clients = []auth.ClientInfo{{ClientID: b.flags.clientID, ClientSecret: b.flags.clientSecret}}
	}
	return b.g, nil
}

// open shows the user the authorization URL: printed, and opened in the
// system's browser unless --no-browser.
func (b *browserGrant) open(ctx context.Context, u string) error {
	fmt.Fprintf(b.stderr, "mcpkit: authorize in your browser; if it does not open, visit:\n\n  %s\n\n", u)
	if !b.flags.noBrowser {
		if err := auth.OpenBrowser(ctx, u); err != nil {
			fmt.Fprintln(b.stderr, "mcpkit: could not open a browser:", err)
		}
	}
	return nil
}

func (b *browserGrant) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lb != nil {
		_ = b.lb.Close()
	}
}

// pingRequest is a JSON-RPC ping POSTed to an MCP endpoint: harmless to any
// server, and covered by the authorization of a protected one.
func pingRequest(ctx context.Context, rawURL string, header http.Header) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":"mcpkit-auth","method":"ping"}`)))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req, nil
}

// authorizeFirst sends the server a ping through client before the session
// starts, so that an authorization the server asks for (a stored token, or the
// browser flow) happens before the era probe, whose short bound would otherwise
// cut the user's time in the browser. The ping's exchanges with the server are
// bounded by clock; its answer does not matter, nor does its lack (a server
// that does not answer asks for no authorization either: the session's requests
// then report the silence). An error is a failed authorization or an
// unreachable server.
func authorizeFirst(ctx context.Context, client *http.Client, clock *requestClock, rawURL string, header http.Header) error {
	_, err := pingFirst(ctx, client, clock, rawURL, header)
	return err
}

// pingFirst is authorizeFirst, reporting also whether the server answered the
// ping (with anything) before clock's bound.
func pingFirst(ctx context.Context, client *http.Client, clock *requestClock, rawURL string, header http.Header) (answered bool, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errSilent := errors.New("no answer to the ping")
	if clock != nil {
		p := &pendingRequest{expire: func() { cancel(errSilent) }}
		clock.add(p)
		defer clock.remove(p)
	}
	req, err := pingRequest(ctx, rawURL, header)
	if err != nil {
		return false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		if context.Cause(ctx) == errSilent {
			return false, nil
		}
		return false, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return true, nil
}
