package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/protocol"
)

// Transport says how a server is reached.
type Transport string

// Transports of a server.
const (
	// TransportStdio runs the server as a subprocess and talks over its
	// standard input and output.
	TransportStdio Transport = "stdio"
	// TransportHTTP speaks Streamable HTTP, falling back to HTTP+SSE when the
	// server answers as an old (2024-11-05) one does.
	TransportHTTP Transport = "http"
	// TransportSSE speaks only the old HTTP+SSE transport (2024-11-05).
	TransportSSE Transport = "sse"
)

// Config is a set of MCP servers, as read from a configuration file.
type Config struct {
	// Path is the file the configuration came from ("" when built in code). It
	// prefixes error messages; relative cwd and envFile paths are taken from its
	// directory.
	Path string
	// Servers are the configured servers by name, disabled ones included.
	Servers map[string]*ServerConfig
}

// ServerConfig is one configured server.
type ServerConfig struct {
	// Name is the server's name in the configuration.
	Name string
	// Transport says how to reach it.
	Transport Transport
	// Command, Args, Env and Cwd start a stdio server. Env is added to the
	// gateway's own environment.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL and Headers reach an HTTP server.
	URL     string
	Headers map[string]string
	// AllowedTools, when not empty, offers only the tools matching one of
	// these globs; ExcludedTools hides the tools matching one of its globs.
	AllowedTools  []string
	ExcludedTools []string
	// Timeout bounds each request to the server (zero: no bound of its own).
	Timeout time.Duration
	// Disabled servers are not started.
	Disabled bool
	// ProtocolVersion, when set, is spoken instead of detecting the server's era.
	ProtocolVersion string

	// secrets are the values Parse substituted for variables (see Redact).
	secrets []string
}

// ToolAllowed reports whether the configuration lets the server's tool name
// through: it matches AllowedTools (when given) and none of ExcludedTools.
func (s *ServerConfig) ToolAllowed(name string) bool {
	if len(s.AllowedTools) > 0 && !slices.ContainsFunc(s.AllowedTools, func(p string) bool { return globMatch(p, name) }) {
		return false
	}
	return !slices.ContainsFunc(s.ExcludedTools, func(p string) bool { return globMatch(p, name) })
}

// Names returns the names of the configured servers, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ConfigError is a mistake in a configuration file. Its message names the file,
// the server and the field, as far as they are known:
// `mcp.json: server "github": field "url": ...`.
type ConfigError struct {
	File   string
	Server string // "" for a mistake outside any server
	Field  string // "" for a mistake about the whole server or file
	Err    error
}

// Error says where the mistake is and what it is.
func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// Load reads the configuration file at path, substituting variables from the
// process's environment.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the server configuration: %w", err)
	}
	return Parse(path, data, os.LookupEnv)
}

// Parse reads a configuration from data (JSON, comments and trailing commas
// allowed); path names it in errors. Variables are looked up with env (nil:
// none is set). Every mistake found is reported, joined with errors.Join; each
// is a *ConfigError.
func Parse(path string, data []byte, env LookupEnv) (*Config, error) {
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	lists, err := readServerLists(path, data)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Path: path, Servers: map[string]*ServerConfig{}}
	var errs []error
	seen := map[string]string{} // server name → the key it was first found under
	for _, list := range lists {
		for _, name := range sortedRawKeys(list.servers) {
			if first, dup := seen[name]; dup {
				errs = append(errs, &ConfigError{File: path, Server: name, Err: fmt.Errorf("defined twice (under %q and again under %q)", first, list.key)})
				continue
			}
			seen[name] = list.key
			s, serr := parseServer(path, name, list.servers[name], env)
			if serr != nil {
				errs = append(errs, serr...)
				continue
			}
			cfg.Servers[name] = s
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}

// ServerEntries returns the server entries of a configuration file as they are
// written (each one's JSON, comments removed), from any of the layouts Parse
// reads, without checking or substituting them: what `mcpkit config import`
// copies from a host's files. path names the file in errors. A server defined
// under two keys keeps its first definition.
func ServerEntries(path string, data []byte) (map[string]json.RawMessage, error) {
	lists, err := readServerLists(path, data)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for _, list := range lists {
		for name, raw := range list.servers {
			if _, dup := out[name]; !dup {
				out[name] = raw
			}
		}
	}
	return out, nil
}

// readServerLists decodes a configuration file (comments and trailing commas
// allowed) and finds its objects of servers.
func readServerLists(path string, data []byte) ([]serverList, error) {
	clean := stripJSONC(data)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, &ConfigError{File: path, Err: syntaxMessage(clean, err)}
	}
	return serverLists(path, top)
}

// errNoServers is the error of a file with no object of servers.
var errNoServers = errors.New(`no servers: expected an object of servers under "mcpServers" (Claude Desktop, Cursor, Windsurf), "servers" (VS Code) or "mcp"`)

