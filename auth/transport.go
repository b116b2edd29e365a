package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"golang.org/x/oauth2"
)

// DefaultMaxStepUps is how many times one request may re-authorize for more
// scopes (403 insufficient_scope) when Transport.MaxStepUps is zero.
const DefaultMaxStepUps = 2

// Transport is an http.RoundTripper that authorizes requests to a protected MCP
// server. Give it to the HTTP transports as their HTTP client's Transport
// (streamable.ClientOptions.HTTPClient, legacysse.ClientOptions.HTTPClient).
//
// When the server answers 401, on any request, Transport discovers the server's
// authorization server (Discover), obtains a token with Grant and replays the
// request once; when it answers 403 insufficient_scope it asks for the union of
// the scopes it asked for before and the challenged ones, at most MaxStepUps
// times per request. It refreshes expired tokens that came with a refresh token,
// and keeps tokens in Store when one is set.
//
// A token goes only to the origin (scheme, host and port) of the server it was
// obtained for: a request to another origin (one a redirect leads to, say) is
// sent without it, and that origin's challenges are returned as they are, with
// no authorization for them.
//
// After an authorization fails (refused, or an authorization server that breaks
// a rule), later challenges return the same error without trying again, so that a
// client that retries does not repeat a refused flow; Reset clears it. A failure
// that may pass (the network, a server error or 429 from the authorization
// server or the metadata, a refresh that did not get through) fails only the
// request at hand: the next one tries again.
type Transport struct {
	// Base sends the requests to the MCP server; nil means
	// http.DefaultTransport.
	Base http.RoundTripper
	// Client sends discovery, registration and token requests; nil means a
	// client over Base.
	Client *http.Client
	// Grant obtains tokens. Required.
	Grant Grant
	// Store keeps tokens between runs (optional).
	Store TokenStore
	// NoOfflineAccess stops the Transport from asking for offline_access (a
	// refresh token) where the authorization server offers that scope.
	NoOfflineAccess bool
	// DPoP binds tokens to a key (RFC 9449) when the authorization server accepts
	// ES256 proofs. A server that challenges with the DPoP scheme gets DPoP
	// whatever this says.
	DPoP bool
	// MaxStepUps bounds the scope step-ups of one request; 0 means
	// DefaultMaxStepUps, negative means none.
	MaxStepUps int
	// Logger receives debug records of the flow (never tokens); nil discards
	// them.
	Logger *slog.Logger

	flowMu sync.Mutex // serializes authorizations

	mu     sync.Mutex
	tok    *Issued
	origin *url.URL // of the server tok was obtained for (scheme and host only)
	disc   *Discovery
	scopes []string // the scopes last asked for
	dpop   *dpopProver
	failed error
}

// Reset forgets the current token and any failed authorization.
func (t *Transport) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tok, t.origin, t.disc, t.scopes, t.failed = nil, nil, nil, nil, nil
}

// Token returns the current token, or nil.
func (t *Transport) Token() *oauth2.Token {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == nil {
		return nil
	}
	return t.tok.Token
}

// Discovery returns what the last authorization discovered about the server and
// its authorization server, or nil.
func (t *Transport) Discovery() *Discovery {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.disc
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) log() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (t *Transport) maxStepUps() int {
	switch {
	case t.MaxStepUps < 0:
		return 0
	case t.MaxStepUps == 0:
		return DefaultMaxStepUps
	}
	return t.MaxStepUps
}

// asClient is the client for requests to the authorization server; with DPoP
// its token requests carry proofs.
func (t *Transport) asClient(d *Discovery, prover *dpopProver) *http.Client {
	c := t.Client
	if c == nil {
		c = &http.Client{Transport: t.base()}
	}
	if prover == nil || d == nil {
		return c
	}
	cc := *c
	rt := cc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cc.Transport = &dpopTokenTransport{base: rt, prover: prover, tokenURL: d.Server.TokenEndpoint}
	return &cc
}

