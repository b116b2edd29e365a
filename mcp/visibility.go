package mcp

import "context"

// FeatureKind names a kind of feature a server offers, for a [VisibleFunc].
type FeatureKind uint8

const (
	// FeatureTool is a tool, named by its name.
	FeatureTool FeatureKind = iota + 1
	// FeaturePrompt is a prompt, named by its name.
	FeaturePrompt
	// FeatureResource is a resource, named by its URI.
	FeatureResource
	// FeatureResourceTemplate is a resource template, named by its URI
	// template; a resource read through it is checked under this name.
	FeatureResourceTemplate
)

// String returns the kind as the error messages name it.
func (k FeatureKind) String() string {
	switch k {
	case FeatureTool:
		return "tool"
	case FeaturePrompt:
		return "prompt"
	case FeatureResource:
		return "resource"
	case FeatureResourceTemplate:
		return "resource template"
	}
	return "feature"
}

// A VisibleFunc decides whether the client of a request sees a feature: in the
// lists (tools/list, prompts/list, resources/list, resources/templates/list)
// and in the calls (tools/call, prompts/get, resources/read), which it refuses
// for a feature not visible with [CodeInvalidParams] and a message naming it.
// It gets the request's context, which names the authenticated caller
// ([github.com/mcpkit/mcpkit/transport.PrincipalFrom]), and the request, whose
// session (legacy era) or client info says which client it is: one filter
// serves both eras, per session or per request.
//
// It runs under the server's read lock, once per feature listed: it must be
// fast and must not call back into the server.
type VisibleFunc func(ctx context.Context, r *Request, kind FeatureKind, name string) bool

// keep returns the filter of a list of kind for the request, or nil when
// every feature is visible.
func (s *Server) keep(ctx context.Context, r *Request, kind FeatureKind) func(string) bool {
	f := s.opts.Visible
	if f == nil {
		return nil
	}
	return func(name string) bool { return f(ctx, r, kind, name) }
}

// hidden reports whether the feature name of kind is not visible to the
// client of r, with the error to answer its call with.
func (s *Server) hidden(ctx context.Context, r *Request, kind FeatureKind, name string) error {
	if f := s.opts.Visible; f != nil && !f(ctx, r, kind, name) {
		return errorf(CodeInvalidParams, "%s '%s' is not available to this client", kind, name)
	}
	return nil
}
