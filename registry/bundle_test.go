package registry

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// zipOf makes a zip archive of files (name → content; a name ending in "*"
// is executable, a name starting with "@" a symlink to its content).
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		h := &zip.FileHeader{Name: strings.TrimSuffix(strings.TrimPrefix(n, "@"), "*"), Method: zip.Deflate}
		h.SetMode(0o644)
		if strings.HasSuffix(n, "*") {
			h.SetMode(0o755)
		}
		if strings.HasPrefix(n, "@") {
			h.SetMode(os.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[n]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// serveBundle serves data over HTTPS and returns the package that names it.
func serveBundle(t *testing.T, data []byte) (*Package, *http.Client) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(data)
	return &Package{RegistryType: "mcpb", Identifier: srv.URL + "/weather.mcpb", FileSHA256: hex.EncodeToString(sum[:]), Transport: Transport{Type: "stdio"}}, srv.Client()
}

const testManifest = `{
  "manifest_version": "0.3", "name": "weather", "version": "1.0.0",
  "server": {"type": "binary", "entry_point": "server/weather",
    "mcp_config": {"command": "${__dirname}/server/weather", "args": ["--dirs", "${user_config.dirs}", "--units=${user_config.units}"],
      "env": {"API_KEY": "${user_config.api_key}", "DATA": "${__dirname}${/}data"}}},
  "user_config": {
    "api_key": {"type": "string", "title": "API Key", "sensitive": true, "required": true},
    "units": {"type": "string", "title": "Units", "default": "metric"},
    "dirs": {"type": "directory", "title": "Folders", "multiple": true, "default": ["/tmp/a"]}
  }
}`

// A bundle is downloaded, checked and unpacked; its settings are its needs;
// its command line has ${__dirname}, the settings and the multiple values
// substituted; a second fetch uses the unpacked copy.
func TestFetchBundleAndLaunch(t *testing.T) {
	p, client := serveBundle(t, zipOf(t, map[string]string{"manifest.json": testManifest, "server/weather*": "#!/bin/sh\n", "data/x.txt": "x"}))
	cache := t.TempDir()
	b, err := FetchBundle(t.Context(), client, p, cache)
	if err != nil {
		t.Fatal(err)
	}
	if b.Dir != filepath.Join(cache, p.FileSHA256) {
		t.Fatalf("unpacked in %s", b.Dir)
	}
	if fi, err := os.Stat(filepath.Join(b.Dir, "server", "weather")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the server binary: %v %v", fi, err)
	}
	var names []string
	for _, n := range b.Needs(p) {
		names = append(names, n.Name)
	}
	if !slices.Equal(names, []string{"api_key", "dirs", "units"}) {
		t.Fatalf("needs %q", names)
	}
	if _, err := b.Launch(p, Values{}); err == nil || !strings.Contains(err.Error(), "api_key") {
		t.Fatalf("missing api_key: %v", err)
	}
	l, err := b.Launch(p, Values{Vars: map[string]string{"api_key": "k-1", "dirs": "/srv/a,/srv/b"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Command != filepath.Join(b.Dir, "server", "weather") || !slices.Equal(l.Args, []string{"--dirs", "/srv/a", "/srv/b", "--units=metric"}) ||
		l.Env["API_KEY"] != "k-1" || l.Env["DATA"] != b.Dir+"/data" || !slices.Contains(l.Secrets, "k-1") {
		t.Fatalf("got %+v", l)
	}
	again, err := FetchBundle(t.Context(), &http.Client{Transport: failing{}}, p, cache)
	if err != nil || again.Dir != b.Dir {
		t.Fatalf("a second fetch downloaded again: %v", err)
	}
}

type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, os.ErrDeadlineExceeded }

// A bundle whose hash is not fileSha256, or whose members would leave its
// directory or are links, is refused and nothing is left unpacked.
func TestFetchBundleRefuses(t *testing.T) {
	good := zipOf(t, map[string]string{"manifest.json": testManifest})
	for name, c := range map[string]struct {
		data []byte
		edit func(*Package)
		want string
	}{
		"wrong hash":      {good, func(p *Package) { p.FileSHA256 = strings.Repeat("0", 64) }, "refused"},
		"no hash":         {good, func(p *Package) { p.FileSHA256 = "" }, "fileSha256"},
		"http":            {good, func(p *Package) { p.Identifier = "http" + strings.TrimPrefix(p.Identifier, "https") }, "https only"},
		"traversal":       {zipOf(t, map[string]string{"manifest.json": testManifest, "../evil": "x"}), nil, "plain relative path"},
		"absolute":        {zipOf(t, map[string]string{"manifest.json": testManifest, "/etc/evil": "x"}), nil, "plain relative path"},
		"symlink":         {zipOf(t, map[string]string{"manifest.json": testManifest, "@link": "/etc/passwd"}), nil, "not a regular file"},
		"no manifest":     {zipOf(t, map[string]string{"server/x": "x"}), nil, "manifest.json"},
		"not a zip":       {[]byte("hello"), nil, "zip"},
		"manifest no run": {zipOf(t, map[string]string{"manifest.json": `{"name":"x","server":{}}`}), nil, "neither"},
	} {
		p, client := serveBundle(t, c.data)
		if c.edit != nil {
			c.edit(p)
		}
		cache := t.TempDir()
		_, err := FetchBundle(t.Context(), client, p, cache)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
		if left, _ := os.ReadDir(cache); len(left) != 0 {
			t.Errorf("%s: left %v in the cache", name, left)
		}
	}
}

// Without mcp_config, the server type says how to run the entry point.
func TestBundleDefaultCommand(t *testing.T) {
	for typ, want := range map[string][]string{
		"node":   {"node", "/b/server/index.js"},
		"python": {"python3", "/b/server/index.js"},
		"binary": {"/b/server/index.js"},
		"uv":     {"uv", "run", "--directory", "/b", "server/index.js"},
	} {
		b := &Bundle{Dir: "/b"}
		b.Manifest.Server.Type, b.Manifest.Server.EntryPoint = typ, "server/index.js"
		l, err := b.Launch(&Package{RegistryType: "mcpb"}, Values{})
		if err != nil {
			t.Fatal(err)
		}
		if got := append([]string{l.Command}, l.Args...); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", typ, got, want)
		}
	}
}

// The unpacked size is bounded over all members: a bomb is stopped.
func TestUnzipBounds(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "a.zip")
	os.WriteFile(archive, zipOf(t, map[string]string{"a": strings.Repeat("x", 600), "b": strings.Repeat("y", 600)}), 0o600)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o700)
	if err := unzip(archive, out, 1000, 10); err == nil || !strings.Contains(err.Error(), "more than the size allowed") {
		t.Fatalf("got %v", err)
	}
	out2 := filepath.Join(dir, "out2")
	os.Mkdir(out2, 0o700)
	if err := unzip(archive, out2, 10000, 1); err == nil || !strings.Contains(err.Error(), "2 members") {
		t.Fatalf("got %v", err)
	}
}