// RoundTrip sends req with the current token and handles the server's
// authorization challenges.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.Grant == nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errors.New("auth: Transport has no Grant")
	}
	body, err := newResendable(req)
	if err != nil {
		return nil, err
	}
	defer body.close()
	ctx := req.Context()
	cur, err := t.fresh(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := t.send(req, &body, cur)
	if err != nil {
		return nil, err
	}
	stepUps, authorized, nonceRetried := 0, false, false
	for {
		var next *Issued
		switch {
		case !t.mayAuthorize(req.URL):
			return resp, nil // another origin than the token's
		case resp.StatusCode == http.StatusUnauthorized:
			cs := ChallengesOf(resp)
			if cur != nil && !nonceRetried && t.prover() != nil && isDPoPNonceChallenge(resp, cs) {
				nonceRetried = true
				t.prover().noteNonce(resp)
				next = cur
				break
			}
			if authorized {
				return resp, nil
			}
			drain(resp)
			next, err = t.authorize(ctx, req, cs, cur, nil)
			authorized = true
		case resp.StatusCode == http.StatusForbidden:
			cs := ChallengesOf(resp)
			c, ok := challengeFor(cs, "Bearer", "DPoP")
			if !ok || c.Param("error") != "insufficient_scope" || stepUps >= t.maxStepUps() {
				return resp, nil
			}
			want := unionScopes(t.lastScopes(), strings.Fields(c.Param("scope")))
			if len(want) == len(t.lastScopes()) {
				return resp, nil // nothing more to ask for
			}
			drain(resp)
			stepUps++
			next, err = t.authorize(ctx, req, cs, cur, want)
		default:
			return resp, nil
		}
		if err != nil {
			return nil, err
		}
		cur = next
		if resp, err = t.send(req, &body, cur); err != nil {
			return nil, err
		}
	}
}

// send sends a copy of req with the token (and a DPoP proof for a DPoP token).
func (t *Transport) send(req *http.Request, body *resendable, cur *Issued) (*http.Response, error) {
	// A copy with a header of its own (the caller's request is not modified;
	// the header's values are shared, never written to).
	r := new(http.Request)
	*r = *req
	r.Header = make(http.Header, len(req.Header)+2)
	maps.Copy(r.Header, req.Header)
	var err error
	if r.Body, err = body.next(); err != nil {
		return nil, err
	}
	r.GetBody = body.get
	if cur != nil && !t.isTokenOrigin(r.URL) {
		cur = nil
	}
	if err := t.present(r.Header, r.Method, r.URL, cur); err != nil {
		return nil, err
	}
	resp, err := t.base().RoundTrip(r)
	if err == nil && cur != nil {
		if p := t.prover(); p != nil {
			p.noteNonce(resp)
		}
	}
	return resp, err
}

// present sets the fields of h that present cur on a request with method to u:
// Authorization, and DPoP with a proof for a DPoP-bound token. A nil cur sets
// none.
func (t *Transport) present(h http.Header, method string, u *url.URL, cur *Issued) error {
	if cur == nil || cur.Token == nil {
		return nil
	}
	if !strings.EqualFold(cur.Token.Type(), "DPoP") {
		h.Set("Authorization", "Bearer "+cur.Token.AccessToken)
		return nil
	}
	p := t.prover()
	if p == nil {
		return errors.New("auth: a DPoP token without a DPoP key")
	}
	proof, err := p.proof(method, u, cur.Token.AccessToken)
	if err != nil {
		return err
	}
	h.Set("Authorization", "DPoP "+cur.Token.AccessToken)
	h.Set("DPoP", proof)
	return nil
}

// AuthorizationHeader returns the header fields that present the current token
// on a request with method to u — Authorization, and DPoP with a fresh proof
// for a DPoP-bound token — refreshing an expired token first, for a caller
// that sends the request some other way than RoundTrip (a proxy writing its
// own requests). It returns no fields when the Transport holds no token, or
// none for u's origin; an error when a refresh failed on the way (Transient).
// The caller sends an answer of 401 or 403 insufficient_scope through
// RoundTrip, which authorizes.
func (t *Transport) AuthorizationHeader(ctx context.Context, method string, u *url.URL) (http.Header, error) {
	cur, err := t.fresh(ctx)
	if err != nil || cur == nil || !t.isTokenOrigin(u) {
		return nil, err
	}
	h := http.Header{}
	if err := t.present(h, method, u, cur); err != nil {
		return nil, err
	}
	return h, nil
}

// isTokenOrigin reports whether u has the origin of the server the token was
// obtained for.
func (t *Transport) isTokenOrigin(u *url.URL) bool {
	o := t.tokenOrigin()
	return o != nil && sameOrigin(o, u)
}

