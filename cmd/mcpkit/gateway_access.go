package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport"
)

// accessRules are the gateway's per-principal catalogues (--access FILE): which
// principals see which servers, tools, prompts and resources. A feature is
// visible to a caller when a rule that names the caller allows it; with rules
// and none allowing, it is hidden from the lists and its calls are refused.
//
//	{"rules": [
//	  {"principals": ["token:alice", "scope:mcp:admin"], "servers": ["db"]},
//	  {"principals": ["*"], "tools": ["demo__echo"], "resources": ["demo://*"]}
//	]}
//
// A principal is "token:NAME" (a static token), "sub:SUBJECT" (a token's
// subject), "scope:SCOPE" (a token that grants it), "principal:ISSUER#SUBJECT"
// (transport.PrincipalFrom exactly) or "*" (anyone, authenticated or not).
// Tools, prompts and resources are globs (path.Match) of the gateway's names;
// resources match resource URIs and URI templates.
type accessRules struct {
	Rules []accessRule `json:"rules"`
}

type accessRule struct {
	Principals []string `json:"principals"`
	Servers    []string `json:"servers"`
	Tools      []string `json:"tools"`
	Prompts    []string `json:"prompts"`
	Resources  []string `json:"resources"`
}

// parseAccess checks the content b of the --access file.
func parseAccess(file string, b []byte) (*accessRules, error) {
	var a accessRules
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("--access %s: %w", file, err)
	}
	if len(a.Rules) == 0 {
		return nil, fmt.Errorf("--access %s: no rules (every feature would be hidden)", file)
	}
	for i, r := range a.Rules {
		if len(r.Principals) == 0 {
			return nil, fmt.Errorf("--access %s: rule %d names no principals", file, i+1)
		}
		for _, p := range r.Principals {
			if k, _, ok := strings.Cut(p, ":"); p != "*" && (!ok || !slices.Contains([]string{"token", "sub", "scope", "principal"}, k)) {
				return nil, fmt.Errorf("--access %s: rule %d: principal %q is not token:, sub:, scope:, principal: or *", file, i+1, p)
			}
		}
		for _, g := range slices.Concat(r.Tools, r.Prompts, r.Resources) {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("--access %s: rule %d: glob %q: %w", file, i+1, g, err)
			}
		}
	}
	return &a, nil
}

// matches reports whether the rule names the caller of ctx.
func (r *accessRule) matches(principal string, info *resource.TokenInfo) bool {
	for _, p := range r.Principals {
		kind, v, _ := strings.Cut(p, ":")
		switch {
		case p == "*",
			kind == "principal" && principal == v,
			kind == "token" && info != nil && info.Issuer == resource.StaticIssuer && info.Subject == v,
			kind == "sub" && info != nil && info.Issuer != resource.StaticIssuer && info.Subject == v,
			kind == "scope" && info != nil && slices.Contains(info.Scopes, v):
			return true
		}
	}
	return false
}

// liveAccess holds the running --access rules: the configuration watcher
// replaces them when the file changes (reloadAccess), and the gateway's
// server then tells the clients whose view changed (mcp.Server.RefreshVisibility).
type liveAccess struct {
	path  string
	rules atomic.Pointer[accessRules]
	last  [sha256.Size]byte // the content last read
}

// newLiveAccess loads the --access file.
func newLiveAccess(file string) (*liveAccess, error) {
	b, sum, err := readWatched(file)
	if err != nil {
		return nil, fmt.Errorf("--access: %w", err)
	}
	rules, err := parseAccess(file, b)
	if err != nil {
		return nil, err
	}
	l := &liveAccess{path: file, last: sum}
	l.rules.Store(rules)
	return l, nil
}

// reload reads the file again and, when it changed (or always, forced) and
// is valid, makes its rules the running ones and reports true. A file that
// cannot be read or checked keeps the running rules: the error says why.
func (l *liveAccess) reload(forced bool) (bool, error) {
	b, sum, err := readWatched(l.path)
	if err == nil && !forced && sum == l.last {
		return false, nil
	}
	l.last = sum
	if err != nil {
		return false, fmt.Errorf("--access: %w", err)
	}
	rules, err := parseAccess(l.path, b)
	if err != nil {
		return false, err
	}
	l.rules.Store(rules)
	return true, nil
}

// visible returns the gateway's mcp.VisibleFunc, which asks the running
// rules: serverOf says which configured server has a feature
// (gateway.Gateway.ServerOf).
func (l *liveAccess) visible(serverOf func(kind, name string) (string, bool)) mcp.VisibleFunc {
	return func(ctx context.Context, _ *mcp.Request, kind mcp.FeatureKind, name string) bool {
		return l.rules.Load().allows(ctx, kind, name, serverOf)
	}
}

// allows reports whether the caller of ctx may see the feature.
func (a *accessRules) allows(ctx context.Context, kind mcp.FeatureKind, name string, serverOf func(kind, name string) (string, bool)) bool {
	principal, info := transport.PrincipalFrom(ctx), resource.TokenInfoFrom(ctx)
	for i := range a.Rules {
		r := &a.Rules[i]
		if !r.matches(principal, info) {
			continue
		}
		var globs []string
		var entryKind string
		switch kind {
		case mcp.FeatureTool:
			globs, entryKind = r.Tools, "tool"
		case mcp.FeaturePrompt:
			globs, entryKind = r.Prompts, "prompt"
		case mcp.FeatureResource:
			globs, entryKind = r.Resources, "resource"
		case mcp.FeatureResourceTemplate:
			globs, entryKind = r.Resources, "template"
		}
		for _, g := range globs {
			if ok, _ := path.Match(g, name); ok {
				return true
			}
		}
		if len(r.Servers) > 0 {
			if s, ok := serverOf(entryKind, name); ok && slices.Contains(r.Servers, s) {
				return true
			}
		}
	}
	return false
}
