package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

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

// loadAccess reads and checks an --access file.
func loadAccess(file string) (*accessRules, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--access: %w", err)
	}
	var a accessRules
	dec := json.NewDecoder(strings.NewReader(string(b)))
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

// visible returns the gateway's mcp.VisibleFunc: serverOf says which configured
// server has a feature (gateway.Gateway.ServerOf).
func (a *accessRules) visible(serverOf func(kind, name string) (string, bool)) mcp.VisibleFunc {
	return func(ctx context.Context, _ *mcp.Request, kind mcp.FeatureKind, name string) bool {
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
}