// serverList is one object of servers in the file, and the key it was under.
type serverList struct {
	key     string
	servers map[string]json.RawMessage
}

// serverLists finds the objects of servers: "mcpServers" (Claude Desktop,
// Cursor, Windsurf), "servers" (VS Code's mcp.json), or either under "mcp"
// (VS Code's settings.json).
func serverLists(path string, top map[string]json.RawMessage) ([]serverList, error) {
	var lists []serverList
	add := func(prefix string, obj map[string]json.RawMessage) error {
		for _, key := range []string{"mcpServers", "servers"} {
			raw, ok := obj[key]
			if !ok {
				continue
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return &ConfigError{File: path, Field: prefix + key, Err: fmt.Errorf("want an object of servers by name, got %s", jsonKind(raw))}
			}
			lists = append(lists, serverList{prefix + key, m})
		}
		return nil
	}
	if err := add("", top); err != nil {
		return nil, err
	}
	if raw, ok := top["mcp"]; ok {
		var mcp map[string]json.RawMessage
		if err := json.Unmarshal(raw, &mcp); err != nil {
			return nil, &ConfigError{File: path, Field: "mcp", Err: fmt.Errorf("want an object, got %s", jsonKind(raw))}
		}
		if err := add("mcp.", mcp); err != nil {
			return nil, err
		}
	}
	if len(lists) == 0 {
		return nil, &ConfigError{File: path, Err: errNoServers}
	}
	return lists, nil
}

// serverWire is a server entry as it is written, in the union of the hosts'
// formats.
type serverWire struct {
	Type            string                     `json:"type"`
	Transport       string                     `json:"transport"`
	Command         string                     `json:"command"`
	Args            []string                   `json:"args"`
	Env             map[string]json.RawMessage `json:"env"`
	EnvFile         string                     `json:"envFile"`
	Cwd             string                     `json:"cwd"`
	URL             string                     `json:"url"`
	ServerURL       string                     `json:"serverUrl"` // Windsurf's name for url
	Headers         map[string]json.RawMessage `json:"headers"`
	AllowedTools    []string                   `json:"allowedTools"`
	ExcludedTools   []string                   `json:"excludedTools"`
	Timeout         json.RawMessage            `json:"timeout"`
	Disabled        bool                       `json:"disabled"`
	ProtocolVersion string                     `json:"protocolVersion"`
}

// parseServer decodes and checks one server entry.
func parseServer(path, name string, raw json.RawMessage, env LookupEnv) (*ServerConfig, []error) {
	fail := func(field string, err error) []error {
		return []error{&ConfigError{File: path, Server: name, Field: field, Err: err}}
	}
	if name == "" {
		return nil, fail("", errors.New("a server needs a non-empty name"))
	}
	var w serverWire
	if err := json.Unmarshal(raw, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, fail(te.Field, fmt.Errorf("want %s, got %s", goKind(te.Type.String()), valueKind(te.Value)))
		}
		return nil, fail("", fmt.Errorf("want an object, got %s", jsonKind(raw)))
	}
	var errs []error
	reported := map[string]bool{}
	bad := func(field string, err error) {
		// One mistake per field: a value that could not be substituted is
		// empty, and checking it again would report the same field twice.
		if reported[field] {
			return
		}
		reported[field] = true
		errs = append(errs, &ConfigError{File: path, Server: name, Field: field, Err: err})
	}
	s := &ServerConfig{Name: name, Disabled: w.Disabled, ProtocolVersion: w.ProtocolVersion}
	sub := func(field, v string) string {
		out, err := expand(v, env, func(value string) { s.secrets = append(s.secrets, value) })
		if err != nil {
			bad(field, err)
		}
		return out
	}
	kind := w.Type
	kindField := "type"
	if kind == "" {
		kind, kindField = w.Transport, "transport"
	}
	if w.URL == "" {
		w.URL = w.ServerURL
	}
	switch strings.ToLower(kind) {
	case "":
		switch {
		case w.Command != "" && w.URL != "":
			bad("url", errors.New(`a server has either "command" (stdio) or "url" (HTTP), not both`))
		case w.Command != "":
			s.Transport = TransportStdio
		case w.URL != "":
			s.Transport = TransportHTTP
		default:
			bad("command", errors.New(`missing: give "command" (a stdio server) or "url" (an HTTP server)`))
		}
	case "stdio", "local":
		s.Transport = TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http", "streamable", "remote":
		s.Transport = TransportHTTP
	case "sse":
		s.Transport = TransportSSE
	default:
		bad(kindField, fmt.Errorf("unknown transport %q (want stdio, http, streamable-http or sse)", kind))
	}
	switch s.Transport {
	case TransportStdio:
		if w.Command == "" {
			bad("command", errors.New("missing: a stdio server needs the command that starts it"))
		}
		s.Command = sub("command", w.Command)
		for i, a := range w.Args {
			s.Args = append(s.Args, sub("args["+strconv.Itoa(i)+"]", a))
		}
		s.Env = map[string]string{}
		if w.EnvFile != "" {
			file := sub("envFile", w.EnvFile)
			vars, err := readEnvFile(relativeTo(path, file))
			if err != nil {
				bad("envFile", err)
			}
			for k, v := range vars {
				s.Env[k] = v
			}
		}
		for _, k := range sortedRawKeys(w.Env) {
			s.Env[k] = sub("env."+k, stringValue(w.Env[k], "env."+k, bad))
		}
		if w.Cwd != "" {
			s.Cwd = relativeTo(path, sub("cwd", w.Cwd))
		}
	case TransportHTTP, TransportSSE:
		if w.URL == "" {
			bad("url", errors.New("missing: an HTTP server needs its URL"))
			break
		}
		s.URL = sub("url", w.URL)
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("url", fmt.Errorf("%q is not an http:// or https:// URL", s.URL))
		}
		s.Headers = map[string]string{}
		for _, k := range sortedRawKeys(w.Headers) {
			s.Headers[k] = sub("headers."+k, stringValue(w.Headers[k], "headers."+k, bad))
		}
	}
	for _, f := range []struct {
		field string
		globs []string
	}{{"allowedTools", w.AllowedTools}, {"excludedTools", w.ExcludedTools}} {
		for i, g := range f.globs {
			if g == "" {
				bad(f.field+"["+strconv.Itoa(i)+"]", errors.New("an empty pattern matches no tool"))
			}
		}
	}
	s.AllowedTools, s.ExcludedTools = w.AllowedTools, w.ExcludedTools
	if len(w.Timeout) > 0 && string(w.Timeout) != "null" {
		d, err := parseTimeout(w.Timeout)
		if err != nil {
			bad("timeout", err)
		}
		s.Timeout = d
	}
	if v := w.ProtocolVersion; v != "" && !protocol.IsSupported(v) {
		bad("protocolVersion", fmt.Errorf("%q is not a version mcpkit speaks (%s)", v, strings.Join(protocol.SupportedVersions(), ", ")))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// stringValue decodes a JSON string, reporting anything else as a mistake in
// field.
func stringValue(raw json.RawMessage, field string, bad func(string, error)) string {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		bad(field, fmt.Errorf("want a string, got %s", jsonKind(raw)))
	}
	return v
}

