package wirecheck

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpkit/mcpkit/internal/specs"
)

// EnvSpecDir is the environment variable that, when set, names a directory holding
// the per-version schemas (<dir>/<version>/schema.json) to use instead of the copies
// embedded in package internal/specs.
const EnvSpecDir = "MCPKIT_SPEC_DIR"

// FindSpecDir returns a directory of official MCP schemas on disk. It is $MCPKIT_SPEC_DIR
// when set; otherwise it walks up from the working directory to the module root (the
// directory holding go.mod) and returns the repository's copy,
// <root>/internal/specs/spec. It fails when the directory does not exist or
// holds no <version>/schema.json.
//
// Checkers do not need it: without SpecDir or $MCPKIT_SPEC_DIR they use the schemas
// embedded in package internal/specs, from any working directory.
//
// A successful answer is remembered for the same environment and working directory.
func FindSpecDir() (string, error) {
	env := os.Getenv(EnvSpecDir)
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("wirecheck: find spec dir: %w", err)
	}
	key := env + "\x00" + wd
	if dir, ok := foundSpecDirs.Load(key); ok {
		return dir.(string), nil
	}
	dir, err := findSpecDir(env, wd)
	if err == nil {
		foundSpecDirs.Store(key, dir)
	}
	return dir, err
}

// foundSpecDirs maps environment value + working directory to the spec dir found.
var foundSpecDirs sync.Map

func findSpecDir(env, wd string) (string, error) {
	if env != "" {
		return checkSpecDir(env, EnvSpecDir)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return checkSpecDir(filepath.Join(dir, filepath.FromSlash(specs.RepoDir)), "module root "+dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("wirecheck: find spec dir: no go.mod above %s (set %s)", wd, EnvSpecDir)
		}
		dir = parent
	}
}

// checkSpecDir makes dir absolute and checks that it holds at least one schema.
func checkSpecDir(dir, origin string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("wirecheck: spec dir %q (from %s): %w", dir, origin, err)
	}
	versions, err := listVersions(os.DirFS(abs))
	if err != nil {
		return "", fmt.Errorf("wirecheck: spec dir %s (from %s): %w", abs, origin, err)
	}
	if len(versions) == 0 {
		return "", fmt.Errorf("wirecheck: spec dir %s (from %s) holds no <version>/schema.json", abs, origin)
	}
	return abs, nil
}

// listVersions returns, oldest first, the directories at the root of fsys that hold a
// schema.json. Version names are dates, so lexical order is release order.
func listVersions(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var versions []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(fsys, e.Name()+"/schema.json"); err == nil {
			versions = append(versions, e.Name())
		}
	}
	sort.Strings(versions)
	return versions, nil
}

// specSource is where a spec set is read from: a directory on disk or the copies
// embedded in package internal/specs.
type specSource struct {
	name    string // the absolute directory, or embeddedName; also the cache key
	fsys    fs.FS  // <version>/schema.json
	urlBase string // the schema of version v has the URL urlBase + v + "/schema.json"
}

// embeddedName names the embedded schemas in messages.
const embeddedName = "the schemas embedded in package internal/specs"

// embeddedSource is the default source: the repository's own copies, compiled in.
var embeddedSource = specSource{name: embeddedName, fsys: specs.FS(), urlBase: "embed:///" + specs.RepoDir + "/"}

