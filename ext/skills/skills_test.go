package skills_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

const (
	pdfURI   = "skill://pdf-processing/SKILL.md"
	formsURI = "skill://pdf-processing/references/FORMS.md"
)

// serve returns an mcp.Server with sk registered.
func serve(t *testing.T, sk *skills.Server) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "skills-test", Version: "1"}, nil)
	sk.Register(srv)
	return srv
}

// fixture serves testdata/skills (copied to a temporary directory when copy is
// set, for tests that change it) and returns its directory.
func fixture(t *testing.T, opts *skills.Options, copyIt bool) (*skills.Server, string) {
	t.Helper()
	dir := "testdata/skills"
	if copyIt {
		dir = filepath.Join(t.TempDir(), "skills")
		if err := os.CopyFS(dir, os.DirFS("testdata/skills")); err != nil {
			t.Fatal(err)
		}
	}
	sk := skills.NewServer(opts)
	if err := sk.AddDir(dir, ""); err != nil {
		t.Fatal(err)
	}
	return sk, dir
}

// bothEras runs f with a client of srv in each era.
func bothEras(t *testing.T, srv *mcp.Server, f func(t *testing.T, cs *mcp.ClientSession)) {
	for _, v := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(v, func(t *testing.T) {
			cs, _ := mcptest.Connect(t, srv, mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: v}), nil)
			f(t, cs)
		})
	}
}

func code(t *testing.T, err error) int64 {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return je.Code
}

func TestListGetLoadBothEras(t *testing.T) {
	sk, _ := fixture(t, &skills.Options{PageSize: 1, DirectoryRead: true}, false)
	srv := serve(t, sk)
	bothEras(t, srv, func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		c := skills.NewClient(cs)
		if !c.Supported() || !c.DirectoryRead() {
			t.Fatal("the extension and directoryRead are not declared")
		}
		if cs.InitializeResult().Capabilities.Resources == nil {
			t.Fatal("the resources capability is not declared")
		}
		first, err := c.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Skills) != 1 || first.NextCursor == "" || first.TTLMs == nil || first.CacheScope == "" {
			t.Fatalf("page 1: %+v", first)
		}
		var all []skills.Skill
		for s, err := range c.All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, s)
		}
		if len(all) != 2 || all[0].URI != "skill://acme/billing/refunds/SKILL.md" || all[1].URI != pdfURI {
			t.Fatalf("all skills: %+v", all)
		}
		pdf := all[1]
		if pdf.Name() != "pdf-processing" || len(pdf.Resources) != 3 || pdf.Frontmatter["license"] != "Apache-2.0" {
			t.Fatalf("entry %+v", pdf)
		}
		md := pdf.Frontmatter["metadata"].(map[string]any)
		if md["reviewed"] != "2026-11-01" || md["version"] != "2.1.0" {
			t.Fatalf("frontmatter metadata %v", md)
		}
		got, err := c.Get(ctx, pdfURI)
		if err != nil || got.URI != pdfURI || len(got.Resources) != 3 {
			t.Fatalf("get: %+v %v", got, err)
		}
		if _, err := c.Get(ctx, "skill://nope/SKILL.md"); code(t, err) != protocol.CodeInvalidParams {
			t.Fatalf("get of an unknown skill: %v", err)
		}
		// A custom method with wrong params is refused before the handler runs.
		if err := cs.Call(ctx, skills.MethodGet, map[string]any{"uri": 5}, nil); code(t, err) != protocol.CodeInvalidParams {
			t.Fatalf("skills/get with a number for uri: %v", err)
		}
		l, err := c.Load(ctx, &pdf)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(l.SkillMD), "# PDF processing") {
			t.Fatalf("SKILL.md %q", l.SkillMD)
		}
		forms, err := l.ReadFile(ctx, formsURI)
		if err != nil || !strings.Contains(string(forms), "signature") {
			t.Fatalf("FORMS.md: %q %v", forms, err)
		}
		if _, err := l.ReadFile(ctx, "skill://pdf-processing/secret.txt"); !errors.Is(err, skills.ErrVerification) {
			t.Fatalf("an unlisted file: %v", err)
		}
		// SKILL.md is a resource named and described from its frontmatter.
		for r, err := range cs.Resources(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if r.URI == pdfURI && (r.Name != "pdf-processing" || r.MimeType != "text/markdown" || !strings.HasPrefix(r.Description, "Extract")) {
				t.Fatalf("SKILL.md resource %+v", r)
			}
		}
	})
}