// mayAuthorize reports whether a challenge from u's origin may be answered
// with an authorization: no token is held yet, or it is that origin's.
func (t *Transport) mayAuthorize(u *url.URL) bool {
	o := t.tokenOrigin()
	return o == nil || sameOrigin(o, u)
}

// tokenOrigin returns the origin of the server the token was obtained for, or
// nil before the first authorization.
func (t *Transport) tokenOrigin() *url.URL {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.origin
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func (t *Transport) prover() *dpopProver {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dpop
}

func (t *Transport) lastScopes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scopes
}

// fresh returns the current token, refreshed first when it has expired and can
// be refreshed. A refresh the authorization server refuses drops the token (the
// server's challenge then starts a new flow); one that fails on the way
// (Transient) keeps it and fails the request, so that the next one tries again
// rather than starting a new flow.
func (t *Transport) fresh(ctx context.Context) (*Issued, error) {
	t.mu.Lock()
	cur := t.tok
	t.mu.Unlock()
	if cur == nil || cur.Token.Valid() {
		return cur, nil
	}
	t.flowMu.Lock()
	defer t.flowMu.Unlock()
	t.mu.Lock()
	cur, d, p := t.tok, t.disc, t.dpop
	t.mu.Unlock()
	if cur == nil || cur.Token.Valid() {
		return cur, nil
	}
	if cur.Token.RefreshToken == "" || d == nil {
		return nil, nil
	}
	next, err := Refresh(ctx, t.asClient(d, p), d.Server, cur, d.Resource)
	if err != nil {
		t.log().Debug("auth: refresh failed", "error", err)
		if ctx.Err() != nil || Transient(err) {
			return nil, err
		}
		t.setToken(nil)
		return nil, nil
	}
	t.setToken(next)
	t.save(ctx, d, next)
	return next, nil
}

func (t *Transport) setToken(iss *Issued) {
	t.mu.Lock()
	t.tok = iss
	t.mu.Unlock()
}

// authorize obtains a new token after a challenge: cs are the challenges of the
// answer to a request sent with held (nil: none); want, for a step-up, are the
// scopes to ask for.
func (t *Transport) authorize(ctx context.Context, req *http.Request, cs []Challenge, held *Issued, want []string) (*Issued, error) {
	t.flowMu.Lock()
	defer t.flowMu.Unlock()
	t.mu.Lock()
	cur, failed := t.tok, t.failed
	t.mu.Unlock()
	if failed != nil {
		return nil, failed
	}
	if cur != nil && cur != held && (want == nil || !missingScopes(t.lastScopes(), want)) {
		return cur, nil // another request authorized meanwhile
	}
	iss, err := t.runFlow(ctx, req, cs, held, want)
	if err != nil {
		if ctx.Err() == nil && !Transient(err) {
			t.mu.Lock()
			t.failed = err
			t.mu.Unlock()
		}
		return nil, err
	}
	return iss, nil
}

// runFlow discovers the authorization server and obtains a token: from the store,
// by refreshing, or from the grant.
func (t *Transport) runFlow(ctx context.Context, req *http.Request, cs []Challenge, held *Issued, want []string) (*Issued, error) {
	ch, _ := challengeFor(cs, "Bearer", "DPoP")
	serverURL := htu(req.URL)
	t.mu.Lock()
	d := t.disc
	t.mu.Unlock()
	if want == nil || d == nil {
		// Every 401 re-reads the resource metadata: the server may have moved to
		// another authorization server.
		var err error
		if d, err = Discover(ctx, t.asClient(nil, nil), serverURL, ch); err != nil {
			return nil, err
		}
	}
	var prover *dpopProver
	if (t.DPoP || ch.Is("DPoP")) && supports(d.Server.DPoPSigningAlgValuesSupported, "ES256") {
		if prover = t.prover(); prover == nil {
			var err error
			if prover, err = newDPoPProver(); err != nil {
				return nil, err
			}
		}
	}
	scopes := want
	if scopes == nil {
		scopes = t.initialScopes(d, ch)
	}
	t.mu.Lock()
	t.disc, t.scopes, t.dpop = d, scopes, prover
	t.origin = &url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host}
	t.mu.Unlock()
	client := t.asClient(d, prover)
	log := t.log().With("issuer", d.Server.Issuer, "resource", d.Resource)

	if want == nil {
		if iss := t.fromStore(ctx, client, d, held); iss != nil {
			log.Debug("auth: using a stored token")
			t.setToken(iss)
			return iss, nil
		}
	}
	log.Debug("auth: requesting a token", "scopes", scopes, "legacy", d.Legacy, "dpop", prover != nil)
	iss, err := t.Grant.Token(ctx, &TokenRequest{Discovery: d, Scopes: scopes, Client: client})
	if err != nil {
		return nil, err
	}
	if iss.Client.Issuer == "" {
		iss.Client.Issuer = d.Server.Issuer
	}
	t.setToken(iss)
	t.save(ctx, d, iss)
	return iss, nil
}