// dirSource reads the schemas from dir, an absolute directory checked by checkSpecDir.
func dirSource(dir string) specSource {
	return specSource{name: dir, fsys: os.DirFS(dir),
		urlBase: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/"}).String()}
}

// sourceFor returns where a checker reads its schemas: dir (the SpecDir option) when
// not empty, else $MCPKIT_SPEC_DIR when set, else the embedded schemas.
func sourceFor(dir string) (specSource, error) {
	origin := "SpecDir option"
	if dir == "" {
		dir, origin = os.Getenv(EnvSpecDir), EnvSpecDir
	}
	if dir == "" {
		return embeddedSource, nil
	}
	abs, err := checkSpecDir(dir, origin)
	if err != nil {
		return specSource{}, err
	}
	return dirSource(abs), nil
}

// specSet is every schema version found in one source.
type specSet struct {
	source   string   // where the schemas come from (specSource.name)
	order    []string // version names, oldest first
	versions map[string]*versionSpec
	// metaVersionKeys are the _meta keys that carry a request's protocol version in the
	// versions that have one ("io.modelcontextprotocol/protocolVersion").
	metaVersionKeys []string
}

// versionSpec is one version's schema: its method table and a cache of compiled
// definitions, each compiled at most once per process.
type versionSpec struct {
	name    string
	url     string // URL of schema.json, for the compiler and its messages
	defsKey string // "definitions" (draft-07) or "$defs" (2020-12)
	defs    map[string]any
	table   *table

	mu       sync.Mutex // guards compiler
	compiler *jsonschema.Compiler
	compiled sync.Map // definition name -> *jsonschema.Schema
}

type specLoad struct {
	once sync.Once
	set  *specSet
	err  error
}

// specCache holds one specLoad per source for the life of the process.
var specCache sync.Map

// loadSpecSet reads and indexes every schema of src, once per process.
func loadSpecSet(src specSource) (*specSet, error) {
	v, _ := specCache.LoadOrStore(src.name, &specLoad{})
	l := v.(*specLoad)
	l.once.Do(func() { l.set, l.err = readSpecSet(src) })
	return l.set, l.err
}

func readSpecSet(src specSource) (*specSet, error) {
	names, err := listVersions(src.fsys)
	if err != nil {
		return nil, fmt.Errorf("wirecheck: read %s: %w", src.name, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("wirecheck: %s: no <version>/schema.json", src.name)
	}
	set := &specSet{source: src.name, order: names, versions: make(map[string]*versionSpec, len(names))}
	keys := map[string]bool{}
	for _, name := range names {
		vs, err := readVersion(src, name)
		if err != nil {
			return nil, err
		}
		set.versions[name] = vs
		if k := vs.table.metaVersionKey; k != "" && !keys[k] {
			keys[k] = true
			set.metaVersionKeys = append(set.metaVersionKeys, k)
		}
	}
	return set, nil
}

func readVersion(src specSource, name string) (*versionSpec, error) {
	path := name + "/schema.json"
	data, err := fs.ReadFile(src.fsys, path)
	if err != nil {
		return nil, fmt.Errorf("wirecheck: %s: %w", src.name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("wirecheck: parse %s in %s: %w", path, src.name, err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("wirecheck: %s in %s is not a JSON object", path, src.name)
	}
	vs := &versionSpec{name: name, url: src.urlBase + path}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := root[key].(map[string]any); ok {
			vs.defsKey, vs.defs = key, defs
			break
		}
	}
	if vs.defs == nil {
		return nil, fmt.Errorf("wirecheck: %s has neither $defs nor definitions", vs.url)
	}
	if vs.table, err = buildTable(vs.defs); err != nil {
		return nil, fmt.Errorf("wirecheck: %s: %w", vs.url, err)
	}
	c := jsonschema.NewCompiler()
	// Formats are asserted in every draft alike (draft-07 asserts them by default,
	// 2020-12 does not), so a URI or base64 field is checked whatever the version.
	c.AssertFormat()
	c.RegisterFormat(byteFormat)
	c.RegisterFormat(uriTemplateFormat)
	if err := c.AddResource(vs.url, doc); err != nil {
		return nil, fmt.Errorf("wirecheck: load %s: %w", vs.url, err)
	}
	vs.compiler = c
	return vs, nil
}

// byteFormat checks the schemas' "format": "byte": standard, padded base64.
var byteFormat = &jsonschema.Format{
	Name: "byte",
	Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return errors.New("not standard base64")
		}
		return nil
	},
}

// uriTemplateFormat checks "format": "uri-template" by RFC 6570 syntax. The library's
// own check parses the template as a URL, which rejects valid templates whose
// expressions stand in the host or scheme (users://{org}/{name}).
var uriTemplateFormat = &jsonschema.Format{
	Name: "uri-template",
	Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		_, err := uritemplate.New(s)
		return err
	},
}

// schema returns the compiled definition def, compiling it on first use.
func (vs *versionSpec) schema(def string) (*jsonschema.Schema, error) {
	if s, ok := vs.compiled.Load(def); ok {
		return s.(*jsonschema.Schema), nil
	}
	if _, ok := vs.defs[def]; !ok {
		return nil, fmt.Errorf("wirecheck: %s has no definition %q", vs.name, def)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if s, ok := vs.compiled.Load(def); ok {
		return s.(*jsonschema.Schema), nil
	}
	s, err := vs.compiler.Compile(vs.url + "#/" + vs.defsKey + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("wirecheck: compile %s %s: %w", vs.name, def, err)
	}
	vs.compiled.Store(def, s)
	return s, nil
}

// validate checks inst (a value decoded by jsonschema.UnmarshalJSON) against def.
func (vs *versionSpec) validate(def string, inst any) error {
	s, err := vs.schema(def)
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// latestWith returns the newest version whose table knows method, or "".
func (s *specSet) latestWith(method string) string {
	for i := len(s.order) - 1; i >= 0; i-- {
		if _, ok := s.versions[s.order[i]].table.methods[method]; ok {
			return s.order[i]
		}
	}
	return ""
}

// latest returns the newest version in the set.
func (s *specSet) latest() string { return s.order[len(s.order)-1] }