func TestDirectoryRead(t *testing.T) {
	sk, _ := fixture(t, &skills.Options{DirectoryRead: true}, false)
	bothEras(t, serve(t, sk), func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		c := skills.NewClient(cs)
		root, err := c.ReadDir(ctx, "skill://pdf-processing", "")
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]string{}
		for _, r := range root.Resources {
			kinds[r.URI] = r.MimeType
		}
		if len(kinds) != 3 || kinds["skill://pdf-processing/references"] != skills.DirectoryMimeType || kinds[pdfURI] != "text/markdown" {
			t.Fatalf("root children %v", kinds)
		}
		sub, err := c.ReadDir(ctx, "skill://pdf-processing/references", "")
		if err != nil || len(sub.Resources) != 1 || sub.Resources[0].URI != formsURI {
			t.Fatalf("references/: %+v %v", sub, err)
		}
		for _, uri := range []string{formsURI, "skill://nope", "skill://pdf-processing/../acme", "/etc", "skill://pdf-processing/references/"} {
			if _, err := c.ReadDir(ctx, uri, ""); code(t, err) != protocol.CodeInvalidParams {
				t.Fatalf("directory read of %s: %v, want -32602", uri, err)
			}
		}
	})
	// Without the setting the method is not served (an unknown method).
	plain, _ := fixture(t, nil, false)
	cs, _ := mcptest.Connect(t, serve(t, plain), mcptest.NewClient(nil), nil)
	if err := cs.Call(testkit.Context(t), skills.MethodDirectoryRead, &skills.DirectoryReadParams{URI: "skill://pdf-processing"}, nil); code(t, err) != protocol.CodeMethodNotFound {
		t.Fatalf("directory read without directoryRead: %v", err)
	}
}

func TestChangedFileFailsVerification(t *testing.T) {
	sk, dir := fixture(t, nil, true)
	bothEras(t, serve(t, sk), func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		c := skills.NewClient(cs)
		entry, err := c.Get(ctx, pdfURI)
		if err != nil {
			t.Fatal(err)
		}
		l, err := c.Load(ctx, entry)
		if err != nil {
			t.Fatal(err)
		}
		// Same size, other bytes: the digest catches it.
		forms := filepath.Join(dir, "pdf-processing/references/FORMS.md")
		old, _ := os.ReadFile(forms)
		changed := []byte(strings.Replace(string(old), "date", "DATE", 1))
		if err := os.WriteFile(forms, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.WriteFile(forms, old, 0o644) })
		_, err = l.ReadFile(ctx, formsURI)
		if !errors.Is(err, skills.ErrVerification) || !strings.Contains(err.Error(), "digest") {
			t.Fatalf("a file changed after listing: %v", err)
		}
		// Longer: the size catches it.
		if err := os.WriteFile(forms, append(old, "more\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err = l.ReadFile(ctx, formsURI); !errors.Is(err, skills.ErrVerification) || !strings.Contains(err.Error(), "size") {
			t.Fatalf("a longer file: %v", err)
		}
		// SKILL.md changed: Load refuses the skill.
		md := filepath.Join(dir, "pdf-processing/SKILL.md")
		oldMD, _ := os.ReadFile(md)
		if err := os.WriteFile(md, []byte(strings.Replace(string(oldMD), "Extract", "Exfiltrate", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.WriteFile(md, oldMD, 0o644) })
		if _, err := c.Load(ctx, entry); !errors.Is(err, skills.ErrVerification) {
			t.Fatalf("a changed SKILL.md: %v", err)
		}
		_ = os.WriteFile(forms, old, 0o644)
		_ = os.WriteFile(md, oldMD, 0o644)
	})
}

