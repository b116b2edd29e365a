package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Launch is how a host reaches a server: a command it runs (Transport
// "stdio") or a URL it connects to ("streamable-http" or "sse").
type Launch struct {
	Transport string
	// Command, Args and Env start a stdio server.
	Command string
	Args    []string
	Env     map[string]string
	// URL and Headers reach a remote server.
	URL     string
	Headers map[string]string
	// Setup, when not empty, is a command line to run once before the server
	// can start (a crate is installed, then run by name).
	Setup []string
	// Secrets are the values given for secret inputs (and the values built
	// from them): never print or log them.
	Secrets []string
}

// ErrUnsupported is returned (wrapped) for a package Launch cannot run.
var ErrUnsupported = errors.New("not supported")

// Needs lists the values the package may be given (Launch's values), in the
// order they are used: runtime arguments, package arguments, environment.
func (p *Package) Needs() []Need {
	r := newResolver(Values{})
	p.resolve(r)
	return r.needs
}

// Needs lists the values the remote may be given: its URL's variables, then
// its headers.
func (rm *Remote) Needs() []Need {
	r := newResolver(Values{})
	rm.resolve(r)
	return r.needs
}

// resolved is a package's inputs with their values.
type resolved struct {
	runtime, pkg []string
	env          map[string]string
	envNames     []string // in order, those with a value
}

func (p *Package) resolve(r *resolver) resolved {
	out := resolved{env: map[string]string{}}
	out.runtime = arguments(r, p.RuntimeArguments, "runtime argument")
	out.pkg = arguments(r, p.PackageArguments, "argument")
	for _, kv := range p.EnvironmentVariables {
		if v, ok := r.value(KindEnv, kv.Name, "environment variable", kv.Input); ok {
			out.env[kv.Name] = v
			out.envNames = append(out.envNames, kv.Name)
		}
	}
	return out
}

// arguments resolves args into command-line words.
func arguments(r *resolver, args []Argument, what string) []string {
	var out []string
	for _, a := range args {
		switch a.Type {
		case "named":
			name := strings.TrimLeft(a.Name, "-")
			if a.Value == "" && a.Default == "" && a.Variables == nil && !a.IsRequired && a.Format == "boolean" {
				// A flag without a value: given when its variable is "true".
				if v, ok := r.value(KindVar, name, fmt.Sprintf("%s %q", what, a.Name), a.Input); ok && v == "true" {
					out = append(out, a.Name)
				}
				continue
			}
			if v, ok := r.value(KindVar, name, fmt.Sprintf("%s %q", what, a.Name), a.Input); ok {
				out = append(out, a.Name, v)
			}
		default: // positional
			if v, ok := r.value(KindVar, a.ValueHint, fmt.Sprintf("%s %q", what, a.ValueHint), a.Input); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// Launch returns the command line that runs the package, with vals for its
// inputs (a *MissingError lists the required ones without a value). The
// package must use the stdio transport. Per registry type:
//
//	npm    npx -y IDENTIFIER@VERSION ARGS
//	pypi   uvx IDENTIFIER==VERSION ARGS
//	oci    docker run -i --rm [-e NAME]... IMAGE[:VERSION] ARGS
//	nuget  dnx IDENTIFIER@VERSION --yes [-- ARGS]
//	go     go run MODULE@VERSION ARGS
//	cargo  IDENTIFIER ARGS, after Setup: cargo install IDENTIFIER --version VERSION --locked
//
// Runtime arguments go between the runner and the package, package arguments
// after it; runtimeHint, when set, replaces the runner's name. An OCI image
// gets each environment variable passed in with -e (the container sees no other).
// MCPB bundles (a download to verify and unpack) are ErrUnsupported here: see
// FetchBundle and Bundle.Launch.
func (p *Package) Launch(vals Values) (*Launch, error) {
	if t := p.Transport.Type; t != "stdio" {
		return nil, fmt.Errorf("package %s: transport %q: %w: it serves HTTP at %s once started; start it yourself and point the host at that URL", p.Identifier, t, ErrUnsupported, p.Transport.URL)
	}
	r := newResolver(vals)
	in := p.resolve(r)
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("package %s: %w", p.Identifier, err)
	}
	l := &Launch{Transport: "stdio", Env: in.env, Secrets: r.secrets}
	runner := func(def string) string {
		if p.RuntimeHint != "" {
			return p.RuntimeHint
		}
		return def
	}
	spec := func(sep string) string {
		if p.Version == "" {
			return p.Identifier
		}
		return p.Identifier + sep + p.Version
	}
	switch p.RegistryType {
	case "npm":
		l.Command = runner("npx")
		l.Args = slices.Clone(in.runtime)
		if l.Command == "npx" && !slices.Contains(in.runtime, "-y") && !slices.Contains(in.runtime, "--yes") {
			l.Args = append(l.Args, "-y")
		}
		l.Args = append(append(l.Args, spec("@")), in.pkg...)
	case "pypi":
		l.Command = runner("uvx")
		l.Args = append(append(slices.Clone(in.runtime), spec("==")), in.pkg...)
	case "oci":
		l.Command = runner("docker")
		l.Args = append([]string{"run", "-i", "--rm"}, in.runtime...)
		for _, name := range in.envNames {
			l.Args = append(l.Args, "-e", name)
		}
		l.Args = append(append(l.Args, image(p.Identifier, p.Version)), in.pkg...)
	case "nuget":
		l.Command = runner("dnx")
		l.Args = append(slices.Clone(in.runtime), spec("@"), "--yes")
		if len(in.pkg) > 0 {
			l.Args = append(append(l.Args, "--"), in.pkg...)
		}
	case "go":
		if p.Version == "" {
			return nil, fmt.Errorf("package %s: a Go module needs a version", p.Identifier)
		}
		l.Command = runner("go")
		l.Args = append(append(append([]string{"run"}, in.runtime...), spec("@")), in.pkg...)
	case "cargo":
		l.Command = p.Identifier
		l.Args = in.pkg
		l.Setup = []string{"cargo", "install", p.Identifier}
		if p.Version != "" {
			l.Setup = append(l.Setup, "--version", p.Version)
		}
		l.Setup = append(l.Setup, "--locked")
	case "mcpb":
		return nil, fmt.Errorf("package %s: registry type mcpb: %w: an MCP Bundle is downloaded, checked and unpacked first (FetchBundle), then run by Bundle.Launch", p.Identifier, ErrUnsupported)
	default:
		return nil, fmt.Errorf("package %s: registry type %q: %w", p.Identifier, p.RegistryType, ErrUnsupported)
	}
	if len(l.Env) == 0 {
		l.Env = nil
	}
	return l, nil
}

// image is an OCI reference with version as its tag when it has neither a
// tag nor a digest.
func image(ref, version string) string {
	last := ref[strings.LastIndexByte(ref, '/')+1:]
	if version == "" || strings.Contains(last, ":") || strings.Contains(ref, "@") {
		return ref
	}
	return ref + ":" + version
}

// Launch returns the URL and headers that reach the remote, with vals for
// its URL's variables and its headers (a *MissingError lists the required
// ones without a value). A header without a value is left out.
func (rm *Remote) Launch(vals Values) (*Launch, error) {
	if rm.Type != "streamable-http" && rm.Type != "sse" {
		return nil, fmt.Errorf("remote %s: transport %q: %w", rm.URL, rm.Type, ErrUnsupported)
	}
	r := newResolver(vals)
	l := rm.resolve(r)
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("remote %s: %w", rm.URL, err)
	}
	if i := strings.IndexByte(l.URL, '{'); i >= 0 && strings.IndexByte(l.URL[i:], '}') > 0 {
		return nil, fmt.Errorf("remote %s: the URL has a {variable} the remote does not define", rm.URL)
	}
	l.Secrets = r.secrets
	return l, nil
}

func (rm *Remote) resolve(r *resolver) *Launch {
	url, _ := r.expand(rm.URL, rm.Variables, "URL", false)
	l := &Launch{Transport: rm.Type, URL: url}
	for _, h := range rm.Headers {
		if v, ok := r.value(KindVar, h.Name, fmt.Sprintf("header %q", h.Name), h.Input); ok {
			if l.Headers == nil {
				l.Headers = map[string]string{}
			}
			l.Headers[h.Name] = v
		}
	}
	return l
}
