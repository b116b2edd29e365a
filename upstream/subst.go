package upstream

import (
	"fmt"
	"strings"
)

// LookupEnv looks up an environment variable, as os.LookupEnv does.
type LookupEnv func(name string) (string, bool)

// Expand replaces the variables in s as a configuration file's values have
// them replaced: ${env:VAR}, ${VAR}, ${VAR:-default} and ${userHome} (see
// expand). Commands use it for values given on their command line, such as
// `mcpkit host --header`.
func Expand(s string, env LookupEnv) (string, error) { return expand(s, env, nil) }

// expand replaces the variables in s: ${env:VAR} and ${VAR} (the value of VAR,
// which must be set), ${VAR:-default} and ${env:VAR:-default} (default when VAR
// is unset or empty), and ${userHome} (VS Code's name for $HOME). "$${" stands
// for a literal "${"; any other "$" is kept as it is. Any other ${...} is an
// error: VS Code's ${input:...} and its predefined variables such as
// ${workspaceFolder} (unless the environment sets one: ${NAME} reads it) need
// VS Code to fill them in. found, when not nil, is given the value of each
// variable but ${userHome}: values a configuration keeps out of its file are
// taken for secrets (see ServerConfig.Redact).
func expand(s string, env LookupEnv, found func(value string)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$${"):
			b.WriteString("${")
			s = s[3:]
		case strings.HasPrefix(s, "${"):
			end := strings.IndexByte(s, '}')
			if end < 0 {
				return "", fmt.Errorf("%q: a ${ without its closing }", s)
			}
			ref := s[2:end]
			v, err := variable(ref, env)
			if err != nil {
				return "", err
			}
			if found != nil && ref != "userHome" {
				found(v)
			}
			b.WriteString(v)
			s = s[end+1:]
		default:
			b.WriteByte('$')
			s = s[1:]
		}
	}
}

// variable returns the value of the variable reference ref (what is between
// "${" and "}").
func variable(ref string, env LookupEnv) (string, error) {
	if ref == "userHome" {
		if home, ok := env("HOME"); ok && home != "" {
			return home, nil
		}
		if home, ok := env("USERPROFILE"); ok && home != "" {
			return home, nil
		}
		return "", fmt.Errorf("${userHome}: neither HOME nor USERPROFILE is set")
	}
	name := strings.TrimPrefix(ref, "env:")
	name, def, hasDefault := strings.Cut(name, ":-")
	if !validVarName(name) {
		if prefix, _, ok := strings.Cut(ref, ":"); ok && prefix != "env" {
			return "", fmt.Errorf("${%s}: unsupported variable (only ${env:NAME}, ${NAME}, ${NAME:-default} and ${userHome}; put the value in an environment variable)", ref)
		}
		return "", fmt.Errorf("${%s}: %q is not an environment variable name", ref, name)
	}
	v, ok := env(name)
	if hasDefault && (!ok || v == "") {
		return def, nil
	}
	if !ok {
		if ref == name && vsCodeVariables[name] {
			return "", fmt.Errorf("${%s}: a VS Code variable, which only VS Code fills in (mcpkit substitutes ${env:NAME}, ${NAME}, ${NAME:-default} and ${userHome}; write the value itself, or take it from the environment with ${env:NAME})", ref)
		}
		return "", fmt.Errorf("${%s}: the environment variable %s is not set (give a default with ${%s:-value})", ref, name, name)
	}
	return v, nil
}

// vsCodeVariables are the predefined variables of VS Code's configuration
// files that look like environment variable names. A reference to one that
// the environment does not set is reported as what it is, not as a missing
// environment variable.
var vsCodeVariables = map[string]bool{
	"workspaceFolder": true, "workspaceFolderBasename": true, "workspaceRoot": true,
	"file": true, "fileWorkspaceFolder": true, "relativeFile": true, "relativeFileDirname": true,
	"fileBasename": true, "fileBasenameNoExtension": true, "fileExtname": true, "fileDirname": true,
	"fileDirnameBasename": true, "cwd": true, "lineNumber": true, "selectedText": true,
	"execPath": true, "defaultBuildTask": true, "pathSeparator": true,
}

// validVarName reports whether name is an environment variable name:
// [A-Za-z_][A-Za-z0-9_]*.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