func TestFrontmatterMismatchRefused(t *testing.T) {
	sk := skills.NewServer(nil)
	if err := sk.AddFS(fstest.MapFS{"demo/SKILL.md": {Data: []byte("---\nname: demo\ndescription: the real one\n---\nbody\n")}}, ""); err != nil {
		t.Fatal(err)
	}
	cs, _ := mcptest.Connect(t, serve(t, sk), mcptest.NewClient(nil), nil)
	ctx := testkit.Context(t)
	c := skills.NewClient(cs)
	e, err := c.Get(ctx, "skill://demo/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	e.Frontmatter["description"] = "what the user approved"
	if _, err := c.Load(ctx, e); !errors.Is(err, skills.ErrVerification) || !strings.Contains(err.Error(), "description") {
		t.Fatalf("frontmatter differing from the entry: %v", err)
	}
	for _, bad := range []skills.Skill{
		{URI: "skill://demo/SKILL.md", Frontmatter: e.Frontmatter},                                                 // no SKILL.md in resources
		{URI: "skill://other/SKILL.md", Frontmatter: e.Frontmatter, Resources: e.Resources},                        // name ≠ directory
		{URI: "skill://demo/SKILL.md", Frontmatter: e.Frontmatter, Resources: append(e.Resources, e.Resources[0])}, // twice
		{URI: "skill://demo/SKILL.md", Frontmatter: e.Frontmatter, Resources: []skills.Resource{{URI: "skill://demo/SKILL.md", Digest: "md5:00", Size: 1}}},
		{URI: "skill://demo/SKILL.md", Frontmatter: e.Frontmatter, Resources: []skills.Resource{e.Resources[0], {URI: "skill://elsewhere/x", Digest: e.Resources[0].Digest}}},
	} {
		if _, err := c.Load(ctx, &bad); !errors.Is(err, skills.ErrVerification) {
			t.Errorf("a malformed entry %+v loaded: %v", bad, err)
		}
	}
}

func TestNothingServedOutsideTheRoot(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "skills")
	if err := os.CopyFS(root, os.DirFS("testdata/skills")); err != nil {
		t.Fatal(err)
	}
	// A symbolic link inside a skill is refused when loading.
	link := filepath.Join(root, "pdf-processing/references/leak.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := skills.NewServer(nil).AddDir(root, ""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a symlink in a skill: %v", err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	sk := skills.NewServer(&skills.Options{DirectoryRead: true})
	if err := sk.AddDir(root, ""); err != nil {
		t.Fatal(err)
	}
	// A symbolic link planted after loading, in place of a served file.
	forms := filepath.Join(root, "pdf-processing/references/FORMS.md")
	if err := os.Remove(forms); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, forms); err != nil {
		t.Fatal(err)
	}
	bothEras(t, serve(t, sk), func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		for _, uri := range []string{
			formsURI,
			"skill://pdf-processing/../secret.txt",
			"skill://pdf-processing/%2e%2e/secret.txt",
			"skill://" + secret,
			"file://" + secret,
		} {
			res, err := cs.ReadResource(ctx, uri)
			if err == nil {
				t.Fatalf("read %s: %+v", uri, res)
			}
			if strings.Contains(err.Error(), "top secret") {
				t.Fatalf("read %s leaked: %v", uri, err)
			}
		}
	})
	// OpenDir refuses escapes by path too.
	fsys, err := skills.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../secret.txt", secret, "pdf-processing/references/FORMS.md"} {
		if data, err := fs.ReadFile(fsys, name); err == nil {
			t.Fatalf("OpenDir read %s: %q", name, data)
		}
	}
}

func TestBadSkillFilesRefused(t *testing.T) {
	huge := "---\nname: huge\ndescription: d\n---\n" + strings.Repeat("x", skills.MaxSkillFileSize)
	for name, data := range map[string]string{
		"huge":     huge,
		"binary":   "---\nname: binary\ndescription: d\n---\n\x00\x01\xff",
		"none":     "# no frontmatter\n",
		"unclosed": "---\nname: unclosed\ndescription: d\n",
		"noname":   "---\ndescription: d\n---\n",
		"badname":  "---\nname: Bad_Name\ndescription: d\n---\n",
		"alias":    "---\nname: alias\ndescription: &a d\nother: *a\n---\n",
		"list":     "---\n- name\n---\n",
		"mismatch": "---\nname: other\ndescription: d\n---\n",
	} {
		t.Run(name, func(t *testing.T) {
			err := skills.NewServer(nil).AddFS(fstest.MapFS{name + "/SKILL.md": {Data: []byte(data)}}, "")
			if err == nil {
				t.Fatalf("%s SKILL.md accepted", name)
			}
			t.Log(err)
		})
	}
}

