package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// GoServer describes a Go MCP server published as a module, for NewGoServer.
type GoServer struct {
	// Module is the module path (go.mod's module line), e.g.
	// github.com/owner/weather-mcp. `go run MODULE@VERSION` must build the
	// server: the module's root package is its main package.
	Module string
	// Version is the module version, v-prefixed semantic version (v1.2.3).
	// The server's version is the same without the "v".
	Version string
	// Name is the server's name in the registry; empty: io.github.OWNER/REPO
	// for a module github.com/OWNER/REPO[/...]. The registry accepts a Go
	// package under io.github.OWNER only when the module is github.com/OWNER/....
	Name        string
	Title       string
	Description string
	// Transport is the package's transport; empty means stdio.
	Transport Transport
	// Arguments and Env are the package's arguments and environment
	// variables.
	Arguments []Argument
	Env       []KeyValue
}

// NewGoServer returns the server.json of a Go server (registryType "go"),
// checked against the schema and the registry's rules for Go packages: a
// valid module path, a v-prefixed semantic version, a GitHub module owned by
// the io.github namespace of its name.
func NewGoServer(g GoServer) (*Server, error) {
	if err := module.CheckPath(g.Module); err != nil {
		return nil, fmt.Errorf("module path: %w", err)
	}
	if !semver.IsValid(g.Version) || semver.Canonical(g.Version) != strings.SplitN(g.Version, "+", 2)[0] {
		return nil, fmt.Errorf("version %q: want a full semantic version with a leading v, such as v1.0.0", g.Version)
	}
	parts := strings.Split(g.Module, "/")
	github := parts[0] == "github.com" && len(parts) >= 3
	if g.Name == "" {
		if !github {
			return nil, fmt.Errorf("module %s: not on github.com, so give the server's name (the registry supports Go modules on GitHub only)", g.Module)
		}
		g.Name = "io.github." + parts[1] + "/" + parts[2]
	}
	if owner, ok := strings.CutPrefix(strings.SplitN(g.Name, "/", 2)[0], "io.github."); ok && (!github || !strings.EqualFold(owner, parts[1])) {
		return nil, fmt.Errorf("name %s: a Go package under io.github.%s must be a module github.com/%s/..., not %s", g.Name, owner, owner, g.Module)
	}
	if g.Transport.Type == "" {
		g.Transport.Type = "stdio"
	}
	s := &Server{
		Schema:      SchemaURL,
		Name:        g.Name,
		Title:       g.Title,
		Description: g.Description,
		Version:     strings.TrimPrefix(g.Version, "v"),
		Packages: []Package{{
			RegistryType:         "go",
			Identifier:           g.Module,
			Version:              g.Version,
			Transport:            g.Transport,
			PackageArguments:     g.Arguments,
			EnvironmentVariables: g.Env,
		}},
	}
	if github {
		s.Repository = &Repository{URL: "https://" + strings.Join(parts[:3], "/"), Source: "github"}
		if len(parts) > 3 {
			s.Repository.Subfolder = strings.Join(parts[3:], "/")
		}
	}
	if _, err := s.Marshal(); err != nil {
		return nil, err
	}
	return s, nil
}

// Marshal returns s as an indented server.json, after checking it against the
// schema (a *schema.ValidationError lists every violation).
func (s *Server) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if err := Validate(b.Bytes()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