// initialScopes chooses the scopes of a first authorization: the challenge's,
// else all the resource's, else none; plus offline_access where the
// authorization server offers it.
func (t *Transport) initialScopes(d *Discovery, ch Challenge) []string {
	scopes := strings.Fields(ch.Param("scope"))
	if len(scopes) == 0 && d.ResourceMetadata != nil {
		scopes = slices.Clone(d.ResourceMetadata.ScopesSupported)
	}
	if !t.NoOfflineAccess && supports(d.Server.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return scopes
}

// fromStore returns a usable stored token for the discovered server (refreshed if
// it expired), or nil. held, the token just refused, is never returned.
func (t *Transport) fromStore(ctx context.Context, client *http.Client, d *Discovery, held *Issued) *Issued {
	if t.Store == nil {
		return nil
	}
	key := StoreKey{Issuer: d.Server.Issuer, Resource: d.Resource}
	st, err := t.Store.Load(ctx, key)
	if err != nil || st == nil || st.Token == nil {
		return nil
	}
	iss := &Issued{Token: st.Token, Client: st.Client}
	refused := held != nil && held.Token.AccessToken == st.Token.AccessToken
	if !refused && st.Token.Valid() {
		return iss
	}
	if st.Token.RefreshToken == "" {
		return nil
	}
	next, err := Refresh(ctx, client, d.Server, iss, d.Resource)
	if err != nil {
		return nil
	}
	t.save(ctx, d, next)
	return next
}

// save stores iss when a store is set; failures are logged, not returned.
func (t *Transport) save(ctx context.Context, d *Discovery, iss *Issued) {
	if t.Store == nil || iss == nil {
		return
	}
	key := StoreKey{Issuer: d.Server.Issuer, Resource: d.Resource}
	if err := t.Store.Save(ctx, key, &StoredToken{Token: iss.Token, Client: iss.Client, Scopes: t.lastScopes()}); err != nil {
		t.log().Debug("auth: saving the token failed", "error", err)
	}
}

// unionScopes returns a followed by the members of b it lacks.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// missingScopes reports whether want has a scope that have lacks.
func missingScopes(have, want []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return true
		}
	}
	return false
}

// resendable is a request body that can be sent more than once: the
// request's own body the first time when the request can make copies of it
// (GetBody, which http.NewRequest sets for in-memory bodies), else a copy read
// into memory.
type resendable struct {
	first io.ReadCloser                 // for the first send; nil once taken
	get   func() (io.ReadCloser, error) // a fresh copy; nil: no body
}

func newResendable(req *http.Request) (resendable, error) {
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		return resendable{first: req.Body}, nil
	case req.GetBody != nil:
		return resendable{first: req.Body, get: req.GetBody}, nil
	}
	defer req.Body.Close()
	data, err := io.ReadAll(req.Body)
	if err != nil {
		return resendable{}, fmt.Errorf("auth: reading the request body: %w", err)
	}
	get := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	first, _ := get()
	return resendable{first: first, get: get}, nil
}

// next returns the body for the next send.
func (b *resendable) next() (io.ReadCloser, error) {
	if f := b.first; f != nil {
		b.first = nil
		return f, nil
	}
	if b.get == nil {
		return nil, nil
	}
	return b.get()
}

// close closes the request's own body if it was never sent.
func (b *resendable) close() {
	if b.first != nil {
		b.first.Close()
	}
}

// drain discards and closes a response body that will not be read.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}
