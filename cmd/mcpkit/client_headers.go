package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit/upstream"
)

// headerFlag is one --header value: "Name: value", or for `mcpkit host`
// "SERVER=Name: value" (a header name cannot hold "=", so the two do not
// mix up).
type headerFlag struct {
	server string // "" for every server
	name   string
	value  string // before ${env:VAR} substitution
}

// parseHeaderFlag reads a --header value. n is its position among the
// --header flags: errors name it by that and its header name, never by its
// value, which is often a secret.
func parseHeaderFlag(n int, s string, scoped bool) (headerFlag, error) {
	var h headerFlag
	if scoped {
		if server, rest, ok := strings.Cut(s, "="); ok && !strings.Contains(server, ":") {
			h.server, s = strings.TrimSpace(server), rest
		}
	}
	k, v, ok := strings.Cut(s, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return headerFlag{}, fmt.Errorf("--header #%d: want 'Name: value'", n+1)
	}
	h.name, h.value = http.CanonicalHeaderKey(k), strings.TrimSpace(v)
	return h, nil
}

// headerFor builds the headers of one server from the --header flags: those
// for every server and those for that server, with ${env:VAR},
// ${VAR:-default} and ${userHome} replaced from the environment.
func headerFor(flags []headerFlag, server string) (http.Header, error) {
	header := http.Header{}
	for i, h := range flags {
		if h.server != "" && h.server != server {
			continue
		}
		v, err := upstream.Expand(h.value, os.LookupEnv)
		if err != nil {
			return nil, fmt.Errorf("--header #%d (%s): %w", i+1, h.name, err)
		}
		header.Add(h.name, v)
	}
	return header, nil
}

// parseHeaderFlags reads every --header value.
func parseHeaderFlags(values []string, scoped bool) ([]headerFlag, error) {
	out := make([]headerFlag, 0, len(values))
	for i, s := range values {
		h, err := parseHeaderFlag(i, s, scoped)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}
