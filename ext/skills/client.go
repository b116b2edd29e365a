package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
)

// ErrNotSupported is returned by a Client whose server did not declare the
// extension (or, for ReadDir, its directoryRead setting).
var ErrNotSupported = errors.New("skills: the server does not declare " + Extension)

// ErrVerification is matched (errors.Is) by every verification failure: a
// file whose size or digest differs from the entry's, a SKILL.md whose
// frontmatter differs from it, a read of a file the entry does not list, or
// an entry that is malformed or beyond the limits. Such content must not be
// used; refresh the entry (Client.Get) to see what the server serves now.
var ErrVerification = errors.New("skills: verification failed")

// VerifyError is a verification failure of one URI.
type VerifyError struct {
	URI    string
	Reason string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("skills: %s: verification failed: %s", e.URI, e.Reason)
}

// Is makes a VerifyError match ErrVerification.
func (e *VerifyError) Is(target error) bool { return target == ErrVerification }

// Client reads skills from a server over an mcp.ClientSession, lazily: it
// fetches nothing until asked, and verifies everything it fetches against
// the entry it holds.
type Client struct {
	cs *mcp.ClientSession
}

// NewClient returns a Client over cs.
func NewClient(cs *mcp.ClientSession) *Client { return &Client{cs: cs} }

// Supported reports whether the server declared the extension.
func (c *Client) Supported() bool {
	_, ok := c.cs.ServerExtension(Extension)
	return ok
}

// DirectoryRead reports whether the server declared directoryRead.
func (c *Client) DirectoryRead() bool {
	settings, _ := c.cs.ServerExtension(Extension)
	v, _ := settings[SettingDirectoryRead].(bool)
	return v
}

// List returns one page of skills (cursor "" for the first).
func (c *Client) List(ctx context.Context, cursor string) (*ListResult, error) {
	if !c.Supported() {
		return nil, ErrNotSupported
	}
	var res ListResult
	if err := c.cs.Call(ctx, MethodList, &ListParams{Cursor: cursor}, &res); err != nil {
		return nil, fmt.Errorf("skills: %s: %w", MethodList, err)
	}
	return &res, nil
}

// maxPages bounds a listing, against a server whose cursors never end.
const maxPages = 10000

// All iterates over every skill, page after page. A server that repeats a
// cursor or pages on past 10000 pages ends it with an error.
func (c *Client) All(ctx context.Context) iter.Seq2[Skill, error] {
	return func(yield func(Skill, error) bool) {
		seen := map[string]bool{}
		cursor := ""
		for range maxPages {
			res, err := c.List(ctx, cursor)
			if err != nil {
				yield(Skill{}, err)
				return
			}
			for _, s := range res.Skills {
				if !yield(s, nil) {
					return
				}
			}
			if res.NextCursor == "" {
				return
			}
			if seen[res.NextCursor] {
				yield(Skill{}, fmt.Errorf("skills: %s repeated the cursor %q", MethodList, res.NextCursor))
				return
			}
			seen[res.NextCursor] = true
			cursor = res.NextCursor
		}
		yield(Skill{}, fmt.Errorf("skills: %s did not end within %d pages", MethodList, maxPages))
	}
}

// Get returns the current entry of the skill whose SKILL.md is at uri.
func (c *Client) Get(ctx context.Context, uri string) (*Skill, error) {
	if !c.Supported() {
		return nil, ErrNotSupported
	}
	var res GetResult
	if err := c.cs.Call(ctx, MethodGet, &GetParams{URI: uri}, &res); err != nil {
		return nil, fmt.Errorf("skills: %s %s: %w", MethodGet, uri, err)
	}
	if res.Skill.URI != uri {
		return nil, &VerifyError{URI: uri, Reason: fmt.Sprintf("%s answered for %q", MethodGet, res.Skill.URI)}
	}
	return &res.Skill, nil
}

// ReadDir lists a directory resource's direct children (one page).
func (c *Client) ReadDir(ctx context.Context, uri, cursor string) (*DirectoryReadResult, error) {
	if !c.DirectoryRead() {
		return nil, fmt.Errorf("%w (directoryRead)", ErrNotSupported)
	}
	var res DirectoryReadResult
	if err := c.cs.Call(ctx, MethodDirectoryRead, &DirectoryReadParams{URI: uri, Cursor: cursor}, &res); err != nil {
		return nil, fmt.Errorf("skills: %s %s: %w", MethodDirectoryRead, uri, err)
	}
	return &res, nil
}

