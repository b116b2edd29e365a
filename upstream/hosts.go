package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// HostFile is a file where a host application (Claude Desktop, VS Code,
// Cursor, Windsurf) may keep its MCP servers.
type HostFile struct {
	// Host names the application: "Claude Desktop", "VS Code", ...
	Host string
	// Tag is its short name ("claude", "vscode", "cursor", ...): the suffix of
	// a server that Merge renames, and the value of `mcpkit tap install --host`.
	Tag string
	// Path is where the file is.
	Path string
}

// HostFiles lists where the hosts keep their MCP configuration on goos (a
// runtime.GOOS value), env giving HOME, USERPROFILE, APPDATA and
// XDG_CONFIG_HOME. A host with two files (VS Code: mcp.json, then the "mcp"
// section of settings.json) lists them in the order it reads them.
func HostFiles(goos string, env func(string) string) []HostFile {
	home := env("HOME")
	if goos == "windows" && env("USERPROFILE") != "" {
		home = env("USERPROFILE")
	}
	var appData string // where Electron apps keep their settings
	switch goos {
	case "darwin":
		appData = filepath.Join(home, "Library", "Application Support")
	case "windows":
		appData = env("APPDATA")
		if appData == "" {
			appData = filepath.Join(home, "AppData", "Roaming")
		}
	default:
		appData = env("XDG_CONFIG_HOME")
		if appData == "" {
			appData = filepath.Join(home, ".config")
		}
	}
	files := []HostFile{{"Claude Desktop", "claude", filepath.Join(appData, "Claude", "claude_desktop_config.json")}}
	for _, code := range []struct{ dir, host, tag string }{{"Code", "VS Code", "vscode"}, {"Code - Insiders", "VS Code Insiders", "vscode-insiders"}} {
		user := filepath.Join(appData, code.dir, "User")
		files = append(files,
			HostFile{code.host, code.tag, filepath.Join(user, "mcp.json")},
			HostFile{code.host, code.tag, filepath.Join(user, "settings.json")})
	}
	return append(files,
		HostFile{"Cursor", "cursor", filepath.Join(home, ".cursor", "mcp.json")},
		HostFile{"Windsurf", "windsurf", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")})
}

// Merge reads the server entries of files and returns them as one
// configuration file ({"mcpServers": {...}}), entries copied as written
// (variables left for whoever loads the result). A name two files use for
// different servers is kept for the first and gets the second file's Tag as a
// suffix. Missing files are skipped; report (if not nil) is told of each file
// read (n servers) or that failed (err; a settings.json without servers is
// not reported).
func Merge(files []HostFile, report func(f HostFile, n int, err error)) []byte {
	if report == nil {
		report = func(HostFile, int, error) {}
	}
	merged := map[string]json.RawMessage{}
	var order []string
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			report(f, 0, err)
			continue
		}
		entries, err := ServerEntries(f.Path, data)
		if err != nil {
			if filepath.Base(f.Path) != "settings.json" { // most settings files have no servers
				report(f, 0, err)
			}
			continue
		}
		for _, n := range sortedRawKeys(entries) {
			raw := compactJSON(entries[n])
			name := n
			if prev, ok := merged[name]; ok && !bytes.Equal(prev, raw) {
				name = n + "-" + f.Tag
			}
			if _, ok := merged[name]; !ok {
				order = append(order, name)
			}
			merged[name] = raw
		}
		report(f, len(entries), nil)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpServers\": {")
	slices.Sort(order)
	for i, name := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		var entry bytes.Buffer
		_ = json.Indent(&entry, merged[name], "    ", "  ")
		fmt.Fprintf(&b, "\n    %s: %s", key, entry.Bytes())
	}
	if len(order) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	return b.Bytes()
}

// compactJSON returns raw without insignificant white space.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
