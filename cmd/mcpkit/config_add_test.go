package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/registry"
	"github.com/mcpkit/mcpkit/upstream"
)

// examples are the registry's published server.json examples (source and
// license in registry/NOTICE).
const examples = "../../registry/testdata/examples/valid/"

// hostEnv points the hosts' files into dir (Linux layout: HOME and
// XDG_CONFIG_HOME).
func hostEnv(dir string) []string {
	return []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config")}
}

// loadServer parses file as a configuration and returns its server name.
func loadServer(t *testing.T, file, name string) *upstream.ServerConfig {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := upstream.Parse(file, data, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("%s does not load: %v\n%s", file, err, data)
	}
	s := cfg.Servers[name]
	if s == nil {
		t.Fatalf("%s has no server %q:\n%s", file, name, data)
	}
	return s
}

// The npm example into Claude Desktop's, VS Code's and Cursor's files, where
// the hosts keep them, and into a gateway file with comments and another
// server: the command line npx -y NAME@VERSION with the arguments, the secret
// environment variable in the file and nowhere in the output.
func TestConfigAddIntoEachHost(t *testing.T) {
	dir := t.TempDir()
	env := hostEnv(dir)
	gateway := filepath.Join(dir, "gateway.json")
	gatewayText := "{\n  // my servers\n  \"mcpServers\": {\n    \"demo\": {\"command\": \"mcpkit\", \"args\": [\"serve\"]}\n  }\n}\n"
	if err := os.WriteFile(gateway, []byte(gatewayText), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, file, typ string }{
		{"claude", filepath.Join(dir, ".config", "Claude", "claude_desktop_config.json"), ""},
		{"vscode", filepath.Join(dir, ".config", "Code", "User", "mcp.json"), "stdio"},
		{"cursor", filepath.Join(dir, ".cursor", "mcp.json"), ""},
		{gateway, gateway, ""},
	} {
		out, errOut, code := runCLI(t, env, "config", "add", "--server-json", examples+"with-package.json", "--host", c.host,
			"--env", "API_KEY=sk-very-secret", "--var", "config_path=/etc/weather.toml")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.host, code, errOut)
		}
		if strings.Contains(out+errOut, "sk-very-secret") {
			t.Errorf("%s: the secret was printed: %s%s", c.host, out, errOut)
		}
		s := loadServer(t, c.file, "local-weather")
		want := []string{"-y", "@modelcontextprotocol/server-weather@1.0.0", "/etc/weather.toml", "--port", "8080"}
		if s.Command != "npx" || !slices.Equal(s.Args, want) || s.Env["API_KEY"] != "sk-very-secret" || s.Transport != upstream.TransportStdio {
			t.Errorf("%s: got %s %q env %v", c.host, s.Command, s.Args, s.Env)
		}
		data, _ := os.ReadFile(c.file)
		var raw map[string]map[string]map[string]any
		json.Unmarshal(data[strings.IndexByte(string(data), '{'):], &raw) // comments make the gateway's fail: checked below
		if c.typ != "" && raw["servers"]["local-weather"]["type"] != c.typ {
			t.Errorf("%s: want a VS Code entry under \"servers\" with type %q:\n%s", c.host, c.typ, data)
		}
		if fi, err := os.Stat(c.file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v", c.host, fi.Mode(), err)
		}
	}
	data, _ := os.ReadFile(gateway)
	if !strings.Contains(string(data), "// my servers") || loadServer(t, gateway, "demo").Command != "mcpkit" {
		t.Errorf("the gateway file lost its comment or its server:\n%s", data)
	}
	// Adding again refuses; --replace replaces.
	_, errOut, code := runCLI(t, env, "config", "add", "--server-json", examples+"with-package.json", "--host", gateway, "--env", "API_KEY=x", "--var", "config_path=/a")
	if code == 0 || !strings.Contains(errOut, "already configured") {
		t.Fatalf("a second add: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, env, "config", "add", "--server-json", examples+"with-package.json", "--host", gateway, "--env", "API_KEY=x", "--var", "config_path=/a", "--replace"); code != 0 {
		t.Fatalf("--replace: %s", errOut)
	}
	if s := loadServer(t, gateway, "local-weather"); s.Env["API_KEY"] != "x" || s.Args[2] != "/a" {
		t.Fatalf("not replaced: %+v", s)
	}
}