// Loaded is a skill loaded under the entry it was verified against (the held
// entry): its SKILL.md, and the means to read its other files.
type Loaded struct {
	// Entry is the held entry.
	Entry Skill
	// SkillMD is the verified content of SKILL.md.
	SkillMD []byte
	c       *Client
	read    int64 // bytes read of a dynamic skill
}

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// CheckEntry reports whether an entry can be loaded: its uri names a
// SKILL.md whose directory's last segment is the frontmatter's name, which
// follows the naming rules; its frontmatter has a name and a description;
// its resources (unless dynamic) list SKILL.md, each file once, within the
// skill's directory, with well-formed digests and sizes, and stay within
// MaxResources files and MaxTotalSize bytes.
func CheckEntry(e *Skill) error {
	bad := func(format string, args ...any) error {
		return &VerifyError{URI: e.URI, Reason: fmt.Sprintf(format, args...)}
	}
	dir, ok := strings.CutSuffix(e.URI, "/"+SkillFile)
	if !ok || !strings.Contains(dir, "://") {
		return bad("the entry's uri is not the URI of a %s", SkillFile)
	}
	name, _ := e.Frontmatter["name"].(string)
	if desc, _ := e.Frontmatter["description"].(string); name == "" || desc == "" {
		return bad("the entry's frontmatter lacks a name or a description")
	}
	if err := CheckName(name); err != nil {
		return bad("%v", err)
	}
	if last := dir[strings.LastIndexAny(dir, "/")+1:]; last != name {
		return bad("the skill's directory %q is not its name %q", last, name)
	}
	if e.Dynamic {
		return nil
	}
	if len(e.Resources) > MaxResources {
		return bad("%d files, more than the %d a skill may have", len(e.Resources), MaxResources)
	}
	var total int64
	seen := map[string]bool{}
	for _, r := range e.Resources {
		switch {
		case seen[r.URI]:
			return bad("%s is listed twice", r.URI)
		case r.URI != e.URI && !strings.HasPrefix(r.URI, dir+"/"):
			return bad("%s is outside the skill's directory", r.URI)
		case !digestPattern.MatchString(r.Digest):
			return bad("%s has a malformed digest %q", r.URI, r.Digest)
		case r.Size < 0:
			return bad("%s has a negative size", r.URI)
		}
		seen[r.URI] = true
		total += r.Size
	}
	if !seen[e.URI] {
		return bad("its resources do not list %s", SkillFile)
	}
	if total > MaxTotalSize {
		return bad("%d bytes in all, more than the %d a skill may have", total, MaxTotalSize)
	}
	return nil
}

// Load loads the skill e describes: it checks the entry (CheckEntry), reads
// its SKILL.md, verifies its size and digest against the entry (unless the
// skill is dynamic) and compares its frontmatter with the entry's field by
// field. Nothing else is fetched: read supporting files with
// Loaded.ReadFile when they are needed. Any discrepancy is an error matching
// ErrVerification, and nothing is loaded.
func (c *Client) Load(ctx context.Context, e *Skill) (*Loaded, error) {
	if err := CheckEntry(e); err != nil {
		return nil, err
	}
	l := &Loaded{Entry: *e, c: c}
	data, err := l.ReadFile(ctx, e.URI)
	if err != nil {
		return nil, err
	}
	fm, err := ParseFrontmatter(data)
	if err != nil {
		return nil, &VerifyError{URI: e.URI, Reason: err.Error()}
	}
	if diff := frontmatterDiff(fm, e.Frontmatter); len(diff) > 0 {
		return nil, &VerifyError{URI: e.URI, Reason: "its frontmatter differs from the entry's in " + strings.Join(diff, ", ")}
	}
	l.SkillMD = data
	return l, nil
}

// ReadFile reads a file of the loaded skill and verifies it: only a file the
// held entry lists may be read (any other is a verification failure), and its
// size and digest must be the entry's. For a dynamic skill, which has no
// digests, reads stop at MaxTotalSize bytes in all.
func (l *Loaded) ReadFile(ctx context.Context, uri string) ([]byte, error) {
	var want *Resource
	if !l.Entry.Dynamic {
		i := slices.IndexFunc(l.Entry.Resources, func(r Resource) bool { return r.URI == uri })
		if i < 0 {
			return nil, &VerifyError{URI: uri, Reason: "the held entry does not list it"}
		}
		want = &l.Entry.Resources[i]
	} else {
		dir := strings.TrimSuffix(l.Entry.URI, SkillFile)
		if uri != l.Entry.URI && !strings.HasPrefix(uri, dir) {
			return nil, &VerifyError{URI: uri, Reason: "it is not within the skill"}
		}
	}
	res, err := l.c.cs.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("skills: reading %s: %w", uri, err)
	}
	var data []byte
	found := false
	for _, rc := range res.Contents {
		if rc != nil && rc.URI == uri {
			if rc.Blob != nil {
				data = rc.Blob
			} else {
				data = []byte(rc.Text)
			}
			found = true
			break
		}
	}
	if !found {
		return nil, &VerifyError{URI: uri, Reason: "the server returned no content for it"}
	}
	if want == nil {
		if l.read += int64(len(data)); l.read > MaxTotalSize {
			return nil, &VerifyError{URI: uri, Reason: fmt.Sprintf("the dynamic skill's files exceed %d bytes", MaxTotalSize)}
		}
		return data, nil
	}
	if int64(len(data)) != want.Size {
		return nil, &VerifyError{URI: uri, Reason: fmt.Sprintf("size %d, the entry says %d", len(data), want.Size)}
	}
	if d := Digest(data); d != want.Digest {
		return nil, &VerifyError{URI: uri, Reason: fmt.Sprintf("digest %s, the entry says %s", d, want.Digest)}
	}
	return data, nil
}

// frontmatterDiff returns the fields (sorted) in which two frontmatter objects
// differ, comparing their JSON forms.
func frontmatterDiff(a, b map[string]any) []string {
	na, nb := normalize(a), normalize(b)
	var diff []string
	for k := range na {
		if !reflect.DeepEqual(na[k], nb[k]) {
			diff = append(diff, k)
		}
	}
	for k := range nb {
		if _, ok := na[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return diff
}

// normalize returns m as encoding/json decodes its JSON form (numbers as
// float64), so that YAML's and JSON's values compare.
func normalize(m map[string]any) map[string]any {
	raw, err := json.Marshal(m)
	if err != nil {
		return map[string]any{"": err.Error()}
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}