func TestDynamicSkill(t *testing.T) {
	sk := skills.NewServer(&skills.Options{DirectoryRead: true})
	files := map[string]string{
		"SKILL.md":       "---\nname: daily\ndescription: Today's report\n---\nSee data/today.csv\n",
		"data/today.csv": "a,b\n1,2\n",
	}
	err := sk.AddDynamic(skills.Dynamic{
		Path: "reports/daily",
		Read: func(ctx context.Context, rel string) ([]byte, error) {
			if s, ok := files[rel]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		Files: func(ctx context.Context) ([]string, error) { return []string{"SKILL.md", "data/today.csv"}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	bothEras(t, serve(t, sk), func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		c := skills.NewClient(cs)
		e, err := c.Get(ctx, "skill://reports/daily/SKILL.md")
		if err != nil || !e.Dynamic || e.Description() != "Today's report" {
			t.Fatalf("dynamic entry %+v %v", e, err)
		}
		var raw map[string]any
		if err := cs.Call(ctx, skills.MethodGet, &skills.GetParams{URI: e.URI}, &raw); err != nil || raw["skill"].(map[string]any)["resources"] != "dynamic" {
			t.Fatalf("wire form %v %v", raw, err)
		}
		l, err := c.Load(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		data, err := l.ReadFile(ctx, "skill://reports/daily/data/today.csv")
		if err != nil || string(data) != files["data/today.csv"] {
			t.Fatalf("dynamic file %q %v", data, err)
		}
		dir, err := c.ReadDir(ctx, "skill://reports/daily", "")
		if err != nil || len(dir.Resources) != 2 {
			t.Fatalf("dynamic root %+v %v", dir, err)
		}
		if _, err := c.ReadDir(ctx, "skill://reports/daily/SKILL.md", ""); code(t, err) != protocol.CodeInvalidParams {
			t.Fatalf("a dynamic file as a directory: %v", err)
		}
		if _, err := cs.ReadResource(ctx, "skill://reports/daily/../../etc/passwd"); err == nil {
			t.Fatal("a dynamic read escaped the skill")
		}
	})
}

// Adding a directory again publishes its changes: a new file is listed and
// served, a removed one is neither.
func TestAddDirAgainPublishesChanges(t *testing.T) {
	sk, dir := fixture(t, &skills.Options{DirectoryRead: true}, true)
	cs, _ := mcptest.Connect(t, serve(t, sk), mcptest.NewClient(nil), nil)
	ctx := testkit.Context(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Remove(filepath.Join(dir, "pdf-processing/scripts/extract.py")))
	must(os.WriteFile(filepath.Join(dir, "pdf-processing/references/NEW.md"), []byte("new\n"), 0o644))
	must(sk.AddDir(dir, ""))
	c := skills.NewClient(cs)
	e, err := c.Get(ctx, pdfURI)
	must(err)
	var uris []string
	for _, r := range e.Resources {
		uris = append(uris, r.URI)
	}
	if strings.Join(uris, " ") != pdfURI+" skill://pdf-processing/references/FORMS.md skill://pdf-processing/references/NEW.md" {
		t.Fatalf("files after the change: %v", uris)
	}
	if _, err := cs.ReadResource(ctx, "skill://pdf-processing/scripts/extract.py"); err == nil {
		t.Fatal("a removed file is still served")
	}
	if _, err := c.ReadDir(ctx, "skill://pdf-processing/scripts", ""); code(t, err) != protocol.CodeInvalidParams {
		t.Fatalf("a removed directory: %v", err)
	}
	l, err := c.Load(ctx, e)
	must(err)
	if data, err := l.ReadFile(ctx, "skill://pdf-processing/references/NEW.md"); err != nil || string(data) != "new\n" {
		t.Fatalf("the new file: %q %v", data, err)
	}
}
