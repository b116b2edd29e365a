// Package skills implements the Skills extension of MCP (SEP-2640,
// io.modelcontextprotocol/skills) on top of package mcp, both sides:
//
//   - [Server] serves skills — directories holding a SKILL.md with YAML
//     frontmatter — from a directory on disk, any [fs.FS], or handlers that
//     generate them ([Dynamic]): each file is an MCP resource under skill://,
//     skills/list (paginated) and skills/get describe every skill with its
//     frontmatter and the sha256 digest and size of each file, and
//     resources/directory/read lists directories (the directoryRead setting).
//   - [Client] lists and gets skills and loads their files lazily — nothing is
//     fetched before it is asked for — verifying each file's size and digest
//     against the entry it holds, and SKILL.md's frontmatter against the
//     entry's.
//
// Both eras are served: a 2026-07-28 request and a legacy session see the same
// methods (package mcp's custom methods, through its middleware).
package skills

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

// The extension's identifier, methods and settings.
const (
	// Extension identifies the Skills extension in capabilities.extensions.
	Extension = "io.modelcontextprotocol/skills"
	// MethodList lists skills (paginated).
	MethodList = "skills/list"
	// MethodGet returns one skill's entry by the URI of its SKILL.md.
	MethodGet = "skills/get"
	// MethodDirectoryRead lists the direct children of a directory resource.
	MethodDirectoryRead = "resources/directory/read"
	// SettingDirectoryRead is the setting a server declares (true) when it
	// implements MethodDirectoryRead.
	SettingDirectoryRead = "directoryRead"
	// DirectoryMimeType is the mimeType of a directory resource.
	DirectoryMimeType = "inode/directory"
	// SkillFile is the name of the file that makes a directory a skill.
	SkillFile = "SKILL.md"
	// Scheme is the URI scheme of the skills a Server serves.
	Scheme = "skill"
)

// The limits of one skill that every host must accept (and servers should not
// exceed).
const (
	MaxResources = 512
	MaxTotalSize = 16 << 20
)

// Resource is one file of a skill: its URI, the SHA-256 digest of its raw
// bytes ("sha256:" and 64 lowercase hex digits) and its size in bytes.
type Resource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Skill is a skill's entry, as skills/list and skills/get return it.
type Skill struct {
	// URI is the URI of the skill's SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is SKILL.md's YAML frontmatter as a JSON object: name and
	// description, and every other field the author wrote.
	Frontmatter map[string]any `json:"frontmatter"`
	// Resources lists every file of the skill, SKILL.md included. It is nil
	// when Dynamic is set.
	Resources []Resource `json:"-"`
	// Dynamic marks a skill whose content is generated, so that no digests can
	// be published (the wire's "resources": "dynamic").
	Dynamic bool `json:"-"`
}

// Name returns the frontmatter's name ("" when it has none).
func (s *Skill) Name() string { n, _ := s.Frontmatter["name"].(string); return n }

// Description returns the frontmatter's description ("" when it has none).
func (s *Skill) Description() string { d, _ := s.Frontmatter["description"].(string); return d }

type skillWire struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

const dynamicResources = "dynamic"

// MarshalJSON writes resources as an array, or "dynamic".
func (s Skill) MarshalJSON() ([]byte, error) {
	w := skillWire{URI: s.URI, Frontmatter: s.Frontmatter}
	var err error
	switch {
	case s.Dynamic:
		w.Resources = json.RawMessage(`"` + dynamicResources + `"`)
	case s.Resources == nil:
		w.Resources = json.RawMessage(`[]`)
	default:
		if w.Resources, err = json.Marshal(s.Resources); err != nil {
			return nil, err
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an entry, refusing one whose resources is missing or
// neither an array nor "dynamic" (hosts must not load such an entry).
func (s *Skill) UnmarshalJSON(b []byte) error {
	var w skillWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Skill{URI: w.URI, Frontmatter: w.Frontmatter}
	switch {
	case len(w.Resources) == 0 || string(w.Resources) == "null":
		return errors.New("skill entry has no resources")
	case w.Resources[0] == '"':
		var v string
		if err := json.Unmarshal(w.Resources, &v); err != nil || v != dynamicResources {
			return fmt.Errorf("skill entry resources is %s, neither an array nor %q", w.Resources, dynamicResources)
		}
		s.Dynamic = true
	default:
		if err := json.Unmarshal(w.Resources, &s.Resources); err != nil {
			return fmt.Errorf("skill entry resources: %w", err)
		}
		if s.Resources == nil {
			s.Resources = []Resource{}
		}
	}
	return nil
}

// ListParams are the params of skills/list.
type ListParams struct {
	Cursor string        `json:"cursor,omitempty"`
	Meta   protocol.Meta `json:"_meta,omitempty"`
}

// ListResult is the result of skills/list.
type ListResult struct {
	Skills     []Skill `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
	protocol.CacheHint
}

// GetParams are the params of skills/get.
type GetParams struct {
	URI  string        `json:"uri"`
	Meta protocol.Meta `json:"_meta,omitempty"`
}

// GetResult is the result of skills/get.
type GetResult struct {
	Skill Skill `json:"skill"`
	protocol.CacheHint
}

// DirectoryReadParams are the params of resources/directory/read.
type DirectoryReadParams struct {
	URI    string        `json:"uri"`
	Cursor string        `json:"cursor,omitempty"`
	Meta   protocol.Meta `json:"_meta,omitempty"`
}

// DirectoryReadResult is the result of resources/directory/read: the
// directory's direct children (subdirectories with DirectoryMimeType). The
// Server sets ttlMs and cacheScope as on skills/list: the specification's
// page leaves them out, but the TypeScript SDK's client requires them.
type DirectoryReadResult struct {
	Resources  []protocol.Resource `json:"resources"`
	NextCursor string              `json:"nextCursor,omitempty"`
	protocol.CacheHint
}
