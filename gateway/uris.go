package gateway

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/protocol"
)

// URIScheme is the scheme of the gateway's namespaced resource URIs.
//
// A resource keeps its server's URI when no other server lists the same one,
// so that links in tool results stay readable through the gateway. When two
// servers list the same URI (or the same URI template), each one's is
// namespaced:
//
//	mcpkit-gateway://<server, percent-encoded>/<the server's URI>
//
// e.g. mcpkit-gateway://files/file:///etc/hosts. A read of such a URI goes to
// that server with the prefix removed; resource links and embedded resources
// in the server's results get the prefix put on. A server's URI that already
// has this scheme (a gateway behind the gateway) is always namespaced again.
const URIScheme = "mcpkit-gateway"

const schemePrefix = URIScheme + "://"

// namespacedURI returns the gateway's URI for a server's URI (or template).
func namespacedURI(server, uri string) string {
	return schemePrefix + url.PathEscape(server) + "/" + uri
}

// uriRenames are a server's URIs that the gateway namespaced: read on the hot
// path (tool results), swapped whole by the synchronisation.
type uriRenames struct {
	prefix    string            // schemePrefix + escaped server + "/"
	static    map[string]string // the server's URI → the gateway's
	templates []*uritemplate.Template
}

// gatewayURI returns the gateway's URI for one of the server's URIs.
func (u *upServer) gatewayURI(uri string) string {
	if strings.HasPrefix(uri, schemePrefix) {
		return namespacedURI(u.name, uri)
	}
	r := u.renames.Load()
	if r == nil {
		return uri
	}
	if g, ok := r.static[uri]; ok {
		return g
	}
	for _, t := range r.templates {
		if t.Match(uri) != nil {
			return r.prefix + uri
		}
	}
	return uri
}

// upstreamURI returns the server's URI for one of the gateway's.
func (u *upServer) upstreamURI(uri string) string {
	prefix := schemePrefix + url.PathEscape(u.name) + "/"
	if strings.HasPrefix(uri, prefix) {
		return uri[len(prefix):]
	}
	return uri
}

// rewriteContent gives the resource links and embedded resources of a result
// the gateway's URIs. It costs nothing for a server with no namespaced URIs.
func (u *upServer) rewriteContent(content []protocol.Content) {
	if u.renames.Load() == nil && !anyGatewayURI(content) {
		return
	}
	for i := range content {
		u.rewriteBlock(&content[i])
	}
}

// mayRewrite reports whether rewriteContent could change the content of a
// server's raw tool result: when the server has namespaced URIs or the result
// mentions the gateway's scheme, and it may hold a resource link or an
// embedded resource. An escaped ASCII character could hide either word, so it
// counts as both.
func (u *upServer) mayRewrite(raw []byte) bool {
	escapes := jsonscan.EscapesASCII(raw)
	if u.renames.Load() == nil && !escapes && !bytes.Contains(raw, []byte(URIScheme+":")) {
		return false
	}
	return escapes || bytes.Contains(raw, []byte("resource"))
}

// rewriteBlock gives one block the gateway's URIs.
func (u *upServer) rewriteBlock(c *protocol.Content) {
	if c.Type == "resource_link" && c.URI != "" {
		c.URI = u.gatewayURI(c.URI)
	}
	if c.Resource != nil {
		c.Resource.URI = u.gatewayURI(c.Resource.URI)
	}
}

// anyGatewayURI reports whether a block refers to a URI of the gateway's own
// scheme (which is namespaced even when nothing else is).
func anyGatewayURI(content []protocol.Content) bool {
	for i := range content {
		c := &content[i]
		if strings.HasPrefix(c.URI, schemePrefix) || (c.Resource != nil && strings.HasPrefix(c.Resource.URI, schemePrefix)) {
			return true
		}
	}
	return false
}

// resourceOwner finds the server of one of the gateway's resource URIs, and
// that server's URI for it.
func (g *Gateway) resourceOwner(uri string) (*upServer, string, bool) {
	entries := g.Entries()
	for _, e := range entries {
		if e.Kind == "resource" && e.Name == uri {
			u := g.upServers()[e.Server]
			return u, e.Original, u != nil
		}
	}
	for _, e := range entries {
		if e.Kind != "template" {
			continue
		}
		if t, err := uritemplate.New(e.Name); err == nil && t.Match(uri) != nil {
			if u := g.upServers()[e.Server]; u != nil {
				return u, u.upstreamURI(uri), true
			}
		}
	}
	return nil, "", false
}
