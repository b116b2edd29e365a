package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// An MCP Bundle (registryType "mcpb", https://github.com/modelcontextprotocol/mcpb)
// is a zip archive with a manifest.json saying how to run the server inside
// it. FetchBundle downloads it, checks it against the package's fileSha256
// and unpacks it; Bundle.Needs and Bundle.Launch then work as a package's do.

// Bounds of a bundle: its download and unpacked size, and its number of
// files.
const (
	MaxBundleSize  = 512 << 20
	MaxBundleFiles = 50000
)

// Bundle is an MCP Bundle unpacked on disk.
type Bundle struct {
	// Dir is where it is unpacked: ${__dirname} of its manifest.
	Dir      string
	Manifest BundleManifest
}

// BundleManifest is the part of a bundle's manifest.json that says how to run
// it.
type BundleManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Server          struct {
		// Type is "node", "python", "binary" or "uv".
		Type       string           `json:"type"`
		EntryPoint string           `json:"entry_point"`
		MCPConfig  *BundleMCPConfig `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]BundleOption `json:"user_config"`
}

// BundleMCPConfig is the command line of a bundle's server, with variables
// (${__dirname}, ${user_config.KEY}, ${HOME}, ...) and overrides per platform
// (darwin, win32, linux).
type BundleMCPConfig struct {
	Command           string                     `json:"command"`
	Args              []string                   `json:"args"`
	Env               map[string]string          `json:"env"`
	PlatformOverrides map[string]BundleMCPConfig `json:"platform_overrides"`
}

// BundleOption is a setting of the bundle that the user gives.
type BundleOption struct {
	Type        string          `json:"type"` // string, number, boolean, directory, file
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Sensitive   bool            `json:"sensitive"`
	Multiple    bool            `json:"multiple"`
	Default     json.RawMessage `json:"default"`
}

// FetchBundle downloads the package's bundle with client (nil:
// http.DefaultClient) over HTTPS, checks its SHA-256 against fileSha256 and
// unpacks it under cacheDir, in a directory named by that hash (a bundle
// already there is used as is). Archive members that would leave the
// directory, links and special files are refused; sizes are bounded
// (MaxBundleSize, MaxBundleFiles).
func FetchBundle(ctx context.Context, client *http.Client, p *Package, cacheDir string) (*Bundle, error) {
	if p.RegistryType != "mcpb" {
		return nil, fmt.Errorf("package %s: registry type %q is not mcpb", p.Identifier, p.RegistryType)
	}
	sum := strings.ToLower(p.FileSHA256)
	if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("package %s: an MCP Bundle needs fileSha256, the hex SHA-256 of the file", p.Identifier)
	}
	if !strings.HasPrefix(p.Identifier, "https://") {
		return nil, fmt.Errorf("package %s: an MCP Bundle is downloaded over https only", p.Identifier)
	}
	dir := filepath.Join(cacheDir, sum)
	if b, err := openBundle(dir); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return nil, err
	}
	archive, err := download(ctx, client, p.Identifier, cacheDir, sum)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", p.Identifier, err)
	}
	defer os.Remove(archive)
	tmp, err := os.MkdirTemp(cacheDir, ".unpack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := unzip(archive, tmp, MaxBundleSize, MaxBundleFiles); err != nil {
		return nil, fmt.Errorf("package %s: %w", p.Identifier, err)
	}
	if _, err := openBundle(tmp); err != nil {
		return nil, fmt.Errorf("package %s: %w", p.Identifier, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if b, err2 := openBundle(dir); err2 == nil { // unpacked meanwhile by another run
			return b, nil
		}
		return nil, err
	}
	return openBundle(dir)
}

// download fetches url into a file in dir and checks its SHA-256.
func download(ctx context.Context, client *http.Client, url, dir, want string) (string, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("download: %s", resp.Status)
	}
	f, err := os.CreateTemp(dir, ".download-")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), http.MaxBytesReader(nil, resp.Body, MaxBundleSize))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("download: %w (after %d bytes)", err, n)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		os.Remove(f.Name())
		return "", fmt.Errorf("download: SHA-256 %s, but fileSha256 says %s: refused", got, want)
	}
	return f.Name(), nil
}

// openBundle reads the manifest of a bundle unpacked in dir.
func openBundle(dir string) (*Bundle, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	b := &Bundle{Dir: dir}
	if err := json.Unmarshal(data, &b.Manifest); err != nil {
		return nil, fmt.Errorf("bundle: manifest.json: %w", err)
	}
	if b.Manifest.Server.MCPConfig == nil && b.Manifest.Server.EntryPoint == "" {
		return nil, errors.New("bundle: manifest.json: the server has neither mcp_config nor entry_point")
	}
	return b, nil
}

// Needs lists the bundle's settings (user_config), by name, then the
// package's environment variables.
func (b *Bundle) Needs(p *Package) []Need {
	r := newResolver(Values{})
	b.resolve(r, p)
	return r.needs
}

func (b *Bundle) resolve(r *resolver, p *Package) (settings map[string]string, env resolved) {
	settings = map[string]string{}
	keys := make([]string, 0, len(b.Manifest.UserConfig))
	for k := range b.Manifest.UserConfig {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		o := b.Manifest.UserConfig[k]
		in := Input{Description: strings.TrimSpace(o.Title + ": " + o.Description), IsRequired: o.Required, IsSecret: o.Sensitive}
		switch o.Type {
		case "number", "boolean":
			in.Format = o.Type
		case "file", "directory":
			in.Format = "filepath"
		}
		in.Default = b.expandPaths(defaultString(o.Default))
		if v, ok := r.value(KindVar, k, "bundle setting", in); ok {
			settings[k] = v
		}
	}
	return settings, p.resolve(r)
}

// defaultString is a user_config default as text: a string, a number or a
// boolean as written, several values joined by commas.
func defaultString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, ",")
	}
	var v any
	if json.Unmarshal(raw, &v) == nil && v != nil {
		switch v := v.(type) {
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			return strconv.FormatBool(v)
		}
	}
	return ""
}

// Launch returns the command line of the bundle's server for this platform,
// with vals for its settings (KindVar, by user_config name) and the
// package's environment variables. A setting with "multiple" given as
// comma-separated values becomes one argument per value where an argument is
// just that setting.
func (b *Bundle) Launch(p *Package, vals Values) (*Launch, error) {
	r := newResolver(vals)
	settings, in := b.resolve(r, p)
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", b.Manifest.Name, err)
	}
	cfg := b.config()
	l := &Launch{Transport: "stdio", Env: in.env, Secrets: r.secrets}
	sub := func(s string) string {
		s = b.expandPaths(s)
		for k, v := range settings {
			s = strings.ReplaceAll(s, "${user_config."+k+"}", v)
		}
		return s
	}
	l.Command = sub(cfg.Command)
	if !filepath.IsAbs(l.Command) && strings.ContainsAny(l.Command, `/\`) {
		l.Command = filepath.Join(b.Dir, filepath.FromSlash(l.Command))
	}
	for _, a := range cfg.Args {
		if k, ok := strings.CutPrefix(a, "${user_config."); ok && strings.HasSuffix(k, "}") && b.Manifest.UserConfig[strings.TrimSuffix(k, "}")].Multiple {
			if v := settings[strings.TrimSuffix(k, "}")]; v != "" {
				l.Args = append(l.Args, strings.Split(v, ",")...)
			}
			continue
		}
		l.Args = append(l.Args, sub(a))
	}
	for k, v := range cfg.Env {
		if l.Env == nil {
			l.Env = map[string]string{}
		}
		l.Env[k] = sub(v)
	}
	if len(l.Env) == 0 {
		l.Env = nil
	}
	return l, nil
}

// config is the bundle's mcp_config for this platform; without one, the
// command its server type implies for its entry point.
func (b *Bundle) config() BundleMCPConfig {
	s := b.Manifest.Server
	if s.MCPConfig == nil {
		entry := "${__dirname}/" + s.EntryPoint
		switch s.Type {
		case "node":
			return BundleMCPConfig{Command: "node", Args: []string{entry}}
		case "python":
			return BundleMCPConfig{Command: "python3", Args: []string{entry}}
		case "uv":
			return BundleMCPConfig{Command: "uv", Args: []string{"run", "--directory", "${__dirname}", s.EntryPoint}}
		default:
			return BundleMCPConfig{Command: entry}
		}
	}
	cfg := *s.MCPConfig
	platform := map[string]string{"windows": "win32"}[runtime.GOOS]
	if platform == "" {
		platform = runtime.GOOS
	}
	if o, ok := cfg.PlatformOverrides[platform]; ok {
		if o.Command != "" {
			cfg.Command = o.Command
		}
		if o.Args != nil {
			cfg.Args = o.Args
		}
		if o.Env != nil {
			env := maps.Clone(cfg.Env)
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, o.Env)
			cfg.Env = env
		}
	}
	return cfg
}

// expandPaths substitutes the manifest's path variables.
func (b *Bundle) expandPaths(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	home, _ := os.UserHomeDir()
	return strings.NewReplacer(
		"${__dirname}", b.Dir,
		"${HOME}", home,
		"${DESKTOP}", filepath.Join(home, "Desktop"),
		"${DOCUMENTS}", filepath.Join(home, "Documents"),
		"${DOWNLOADS}", filepath.Join(home, "Downloads"),
		"${pathSeparator}", string(filepath.Separator),
		"${/}", string(filepath.Separator),
	).Replace(s)
}