// parseTimeout reads a timeout: a number of seconds, or a Go duration string.
func parseTimeout(raw json.RawMessage) (time.Duration, error) {
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		if secs <= 0 {
			return 0, fmt.Errorf("want a positive number of seconds, got %s", raw)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		d, perr := time.ParseDuration(s)
		if perr == nil && d > 0 {
			return d, nil
		}
	}
	return 0, fmt.Errorf(`want a number of seconds or a duration such as "30s", got %s`, raw)
}

// readEnvFile reads NAME=value lines; blank lines and lines starting with # are
// skipped, and a value may be quoted.
func readEnvFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		k = strings.TrimSpace(k)
		if !ok || !validVarName(k) {
			return nil, fmt.Errorf("%s: line %d: want NAME=value", path, i+1)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		vars[k] = v
	}
	return vars, nil
}

// relativeTo resolves a relative path against the directory of the config file.
func relativeTo(configPath, p string) string {
	if p == "" || filepath.IsAbs(p) || configPath == "" {
		return p
	}
	return filepath.Join(filepath.Dir(configPath), p)
}

// syntaxMessage turns a decoding error of the whole file into one that gives
// the line and column.
func syntaxMessage(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, max(se.Offset-1, 0)) // Offset is just past the culprit
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("want a JSON object at the top, got %s", jsonKind(bytes.TrimSpace(data)))
	}
	return err
}

// jsonKind names the kind of a JSON value for messages.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// valueKind names the kind of JSON value a decoding error found.
func valueKind(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "a boolean"
	}
	return "a " + v
}

// goKind names what a Go type in a decoding error wants, in JSON terms.
func goKind(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array of strings"
	case strings.HasPrefix(t, "map["):
		return "an object of strings"
	}
	return t
}

func sortedRawKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Target is what mcpkit.Dial reaches the server by: its command, environment
// and directory, or its URL, headers and HTTP transport.
func (s *ServerConfig) Target() (mcpkit.Target, error) {
	switch s.Transport {
	case TransportStdio:
		return mcpkit.Target{Command: append([]string{s.Command}, s.Args...), Env: s.Env, Dir: s.Cwd}, nil
	case TransportHTTP, TransportSSE:
		header := make(http.Header, len(s.Headers))
		for k, v := range s.Headers {
			header.Set(k, v)
		}
		t := mcpkit.Target{URL: s.URL, Header: header, Transport: mcpkit.TransportAuto}
		if s.Transport == TransportSSE {
			t.Transport = mcpkit.TransportSSE
		}
		return t, nil
	}
	return mcpkit.Target{}, fmt.Errorf("unknown transport %q", s.Transport)
}
