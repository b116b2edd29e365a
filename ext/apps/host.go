package apps

// What a host needs to show a view: the view a tool links to, whether a
// resource's content is a view, and the policy to serve it under.

import (
	"mime"
	"regexp"
	"strings"

	"github.com/mcpkit/mcpkit/protocol"
)

// ToolView returns the ui:// URI of the view tool t links to: its
// _meta.ui.resourceUri, else the deprecated flat _meta["ui/resourceUri"];
// "" when it links to none.
func ToolView(t *protocol.Tool) string {
	if ui, ok := t.Meta[metaKey]; ok {
		if u := toolMeta(ui).ResourceURI; strings.HasPrefix(u, URIScheme) {
			return u
		}
	}
	if u, _ := t.Meta[LegacyResourceURIKey].(string); strings.HasPrefix(u, URIScheme) {
		return u
	}
	return ""
}

// IsView reports whether resource contents c are a view: a ui:// URI whose
// type is text/html with the mcp-app profile ([MIMEType]; the type's case,
// spaces and other parameters do not matter).
func IsView(c *protocol.ResourceContents) bool {
	if c == nil || !strings.HasPrefix(c.URI, URIScheme) {
		return false
	}
	t, params, err := mime.ParseMediaType(c.MimeType)
	return err == nil && t == "text/html" && strings.EqualFold(params["profile"], "mcp-app")
}

// cspSource matches the CSP sources a view may declare: a scheme and a host
// (a leading "*." allowed), an optional port; nothing that could end a
// directive or add a keyword.
var cspSource = regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)

// cspSources returns the valid declared domains, space-separated, after a
// leading space; invalid ones are dropped.
func cspSources(list []string) string {
	var b strings.Builder
	for _, d := range list {
		if cspSource.MatchString(d) {
			b.WriteByte(' ')
			b.WriteString(d)
		}
	}
	return b.String()
}

// ContentSecurityPolicy is the Content-Security-Policy a host serves a view
// under, built from the domains it declared (c; nil means none): by default
// only the document's own inline scripts and styles, and data: and blob:
// images and media; no network, no frames, no forms, no plugins. A declared
// domain that is not a plain scheme://host[:port] (one that could end a
// directive or add a keyword) is dropped. The policy has eleven directives; a
// host appends its own (frame-ancestors, sandbox) after a "; ".
func ContentSecurityPolicy(c *CSP) string {
	if c == nil {
		c = &CSP{}
	}
	res := cspSources(c.ResourceDomains)
	conn := cspSources(c.ConnectDomains)
	frames := cspSources(c.FrameDomains)
	base := cspSources(c.BaseURIDomains)
	orNone := func(s string) string {
		if s == "" {
			return " 'none'"
		}
		return s
	}
	return "default-src 'none'" +
		"; script-src 'unsafe-inline'" + res +
		"; style-src 'unsafe-inline'" + res +
		"; img-src data: blob:" + res +
		"; font-src data:" + res +
		"; media-src data: blob:" + res +
		"; connect-src" + orNone(conn) +
		"; frame-src" + orNone(frames) +
		"; base-uri" + orNone(base) +
		"; form-action 'none'; object-src 'none'"
}

// ApprovedCSP returns the declared domains (c; nil means none) that
// [ContentSecurityPolicy] grants: the valid ones. A host tells the view
// these (hostCapabilities.sandbox.csp of ui/initialize).
func ApprovedCSP(c *CSP) CSP {
	if c == nil {
		return CSP{}
	}
	valid := func(list []string) []string {
		var out []string
		for _, d := range list {
			if cspSource.MatchString(d) {
				out = append(out, d)
			}
		}
		return out
	}
	return CSP{ConnectDomains: valid(c.ConnectDomains), ResourceDomains: valid(c.ResourceDomains),
		FrameDomains: valid(c.FrameDomains), BaseURIDomains: valid(c.BaseURIDomains)}
}