// Every registry type's command line, through the binary (mcpb: below, with a
// bundle served in the test).
func TestConfigAddCommandPerRegistryType(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gateway.json")
	for _, c := range []struct{ example, name, want string }{
		{"pypi-package.json", "database-query-mcp", "uvx database-query-mcp==1.0.0"},
		{"oci-package.json", "kubernetes-manager-mcp", "docker run -i --rm docker.io/yourusername/kubernetes-manager-mcp:1.0.0"},
		{"nuget-package.json", "azure-devops-mcp", "dnx Username.AzureDevOpsMcp@1.0.0 --yes"},
		{"go-package.json", "audit-mcp", "go run github.com/username/audit-mcp@v1.0.0"},
		{"cargo-package.json", "widget-mcp", "widget-mcp"},
	} {
		_, errOut, code := runCLI(t, nil, "config", "add", "--server-json", examples+c.example, "--host", file)
		if code != 0 {
			t.Fatalf("%s: %s", c.example, errOut)
		}
		s := loadServer(t, file, c.name)
		if got := strings.Join(append([]string{s.Command}, s.Args...), " "); got != c.want {
			t.Errorf("%s: %q, want %q", c.example, got, c.want)
		}
		if c.example == "cargo-package.json" && !strings.Contains(errOut, "install it first: cargo install widget-mcp --version 0.3.0 --locked") {
			t.Errorf("cargo: no install hint: %s", errOut)
		}
	}
}

// A remote with a URL variable and a secret header, saved as a registry API
// entry, into VS Code's file: type http, the URL filled in, the header set;
// without the header's value, the error names the flag; Claude Desktop's file
// refuses a remote.
func TestConfigAddRemoteFromRegistryEntry(t *testing.T) {
	dir := t.TempDir()
	env := hostEnv(dir)
	doc, err := os.ReadFile(examples + "with-remote.json")
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(dir, "entry.json")
	os.WriteFile(entry, []byte(`{"server": `+string(doc)+`, "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active"}}}`), 0o600)

	_, errOut, code := runCLI(t, env, "config", "add", "--server-json", entry, "--host", "vscode")
	if code == 0 || !strings.Contains(errOut, "--var Authorization=...") {
		t.Fatalf("missing header: exit %d: %s", code, errOut)
	}
	out, errOut, code := runCLI(t, env, "config", "add", "--server-json", entry, "--host", "vscode", "--var", "host=eu.example.com", "--var", "Authorization=Bearer tok-123")
	if code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(out+errOut, "tok-123") {
		t.Errorf("the secret header was printed: %s", errOut)
	}
	s := loadServer(t, filepath.Join(dir, ".config", "Code", "User", "mcp.json"), "remote-weather")
	if s.Transport != upstream.TransportHTTP || s.URL != "https://eu.example.com/mcp" || s.Headers["Authorization"] != "Bearer tok-123" {
		t.Fatalf("got %+v", s)
	}
	_, errOut, code = runCLI(t, env, "config", "add", "--server-json", entry, "--host", "claude", "--var", "Authorization=x")
	if code == 0 || !strings.Contains(errOut, "stdio") {
		t.Fatalf("a remote into Claude Desktop: exit %d: %s", code, errOut)
	}
}

// A server with several packages and remotes asks which one, listing them.
func TestConfigAddAsksWhichOne(t *testing.T) {
	dir := t.TempDir()
	s := registry.Server{Name: "io.github.example/both", Description: "both", Version: "1.0.0",
		Packages: []registry.Package{{RegistryType: "npm", Identifier: "both-mcp", Version: "1.0.0", Transport: registry.Transport{Type: "stdio"}}},
		Remotes:  []registry.Remote{{Transport: registry.Transport{Type: "sse", URL: "https://example.com/sse"}}}}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "server.json")
	os.WriteFile(file, data, 0o600)
	_, errOut, code := runCLI(t, nil, "config", "add", "--server-json", file, "--host", filepath.Join(dir, "g.json"))
	if code == 0 || !strings.Contains(errOut, "--package 1  npm both-mcp 1.0.0 (stdio)") || !strings.Contains(errOut, "--remote 1   sse https://example.com/sse") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, nil, "config", "add", "--server-json", file, "--host", filepath.Join(dir, "g.json"), "--remote", "1"); code != 0 {
		t.Fatal(errOut)
	}
	if s := loadServer(t, filepath.Join(dir, "g.json"), "both"); s.Transport != upstream.TransportSSE || s.URL != "https://example.com/sse" {
		t.Fatalf("got %+v", s)
	}
	if _, errOut, code := runCLI(t, nil, "config", "add", "--server-json", examples+"../invalid/missing-name.json", "--host", filepath.Join(dir, "g.json")); code == 0 || !strings.Contains(errOut, `missing property "name"`) {
		t.Fatalf("an invalid server.json: exit %d: %s", code, errOut)
	}
}

