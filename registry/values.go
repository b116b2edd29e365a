package registry

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind says where a value a server needs is given: as an environment
// variable, or as a variable (everything else).
type Kind string

// The kinds of values.
const (
	// KindEnv is an environment variable of a package, by its name.
	KindEnv Kind = "env"
	// KindVar is any other value, by its name: a {variable} of a URL, an
	// argument or a header; a positional argument by its valueHint; a named
	// argument by its name without leading dashes ("--port" is "port"); a
	// header by its name.
	KindVar Kind = "var"
)

// Need is a value the user may give (a fixed value is not one).
type Need struct {
	Kind Kind
	Name string
	// For says what the value is used for: `header "Authorization"`,
	// `argument "--port"`, `URL`, `environment variable`.
	For string
	// Input is the value's description, default, choices, format, and
	// whether it is required or secret.
	Input Input
}

// Values are the values given for a package or a remote, by kind and name.
type Values struct {
	Env  map[string]string
	Vars map[string]string
}

func (v Values) lookup(k Kind, name string) (string, bool) {
	m := v.Vars
	if k == KindEnv {
		m = v.Env
	}
	s, ok := m[name]
	return s, ok
}

// MissingError lists the required values that were neither given nor have a
// default.
type MissingError struct{ Needs []Need }

// Error names every missing value.
func (e *MissingError) Error() string {
	names := make([]string, len(e.Needs))
	for i, n := range e.Needs {
		names[i] = fmt.Sprintf("%s %s (%s)", n.Kind, n.Name, n.For)
	}
	return "missing required values: " + strings.Join(names, ", ")
}

// resolver turns inputs into values, recording what it needed, what was
// missing and which values are secret.
type resolver struct {
	vals    Values
	needs   []Need
	seen    map[string]bool
	missing []Need
	secrets []string
	errs    []error
}

func newResolver(vals Values) *resolver {
	return &resolver{vals: vals, seen: map[string]bool{}}
}

// value resolves in: its fixed Value with its {variables} substituted, or the
// user's value for (kind, name), or its default. ok is false when there is
// none (an optional value left out).
func (r *resolver) value(kind Kind, name, what string, in Input) (s string, ok bool) {
	if in.Value != "" {
		return r.expand(in.Value, in.Variables, what, in.IsSecret)
	}
	key := string(kind) + ":" + name
	if !r.seen[key] {
		r.seen[key] = true
		r.needs = append(r.needs, Need{Kind: kind, Name: name, For: what, Input: in})
	}
	s, ok = r.vals.lookup(kind, name)
	if !ok && in.Default != "" {
		s, ok = in.Default, true
	}
	if !ok {
		if in.IsRequired && !slices.ContainsFunc(r.missing, func(n Need) bool { return n.Kind == kind && n.Name == name }) {
			r.missing = append(r.missing, Need{Kind: kind, Name: name, For: what, Input: in})
		}
		return "", false
	}
	if err := check(in, s); err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s %s (%s): %w", kind, name, what, err))
	}
	if in.IsSecret && s != "" {
		r.secrets = append(r.secrets, s)
	}
	return s, true
}

// expand substitutes the {name}s of template that vars defines, each
// resolved as a KindVar value; other braces are left as written. The result
// is secret when secret is set or a substituted value is.
func (r *resolver) expand(template string, vars map[string]Input, what string, secret bool) (string, bool) {
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			break
		}
		name := rest[open+1 : open+end]
		in, defined := vars[name]
		b.WriteString(rest[:open])
		if !defined {
			b.WriteString(rest[open : open+end+1])
		} else if v, ok := r.value(KindVar, name, what, in); ok {
			b.WriteString(v)
			secret = secret || in.IsSecret
		}
		rest = rest[open+end+1:]
	}
	b.WriteString(rest)
	s := b.String()
	if secret && s != "" {
		r.secrets = append(r.secrets, s)
	}
	return s, true
}

// done returns the first problem: missing values, then wrong ones.
func (r *resolver) done() error {
	if len(r.missing) > 0 {
		return &MissingError{Needs: r.missing}
	}
	return errors.Join(r.errs...)
}

// check says whether s fits in's choices and format.
func check(in Input, s string) error {
	if len(in.Choices) > 0 && !slices.Contains(in.Choices, s) {
		return fmt.Errorf("want one of %s", strings.Join(in.Choices, ", "))
	}
	switch in.Format {
	case "number":
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return errors.New("want a number")
		}
	case "boolean":
		if s != "true" && s != "false" {
			return errors.New("want true or false")
		}
	}
	return nil
}
