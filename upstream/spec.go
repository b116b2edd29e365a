package upstream

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// namedServer is a spec with its name: NAME=...
var namedServer = regexp.MustCompile(`^([A-Za-z0-9_-]+)=(.+)$`)

// ParseServerSpec reads a server given on a command line (`mcpkit host
// --server`): [NAME=]URL for an HTTP server (http:// or https://, spoken to
// by Streamable HTTP falling back to HTTP+SSE), or [NAME=]COMMAND LINE for a
// stdio server, split into words as a POSIX shell splits plain words (blanks
// separate them; single quotes keep everything; double quotes keep all but \"
// and \\; a backslash outside quotes keeps the next character). Without a
// name, a URL is named after its host and a command after its program, with
// every character but [A-Za-z0-9_-] made "_".
func ParseServerSpec(spec string) (*ServerConfig, error) {
	spec = strings.TrimSpace(spec)
	var name string
	if m := namedServer.FindStringSubmatch(spec); m != nil {
		name, spec = m[1], strings.TrimSpace(m[2])
	}
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		u, err := url.Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", spec, err)
		}
		if name == "" {
			name = sanitizeName(u.Hostname())
		}
		return &ServerConfig{Name: name, Transport: TransportHTTP, URL: spec}, nil
	}
	command, err := splitCommandLine(spec)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", spec, err)
	}
	if len(command) == 0 {
		return nil, fmt.Errorf("%q: no command", spec)
	}
	if name == "" {
		name = sanitizeName(strings.TrimSuffix(filepath.Base(command[0]), filepath.Ext(command[0])))
	}
	return &ServerConfig{Name: name, Transport: TransportStdio, Command: command[0], Args: command[1:]}, nil
}

// sanitizeName keeps [A-Za-z0-9_-] of a server name.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "server"
	}
	return string(b)
}

// splitCommandLine splits a command line into words as a POSIX shell would
// for plain words: blanks separate them, single quotes keep everything,
// double quotes keep all but \" and \\, and a backslash outside quotes keeps
// the next character.
func splitCommandLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