// Values asked on a terminal: the secret typed is not echoed, the default is
// taken with Enter, and the file gets both.
func TestConfigAddPromptsOnATerminal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	r := startPTYWith(t, ptyOptions{stdin: true}, "config", "add", "--server-json", examples+"with-remote.json", "--host", file)
	r.waitFor("host: ")
	r.send("\r") // the default, api.example.com
	r.waitFor("secret, not shown")
	r.waitFor("Authorization: ")
	r.send("Bearer typed-secret\r")
	_, screen, code := r.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	if strings.Contains(screen, "typed-secret") {
		t.Fatalf("the secret was echoed:\n%s", screen)
	}
	if s := loadServer(t, file, "remote-weather"); s.URL != "https://api.example.com/mcp" || s.Headers["Authorization"] != "Bearer typed-secret" {
		t.Fatalf("got %+v", s)
	}
}

// --prompt reads the answers from standard input when it is not a terminal.
func TestConfigAddPromptFromStdin(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	out, errOut, code := execCLI(t, cliRun{stdin: "/srv/weather.toml\nsk-from-stdin\n",
		args: []string{"config", "add", "--server-json", examples + "with-package.json", "--host", file, "--prompt"}})
	if code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(out+errOut, "sk-from-stdin") {
		t.Fatalf("the secret was printed: %s", errOut)
	}
	if s := loadServer(t, file, "local-weather"); s.Env["API_KEY"] != "sk-from-stdin" || s.Args[2] != "/srv/weather.toml" {
		t.Fatalf("got %+v", s)
	}
}

