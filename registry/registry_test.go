package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/schema"
)

// The embedded schema is the one published at SchemaURL, byte for byte (its
// SHA-256 as pinned by projects that vendor it).
func TestSchemaIsThePublishedOne(t *testing.T) {
	sum := sha256.Sum256(Schema())
	if got, want := hex.EncodeToString(sum[:]), "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"; got != want {
		t.Fatalf("server.schema.json sha256 %s, want %s", got, want)
	}
	if !strings.Contains(string(Schema()), `"$id": "`+SchemaURL+`"`) {
		t.Fatalf("the schema's $id is not %s", SchemaURL)
	}
}

// The registry's published examples: the valid ones parse, each invalid one
// is refused for the reason its name gives.
func TestPublishedExamples(t *testing.T) {
	valid, _ := filepath.Glob("testdata/examples/valid/*.json")
	if len(valid) < 9 {
		t.Fatalf("%d valid examples", len(valid))
	}
	for _, f := range valid {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	want := map[string]string{
		"bad-name-pattern.json":                  "/name",
		"description-too-long.json":              "/description: got 111 characters, want at most 100",
		"missing-name.json":                      `missing property "name"`,
		"package-version-latest.json":            "/packages/0/version",
		"positional-argument-missing-value.json": `missing property "valueHint"`,
	}
	for name, msg := range want {
		data, err := os.ReadFile(filepath.Join("testdata/examples/invalid", name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(data)
		var ve *schema.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want a validation error with %q", name, err, msg)
		}
		if Validate(data) == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}

// A registry API entry ({"server": ..., "_meta": ...}) is read as its server,
// and its metadata kept; a list answer is refused with a hint.
func TestRegistryEntryWrapper(t *testing.T) {
	doc, _ := os.ReadFile("testdata/examples/valid/with-package.json")
	entry := `{"server": ` + string(doc) + `, "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": true}}}`
	e, err := Parse([]byte(entry))
	if err != nil {
		t.Fatal(err)
	}
	if e.Server.Name != "io.github.user/local-weather" || !strings.Contains(string(e.RegistryMeta), `"status": "active"`) {
		t.Fatalf("got %+v / %s", e.Server, e.RegistryMeta)
	}
	if _, err := Parse([]byte(`{"server": {"name": "x"}}`)); err == nil {
		t.Fatal("an invalid wrapped server was accepted")
	}
	if _, err := Parse([]byte(`{"servers": [], "metadata": {}}`)); err == nil || !strings.Contains(err.Error(), "save one of its entries") {
		t.Fatalf("list answer: %v", err)
	}
	if _, err := Parse(make([]byte, MaxSize+1)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("oversized: %v", err)
	}
}

func pkg(t *testing.T, file string) *Package {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/examples/valid", file))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return &e.Server.Packages[0]
}

// Each registry type's command line.
func TestLaunchPerRegistryType(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
		env  map[string]string
	}{
		{"with-package.json", []string{"npx", "-y", "@modelcontextprotocol/server-weather@1.0.0", "/etc/w.toml", "--port", "8080"}, map[string]string{"API_KEY": "k-123"}},
		{"pypi-package.json", []string{"uvx", "database-query-mcp==1.0.0"}, nil},
		{"oci-package.json", []string{"docker", "run", "-i", "--rm", "docker.io/yourusername/kubernetes-manager-mcp:1.0.0"}, nil},
		{"nuget-package.json", []string{"dnx", "Username.AzureDevOpsMcp@1.0.0", "--yes"}, nil},
		{"go-package.json", []string{"go", "run", "github.com/username/audit-mcp@v1.0.0"}, nil},
		{"cargo-package.json", []string{"widget-mcp"}, nil},
	} {
		p := pkg(t, c.file)
		l, err := p.Launch(Values{Env: map[string]string{"API_KEY": "k-123"}, Vars: map[string]string{"config_path": "/etc/w.toml"}})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if got := append([]string{l.Command}, l.Args...); !slices.Equal(got, c.want) || l.Transport != "stdio" {
			t.Errorf("%s: %q (%s), want %q", c.file, got, l.Transport, c.want)
		}
		if len(c.env) != len(l.Env) || (c.env != nil && l.Env["API_KEY"] != c.env["API_KEY"]) {
			t.Errorf("%s: env %v, want %v", c.file, l.Env, c.env)
		}
	}
	if l, _ := pkg(t, "with-package.json").Launch(Values{Env: map[string]string{"API_KEY": "k-123"}}); !slices.Equal(l.Secrets, []string{"k-123"}) {
		t.Errorf("secrets %q, want the API key", l.Secrets)
	}
	if l, _ := pkg(t, "cargo-package.json").Launch(Values{}); !slices.Equal(l.Setup, []string{"cargo", "install", "widget-mcp", "--version", "0.3.0", "--locked"}) {
		t.Errorf("cargo setup %q", l.Setup)
	}
	if _, err := pkg(t, "mcpb-package.json").Launch(Values{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("mcpb: %v", err)
	}
	var me *MissingError
	if _, err := pkg(t, "with-package.json").Launch(Values{}); !errors.As(err, &me) || len(me.Needs) != 1 || me.Needs[0].Name != "API_KEY" {
		t.Errorf("a missing required secret: %v", err)
	}
}

// Runtime arguments, variables inside fixed values, choices, formats, and the
// OCI environment passed with -e; runtimeHint replaces the runner.
func TestLaunchArgumentsAndVariables(t *testing.T) {
	p := &Package{
		RegistryType: "oci", Identifier: "example/db-mcp", Version: "3.1.0", Transport: Transport{Type: "stdio"},
		RuntimeArguments: []Argument{
			{Type: "named", Name: "--network", Input: Input{Value: "host"}},
			{Type: "named", Name: "-e", Input: Input{Value: "DB_TYPE={db_type}", Variables: map[string]Input{"db_type": {Choices: []string{"postgres", "mysql"}, IsRequired: true}}}},
		},
		PackageArguments: []Argument{
			{Type: "named", Name: "--host", Input: Input{Default: "localhost"}},
			{Type: "named", Name: "--port", Input: Input{Format: "number"}},
			{Type: "positional", ValueHint: "database_name", Input: Input{IsRequired: true}},
		},
		EnvironmentVariables: []KeyValue{
			{Name: "DB_PASSWORD", Input: Input{IsRequired: true, IsSecret: true}},
			{Name: "SSL_MODE", Input: Input{Default: "prefer", Choices: []string{"disable", "prefer", "require"}}},
		},
	}
	needs := p.Needs()
	var names []string
	for _, n := range needs {
		names = append(names, string(n.Kind)+":"+n.Name)
	}
	if want := []string{"var:db_type", "var:host", "var:port", "var:database_name", "env:DB_PASSWORD", "env:SSL_MODE"}; !slices.Equal(names, want) {
		t.Fatalf("needs %q, want %q", names, want)
	}
	l, err := p.Launch(Values{Env: map[string]string{"DB_PASSWORD": "pw"}, Vars: map[string]string{"db_type": "mysql", "database_name": "orders", "port": "5432"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docker", "run", "-i", "--rm", "--network", "host", "-e", "DB_TYPE=mysql", "-e", "DB_PASSWORD", "-e", "SSL_MODE", "example/db-mcp:3.1.0", "--host", "localhost", "--port", "5432", "orders"}
	if got := append([]string{l.Command}, l.Args...); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if l.Env["SSL_MODE"] != "prefer" || l.Env["DB_PASSWORD"] != "pw" {
		t.Fatalf("env %v", l.Env)
	}
	if _, err := p.Launch(Values{Env: map[string]string{"DB_PASSWORD": "pw"}, Vars: map[string]string{"db_type": "oracle", "database_name": "x", "port": "many"}}); err == nil ||
		!strings.Contains(err.Error(), "want one of postgres, mysql") || !strings.Contains(err.Error(), "want a number") {
		t.Fatalf("bad choice and number: %v", err)
	}
	p.RuntimeHint = "podman"
	if l, _ := p.Launch(Values{Env: map[string]string{"DB_PASSWORD": "pw"}, Vars: map[string]string{"db_type": "mysql", "database_name": "x"}}); l.Command != "podman" {
		t.Fatalf("runtimeHint: %q", l.Command)
	}
	p.Transport = Transport{Type: "streamable-http", URL: "http://localhost:{port}/mcp"}
	if _, err := p.Launch(Values{}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("an HTTP package: %v", err)
	}
}

// A remote: URL variables (default and given), a secret header, a header
// built from a secret variable; a missing required header.
func TestRemoteLaunch(t *testing.T) {
	data, _ := os.ReadFile("testdata/examples/valid/with-remote.json")
	e, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	rm := &e.Server.Remotes[0]
	var me *MissingError
	if _, err := rm.Launch(Values{}); !errors.As(err, &me) || me.Needs[0].Name != "Authorization" || !me.Needs[0].Input.IsSecret {
		t.Fatalf("missing Authorization: %v", err)
	}
	l, err := rm.Launch(Values{Vars: map[string]string{"Authorization": "Bearer s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.URL != "https://api.example.com/mcp" || l.Headers["Authorization"] != "Bearer s3cret" || l.Transport != "streamable-http" || !slices.Contains(l.Secrets, "Bearer s3cret") {
		t.Fatalf("got %+v", l)
	}
	if l, _ := rm.Launch(Values{Vars: map[string]string{"host": "eu.example.com", "Authorization": "x"}}); l.URL != "https://eu.example.com/mcp" {
		t.Fatalf("host variable: %s", l.URL)
	}
	sse := &Remote{Transport: Transport{Type: "sse", URL: "https://{tenant}.example.com/sse", Headers: []KeyValue{
		{Name: "X-API-Key", Input: Input{Value: "Key {token}", Variables: map[string]Input{"token": {IsSecret: true, IsRequired: true}}}},
		{Name: "X-Region", Input: Input{Choices: []string{"us", "eu"}}},
	}}, Variables: map[string]Input{"tenant": {IsRequired: true}}}
	l, err = sse.Launch(Values{Vars: map[string]string{"tenant": "acme", "token": "t0k"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.URL != "https://acme.example.com/sse" || l.Headers["X-API-Key"] != "Key t0k" || len(l.Headers) != 1 || !slices.Contains(l.Secrets, "Key t0k") || !slices.Contains(l.Secrets, "t0k") {
		t.Fatalf("got %+v", l)
	}
	undefined := &Remote{Transport: Transport{Type: "streamable-http", URL: "https://{nowhere}/mcp"}}
	if _, err := undefined.Launch(Values{}); err == nil {
		t.Fatal("a URL with an undefined variable was accepted")
	}
}

// NewGoServer writes a server.json that validates against the schema, and
// refuses what the registry would.
func TestNewGoServer(t *testing.T) {
	s, err := NewGoServer(GoServer{Module: "github.com/Owner/weather-mcp", Version: "v1.2.3", Description: "Weather for Go", Env: []KeyValue{{Name: "WEATHER_KEY", Input: Input{IsRequired: true, IsSecret: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(data); err != nil {
		t.Fatalf("the written server.json does not validate: %v\n%s", err, data)
	}
	e, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p := e.Server.Packages[0]
	if e.Server.Name != "io.github.Owner/weather-mcp" || e.Server.Version != "1.2.3" || p.RegistryType != "go" || p.Identifier != "github.com/Owner/weather-mcp" || p.Version != "v1.2.3" ||
		e.Server.Repository.URL != "https://github.com/Owner/weather-mcp" || e.Server.Schema != SchemaURL {
		t.Fatalf("got %s", data)
	}
	for _, bad := range []GoServer{
		{Module: "github.com/o/r", Version: "1.2.3", Description: "d"},                                // no v
		{Module: "github.com/o/r", Version: "v1.2", Description: "d"},                                 // not full
		{Module: "github.com/o/r", Version: "v1.2.3", Description: "d", Name: "io.github.other/r"},    // not the owner's
		{Module: "example.com/r", Version: "v1.2.3", Description: "d"},                                // no name to derive
		{Module: "github.com/o/r", Version: "v1.2.3", Description: strings.Repeat("long ", 30)},       // schema: maxLength
		{Module: "github.com/o/r", Version: "v1.2.3", Description: "d", Name: "io.github.o/bad name"}, // schema: pattern
		{Module: "Not A Module", Version: "v1.2.3", Description: "d", Name: "com.example/x"},
	} {
		if _, err := NewGoServer(bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

// encoding/json matches member names regardless of case; a "NAME" beside the
// validated "name" must not replace it.
func TestCaseTwinRefused(t *testing.T) {
	_, err := Parse([]byte(`{"name":"a/b","description":"d","version":"1","NAME":"bad name"}`))
	if err == nil || !strings.Contains(err.Error(), "only in case") {
		t.Fatalf("got %v", err)
	}
}
