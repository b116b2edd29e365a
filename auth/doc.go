// Package auth is mcpkit's OAuth 2.1 client for protected MCP servers, following
// the MCP authorization specification (2025-11-25 and 2026-07-28) and its
// extensions.
//
// Transport is an http.RoundTripper: give it to the HTTP transports as their
// HTTP client's Transport (streamable.ClientOptions.HTTPClient,
// legacysse.ClientOptions.HTTPClient). On a 401 from any request it discovers
// the server's Protected Resource Metadata (RFC 9728: the challenge's
// resource_metadata, then the path and root well-known URLs, never the root
// after one of the others answered) and checks that it names this server,
// discovers the authorization server's metadata (RFC 8414 and OpenID Connect, in
// the specification's order, accepting only a document that names the issuer
// it was looked up for), falls back to the 2025-03-26 rules for servers without
// resource metadata, obtains a token with its Grant and replays the request. A
// 403 insufficient_scope steps up to the union of the scopes asked before and
// the challenged ones, a bounded number of times. A token goes only to the
// origin it was obtained for (a redirect elsewhere goes without it); a refused
// authorization is remembered until Reset, a failure that may pass (Transient)
// only fails the request at hand. A proxy that writes its own requests gets the
// fields that present the token from AuthorizationHeader.
//
// Grants: AuthorizationCode (PKCE S256, RFC 8707 resource indicators, RFC 9207
// issuer check, client identity from a pre-registered client, a Client ID
// Metadata Document or Dynamic Client Registration, in that order),
// ClientCredentials (secret or private_key_jwt), JWTBearer (workload identity)
// and Enterprise (token exchange for an ID-JAG, then the JWT bearer grant).
// DPoP (RFC 9449) binds tokens to a key, with the nonces servers demand.
// Tokens can be kept in a TokenStore (package auth/tokenstore); they never
// appear in logs or in the printed forms of this package's types.
//
// The resource-server side (a middleware that validates bearer tokens and
// serves Protected Resource Metadata) is package auth/resource; package
// auth/authtest is an authorization server for tests.
//
// What golang.org/x/oauth2 does here: PKCE verifiers and challenges, the
// authorization URL, the authorization code exchange, and every other token
// request through its client credentials request (whose grant_type may be
// replaced), with the token endpoint authentication style always set from the
// server's metadata (never auto-detected: a server may count the first,
// wrong attempt against the client). github.com/go-jose/go-jose/v4 signs DPoP
// proofs and private_key_jwt assertions. Written here because neither library
// has them: the WWW-Authenticate parser, resource and authorization server
// discovery, Dynamic Client Registration, the RFC 9207 check, step-up, the
// refresh request with a resource indicator (x/oauth2's refresh cannot carry
// one), the token exchange for enterprise authorization, and DPoP nonce
// handling.
package auth