// A remote installed into a gateway configuration reaches a real server
// through the gateway: the URL variable and the header are what was given.
func TestConfigAddRemoteThroughTheGateway(t *testing.T) {
	base := serveHTTPForTest(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc := fmt.Sprintf(`{"$schema": %q, "name": "io.github.example/demo", "description": "the demo server", "version": "1.0.0",
	  "remotes": [{"type": "streamable-http", "url": "http://127.0.0.1:{port}/mcp", "variables": {"port": {"isRequired": true, "format": "number"}},
	    "headers": [{"name": "X-Team", "value": "{team}", "variables": {"team": {"choices": ["red", "blue"], "default": "red"}}}]}]}`, registry.SchemaURL)
	file := filepath.Join(dir, "server.json")
	os.WriteFile(file, []byte(doc), 0o600)
	cfg := filepath.Join(dir, "gateway.json")
	if _, errOut, code := runCLI(t, nil, "config", "add", "--server-json", file, "--host", cfg, "--var", "port="+u.Port()); code != 0 {
		t.Fatal(errOut)
	}
	if s := loadServer(t, cfg, "demo"); s.Headers["X-Team"] != "red" {
		t.Fatalf("header %v", s.Headers)
	}
	out, errOut, code := runCLI(t, nil, "call", "demo__echo", `{"message":"via registry"}`, "--", mcpkitBin, "gateway", "--config", cfg, "--start-timeout", "30s")
	if code != 0 || !strings.Contains(out, "via registry") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
}

// An MCP Bundle package: config add downloads it over HTTPS, checks its
// SHA-256, unpacks it in the user's cache directory, takes its settings from
// --var, and the gateway runs it as its manifest says (here a script that
// starts the demo server, with a setting in its environment).
func TestConfigAddMCPBundleThroughTheGateway(t *testing.T) {
	dir := t.TempDir()
	manifest := `{"manifest_version": "0.3", "name": "demo", "version": "1.0.0",
	  "server": {"type": "binary", "entry_point": "server/run",
	    "mcp_config": {"command": "${__dirname}/server/run", "args": ["serve"], "env": {"DEMO_GREETING": "${user_config.greeting}"}}},
	  "user_config": {"greeting": {"type": "string", "title": "Greeting", "sensitive": true, "required": true}}}`
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{"manifest.json": manifest, "server/run": "#!/bin/sh\nexec " + mcpkitBin + " \"$@\"\n"} {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o755)
		w, _ := zw.CreateHeader(h)
		w.Write([]byte(body))
	}
	zw.Close()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(zb.Bytes()) }))
	t.Cleanup(srv.Close)
	certFile := filepath.Join(dir, "ca.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	sum := sha256.Sum256(zb.Bytes())
	doc := fmt.Sprintf(`{"$schema": %q, "name": "io.github.example/demo", "description": "the demo server as a bundle", "version": "1.0.0",
	  "packages": [{"registryType": "mcpb", "identifier": "%s/demo.mcpb", "fileSha256": "%x", "transport": {"type": "stdio"}}]}`, registry.SchemaURL, srv.URL, sum)
	file := filepath.Join(dir, "server.json")
	os.WriteFile(file, []byte(doc), 0o600)
	cfg := filepath.Join(dir, "gateway.json")
	env := []string{"SSL_CERT_FILE=" + certFile, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	out, errOut, code := runCLI(t, env, "config", "add", "--server-json", file, "--host", cfg, "--var", "greeting=bundle-secret")
	if code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(out+errOut, "bundle-secret") {
		t.Fatalf("the secret was printed: %s", errOut)
	}
	s := loadServer(t, cfg, "demo")
	wantCmd := filepath.Join(dir, "cache", "mcpkit", "mcpb", fmt.Sprintf("%x", sum), "server", "run")
	if s.Command != wantCmd || s.Env["DEMO_GREETING"] != "bundle-secret" {
		t.Fatalf("got %s %q %v, want %s", s.Command, s.Args, s.Env, wantCmd)
	}
	got, errOut, code := runCLI(t, nil, "call", "demo__echo", `{"message":"from a bundle"}`, "--", mcpkitBin, "gateway", "--config", cfg, "--start-timeout", "30s")
	if code != 0 || !strings.Contains(got, "from a bundle") {
		t.Fatalf("exit %d: %s%s", code, got, errOut)
	}
	// A bundle whose bytes are not the ones fileSha256 names is refused.
	bad := strings.Replace(doc, fmt.Sprintf("%x", sum), strings.Repeat("ab", 32), 1)
	os.WriteFile(file, []byte(bad), 0o600)
	if _, errOut, code := runCLI(t, env, "config", "add", "--server-json", file, "--host", cfg, "--name", "other", "--var", "greeting=x"); code == 0 || !strings.Contains(errOut, "refused") {
		t.Fatalf("a wrong hash: exit %d: %s", code, errOut)
	}
}

// A server.json's strings reach the terminal escaped: an identifier with an
// escape sequence is shown as \x1b, in the choice list and in errors.
func TestConfigAddEscapesServerStrings(t *testing.T) {
	dir := t.TempDir()
	doc := fmt.Sprintf(`{"$schema": %q, "name": "io.github.example/evil", "description": "d", "version": "1.0.0",
	  "packages": [{"registryType": "maven", "identifier": "evil\u001b[2Jpkg", "version": "1", "transport": {"type": "stdio"}},
	               {"registryType": "npm", "identifier": "ok", "version": "1", "transport": {"type": "stdio"}}]}`, registry.SchemaURL)
	file := filepath.Join(dir, "server.json")
	os.WriteFile(file, []byte(doc), 0o600)
	for _, args := range [][]string{{}, {"--package", "1"}} {
		_, errOut, code := runCLI(t, nil, append([]string{"config", "add", "--server-json", file, "--host", filepath.Join(dir, "g.json")}, args...)...)
		if code == 0 || strings.Contains(errOut, "\x1b") || !strings.Contains(errOut, `evil\x1b[2Jpkg`) {
			t.Errorf("%q: exit %d: %q", args, code, errOut)
		}
	}
}

// A secret argument is in the file's command line but masked in what config
// add says.
func TestConfigAddMasksSecretArguments(t *testing.T) {
	dir := t.TempDir()
	doc := fmt.Sprintf(`{"$schema": %q, "name": "io.github.example/tok", "description": "d", "version": "1.0.0",
	  "packages": [{"registryType": "pypi", "identifier": "tok-mcp", "version": "2.0.0", "transport": {"type": "stdio"},
	    "packageArguments": [{"type": "named", "name": "--token", "isSecret": true, "isRequired": true},
	                         {"type": "named", "name": "--auth", "value": "Bearer {key}", "variables": {"key": {"isSecret": true, "isRequired": true}}}]}]}`, registry.SchemaURL)
	file := filepath.Join(dir, "server.json")
	os.WriteFile(file, []byte(doc), 0o600)
	cfg := filepath.Join(dir, "g.json")
	out, errOut, code := runCLI(t, nil, "config", "add", "--server-json", file, "--host", cfg, "--var", "token=tok-one", "--var", "key=key-two")
	if code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(out+errOut, "tok-one") || strings.Contains(out+errOut, "key-two") || !strings.Contains(errOut, "uvx tok-mcp==2.0.0 --token *** --auth ***") {
		t.Fatalf("output: %s", errOut)
	}
	if s := loadServer(t, cfg, "tok"); strings.Join(s.Args, " ") != "tok-mcp==2.0.0 --token tok-one --auth Bearer key-two" {
		t.Fatalf("args %q", s.Args)
	}
}
