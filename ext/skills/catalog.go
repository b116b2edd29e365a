package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/protocol"
)

// file is one served file of a static skill.
type file struct {
	fsys   fs.FS
	name   string // its path in fsys
	rel    string // its path in the skill
	res    Resource
	mime   string
	skillM bool // the skill's SKILL.md
}

// skill is one skill the Server serves.
type skill struct {
	path  string // the skill path (prefix segments and name)
	entry Skill  // static skills: computed when added
	files []*file
	dyn   *Dynamic
}

// root returns the URI of the skill's directory.
func (sk *skill) root() string { return skillURI(sk.path, "") }

// skillURI returns the skill:// URI of rel (a /-separated path) within the
// skill at skillPath, or of the skill's directory when rel is "". Each
// segment is escaped as a URI path segment.
func skillURI(skillPath, rel string) string {
	var b strings.Builder
	b.WriteString(Scheme + "://")
	for i, seg := range strings.Split(skillPath, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(url.PathEscape(seg))
	}
	if rel != "" {
		for _, seg := range strings.Split(rel, "/") {
			b.WriteByte('/')
			b.WriteString(url.PathEscape(seg))
		}
	}
	return b.String()
}

// checkSkillPath refuses a skill path that is empty or has an empty, "." or
// ".." segment, or whose last segment breaks the naming rules.
func checkSkillPath(p string) error {
	if p == "" {
		return fmt.Errorf("empty skill path")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return fmt.Errorf("skill path %q has an empty, . or .. segment", p)
		}
	}
	return CheckName(segs[len(segs)-1])
}

// OpenDir returns an fs.FS of the directory dir that never leaves it: a path
// with "..", an absolute path, or a symbolic link that points outside dir
// (even one planted after the skills were loaded) fails to open. Server.AddDir
// serves skills through it.
func OpenDir(dir string) (fs.FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return root.FS(), nil
}

// loadSkills finds the skills of fsys: every directory holding a regular
// SKILL.md. Each is served at prefix/dir (dir relative to fsys's root; the
// root itself at prefix alone).
func loadSkills(fsys fs.FS, prefix string) ([]*skill, error) {
	var dirs []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if fi, err := fs.Stat(fsys, path.Join(p, SkillFile)); err == nil && fi.Mode().IsRegular() {
				dirs = append(dirs, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*skill, 0, len(dirs))
	for _, dir := range dirs {
		sp := strings.Trim(path.Join(prefix, dir), "/")
		if dir == "." {
			sp = strings.Trim(prefix, "/")
		}
		sk, err := loadSkill(fsys, dir, sp)
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", dir, err)
		}
		out = append(out, sk)
	}
	return out, nil
}

// loadSkill reads the skill in dir of fsys: every regular file under it
// (nested skills' included), with its digest and size. A symbolic link or any
// other special file makes the skill fail: nothing outside regular files is
// served.
func loadSkill(fsys fs.FS, dir, skillPath string) (*skill, error) {
	if err := checkSkillPath(skillPath); err != nil {
		return nil, err
	}
	sk := &skill{path: skillPath}
	var total int64
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%v): refused", p, d.Type())
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if dir == "." {
			rel = p
		}
		f := &file{fsys: fsys, name: p, rel: rel, skillM: rel == SkillFile}
		data, err := readCapped(fsys, p, MaxTotalSize)
		if err != nil {
			return err
		}
		total += int64(len(data))
		if len(sk.files) >= MaxResources || total > MaxTotalSize {
			return fmt.Errorf("more than %d files or %d bytes: skills beyond these limits are not served", MaxResources, MaxTotalSize)
		}
		f.res = Resource{URI: skillURI(skillPath, rel), Digest: Digest(data), Size: int64(len(data))}
		f.mime = mimeType(rel, data)
		if f.skillM {
			fm, err := ParseFrontmatter(data)
			if err != nil {
				return err
			}
			if name := fm["name"].(string); name != path.Base(skillPath) {
				return fmt.Errorf("frontmatter name %q differs from the skill's directory %q", name, path.Base(skillPath))
			}
			sk.entry = Skill{URI: f.res.URI, Frontmatter: fm}
		}
		sk.files = append(sk.files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(sk.files, func(i, j int) bool { return sk.files[i].res.URI < sk.files[j].res.URI })
	sk.entry.Resources = make([]Resource, len(sk.files))
	for i, f := range sk.files {
		sk.entry.Resources[i] = f.res
	}
	return sk, nil
}

// readCapped reads name from fsys, refusing a file larger than limit.
func readCapped(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	} else if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than %d", name, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is more than %d bytes", name, limit)
	}
	return data, nil
}

// Digest returns the digest of data as skill entries carry it:
// "sha256:" and 64 lowercase hex digits.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// mimeTypes are the types of the files skills usually hold, by extension
// (a fixed table: the system's varies between machines).
var mimeTypes = map[string]string{
	".md": "text/markdown", ".txt": "text/plain", ".json": "application/json", ".yaml": "application/yaml",
	".yml": "application/yaml", ".py": "text/x-python", ".sh": "text/x-shellscript", ".js": "text/javascript",
	".ts": "text/typescript", ".html": "text/html", ".css": "text/css", ".csv": "text/csv", ".xml": "application/xml",
	".go": "text/x-go", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".svg": "image/svg+xml", ".pdf": "application/pdf",
}

// mimeType returns the mimeType of a file: by extension, else text/plain for
// UTF-8 text and application/octet-stream for anything else.
func mimeType(name string, data []byte) string {
	if t, ok := mimeTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// contents returns the resources/read contents of a file: text when it is
// UTF-8 and its type textual, a blob otherwise.
func contents(uri, mime string, data []byte) *protocol.ResourceContents {
	if utf8.Valid(data) && (strings.HasPrefix(mime, "text/") || strings.HasSuffix(mime, "json") ||
		strings.HasSuffix(mime, "yaml") || strings.HasSuffix(mime, "xml") || mime == "image/svg+xml") {
		return protocol.NewTextResourceContents(uri, mime, string(data))
	}
	return protocol.NewBlobResourceContents(uri, mime, data)
}
