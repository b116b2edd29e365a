package skills

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Options configure a Server. The zero value serves skills/list and skills/get
// only, with results immediately stale.
type Options struct {
	// DirectoryRead serves resources/directory/read and declares it
	// (directoryRead: true).
	DirectoryRead bool
	// PageSize is the number of skills in a page of skills/list, and of
	// children in a page of resources/directory/read. Zero means 100.
	PageSize int
	// Cache is the ttlMs and cacheScope of skills/list and skills/get results
	// (zero: immediately stale, private).
	Cache mcp.CacheHint
}

// Dynamic is a skill whose content is generated, so that no digests can be
// published: its entry says "resources": "dynamic", and hosts may decline it.
type Dynamic struct {
	// Path is where the skill is served: /-separated segments, the last of
	// which is the skill's name (and must equal its frontmatter's name).
	Path string
	// Read returns the content of a file of the skill (rel is its path within
	// the skill, SKILL.md for the skill file). It returns an error wrapping
	// fs.ErrNotExist for a file the skill does not have.
	Read func(ctx context.Context, rel string) ([]byte, error)
	// Files lists the skill's files (paths within the skill), for directory
	// reads; nil means SKILL.md alone.
	Files func(ctx context.Context) ([]string, error)
}

// Server serves skills over MCP. Add skills with [Server.AddDir], [Server.AddFS]
// and [Server.AddDynamic], before or after [Server.Register] puts them on an
// [mcp.Server]. Its methods are safe for concurrent use.
type Server struct {
	opts Options

	mu     sync.RWMutex
	skills map[string]*skill // by the URI of SKILL.md
	files  map[string]*file  // static files by URI
	dirs   map[string]map[string]protocol.Resource
	srvs   []*mcp.Server
}

// NewServer returns an empty Server configured by opts (nil for defaults).
func NewServer(opts *Options) *Server {
	s := &Server{skills: map[string]*skill{}, files: map[string]*file{}, dirs: map[string]map[string]protocol.Resource{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	return s
}

// AddDir serves every skill under dir (each directory holding a SKILL.md, at
// prefix/<its path under dir>). Files are read through [OpenDir], so nothing
// outside dir is ever served; a symbolic link inside a skill fails the call.
// Entries (digests, sizes, frontmatter) are computed now: call it again to
// publish changes (a skill at the same place is replaced, and files it no
// longer has stop being served). A file changed afterwards is still served,
// and a client holding the old entry refuses it.
func (s *Server) AddDir(dir, prefix string) error {
	fsys, err := OpenDir(dir)
	if err != nil {
		return fmt.Errorf("skills: %w", err)
	}
	return s.AddFS(fsys, prefix)
}

// AddFS is AddDir over any fs.FS (an embed.FS, fstest.MapFS, ...). The FS is
// trusted to stay within itself: use [OpenDir] (or AddDir) for a directory on
// disk, since os.DirFS follows symbolic links out of it.
func (s *Server) AddFS(fsys fs.FS, prefix string) error {
	found, err := loadSkills(fsys, prefix)
	if err != nil {
		return fmt.Errorf("skills: %w", err)
	}
	s.mu.Lock()
	var dropped []string
	for _, sk := range found {
		dropped = append(dropped, s.addLocked(sk)...)
	}
	srvs := slices.Clone(s.srvs)
	s.mu.Unlock()
	for _, srv := range srvs {
		srv.RemoveResources(dropped...)
		for _, sk := range found {
			s.publish(srv, sk)
		}
	}
	return nil
}

// AddDynamic serves a generated skill.
func (s *Server) AddDynamic(d Dynamic) error {
	d.Path = strings.Trim(d.Path, "/")
	if err := checkSkillPath(d.Path); err != nil {
		return fmt.Errorf("skills: %w", err)
	}
	if d.Read == nil {
		return fmt.Errorf("skills: dynamic skill %s has no Read", d.Path)
	}
	sk := &skill{path: d.Path, dyn: &d}
	sk.entry = Skill{URI: skillURI(d.Path, SkillFile), Dynamic: true}
	s.mu.Lock()
	dropped := s.addLocked(sk)
	srvs := slices.Clone(s.srvs)
	s.mu.Unlock()
	for _, srv := range srvs {
		srv.RemoveResources(dropped...)
		s.publish(srv, sk)
	}
	return nil
}

// addLocked records sk, replacing a skill served at the same place, and
// returns the URIs of the files no skill serves any more.
func (s *Server) addLocked(sk *skill) (dropped []string) {
	s.skills[sk.entry.URI] = sk
	old := s.files
	s.files = map[string]*file{}
	s.dirs = map[string]map[string]protocol.Resource{}
	for _, sk := range s.skills {
		for _, f := range sk.files {
			s.files[f.res.URI] = f
			s.addDirsLocked(sk, f.rel, protocol.Resource{URI: f.res.URI, Name: path.Base(f.rel), MimeType: f.mime, Size: &f.res.Size})
		}
	}
	for uri := range old {
		if s.files[uri] == nil {
			dropped = append(dropped, uri)
		}
	}
	return dropped
}

// addDirsLocked records child (at rel within sk) in its directory and the
// directories up to the skill's root.
func (s *Server) addDirsLocked(sk *skill, rel string, child protocol.Resource) {
	for {
		dir := path.Dir(rel)
		if dir == "." {
			dir = ""
		}
		d := sk.root()
		if dir != "" {
			d = skillURI(sk.path, dir)
		}
		if s.dirs[d] == nil {
			s.dirs[d] = map[string]protocol.Resource{}
		}
		s.dirs[d][child.URI] = child
		if dir == "" {
			return
		}
		child = protocol.Resource{URI: d, Name: path.Base(dir), MimeType: DirectoryMimeType}
		rel = dir
	}
}

// Register declares the extension on srv (with directoryRead when
// Options.DirectoryRead is set), serves skills/list, skills/get (and
// resources/directory/read) there, and adds every skill file as a resource:
// SKILL.md with the skill's name and description. A server declaring the
// extension must declare resources too, which the resources do.
func (s *Server) Register(srv *mcp.Server) {
	settings := map[string]any{}
	if s.opts.DirectoryRead {
		settings[SettingDirectoryRead] = true
	}
	srv.AddExtension(Extension, settings)
	mcp.AddRequestHandler(srv, MethodList, s.list, nil)
	mcp.AddRequestHandler(srv, MethodGet, s.get, nil)
	if s.opts.DirectoryRead {
		mcp.AddRequestHandler(srv, MethodDirectoryRead, s.readDir, nil)
	}
	s.mu.Lock()
	s.srvs = append(s.srvs, srv)
	all := make([]*skill, 0, len(s.skills))
	for _, sk := range s.skills {
		all = append(all, sk)
	}
	s.mu.Unlock()
	for _, sk := range all {
		s.publish(srv, sk)
	}
}

// publish adds sk's files to srv as resources.
func (s *Server) publish(srv *mcp.Server, sk *skill) {
	if sk.dyn != nil {
		d := sk.dyn
		_ = srv.AddResource(&protocol.Resource{URI: sk.entry.URI, Name: path.Base(d.Path), MimeType: "text/markdown"},
			func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				return s.readDynamic(ctx, d, SkillFile, r.Params.URI)
			})
		_ = srv.AddResourceTemplate(&protocol.ResourceTemplate{URITemplate: sk.root() + "/{+file}", Name: path.Base(d.Path) + " files"},
			func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				return s.readDynamic(ctx, d, r.Vars["file"], r.Params.URI)
			})
		return
	}
	for _, f := range sk.files {
		res := &protocol.Resource{URI: f.res.URI, Name: path.Base(f.rel), MimeType: f.mime, Size: &f.res.Size}
		if f.skillM {
			res.Name, res.Description = sk.entry.Name(), sk.entry.Description()
		}
		_ = srv.AddResource(res, s.readFile)
	}
}

// readFile serves a static file's current bytes.
func (s *Server) readFile(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
	s.mu.RLock()
	f := s.files[r.Params.URI]
	s.mu.RUnlock()
	if f == nil {
		return nil, mcp.ResourceNotFound(r.Params.URI)
	}
	data, err := readCapped(f.fsys, f.name, MaxTotalSize)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "reading " + r.Params.URI + " failed"}
	}
	return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{contents(f.res.URI, f.mime, data)}}, nil
}

// readDynamic serves a file of a dynamic skill.
func (s *Server) readDynamic(ctx context.Context, d *Dynamic, rel, uri string) (*protocol.ReadResourceResult, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || slices.Contains(strings.Split(rel, "/"), "..") {
		return nil, mcp.ResourceNotFound(uri)
	}
	data, err := d.Read(ctx, rel)
	if err != nil {
		return nil, mcp.ResourceNotFound(uri)
	}
	if len(data) > MaxTotalSize {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: uri + " is larger than a skill may be"}
	}
	return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{contents(uri, mimeType(rel, data), data)}}, nil
}

// entry returns sk's entry; a dynamic skill's frontmatter is read from its
// SKILL.md now.
func (s *Server) entry(ctx context.Context, sk *skill) (Skill, error) {
	if sk.dyn == nil {
		return sk.entry, nil
	}
	data, err := sk.dyn.Read(ctx, SkillFile)
	if err != nil {
		return Skill{}, fmt.Errorf("reading the SKILL.md of %s: %w", sk.path, err)
	}
	fm, err := ParseFrontmatter(data)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", sk.path, err)
	}
	if fm["name"] != path.Base(sk.path) {
		return Skill{}, fmt.Errorf("%s: frontmatter name %q differs from the skill's path", sk.path, fm["name"])
	}
	e := sk.entry
	e.Frontmatter = fm
	return e, nil
}

func (s *Server) cache() protocol.CacheHint {
	var h protocol.CacheHint
	scope := s.opts.Cache.Scope
	if scope == "" {
		scope = protocol.CacheScopePrivate
	}
	h.SetCache(s.opts.Cache.TTL, scope)
	return h
}

// list answers skills/list: a page of skills in URI order. An entry is never
// split; a dynamic skill whose SKILL.md cannot be read is left out (and
// logged) rather than failing the listing.
func (s *Server) list(ctx context.Context, r *mcp.Request, p *ListParams) (*ListResult, error) {
	s.mu.RLock()
	uris := make([]string, 0, len(s.skills))
	for u := range s.skills {
		uris = append(uris, u)
	}
	s.mu.RUnlock()
	sort.Strings(uris)
	page, next, err := pageOf(uris, func(u string) string { return u }, p.Cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &ListResult{Skills: make([]Skill, 0, len(page)), NextCursor: next, CacheHint: s.cache()}
	for _, u := range page {
		s.mu.RLock()
		sk := s.skills[u]
		s.mu.RUnlock()
		if sk == nil {
			continue
		}
		e, err := s.entry(ctx, sk)
		if err != nil {
			_ = r.Log(ctx, protocol.LevelWarning, "skills", err.Error())
			continue
		}
		res.Skills = append(res.Skills, e)
	}
	return res, nil
}

// get answers skills/get.
func (s *Server) get(ctx context.Context, _ *mcp.Request, p *GetParams) (*GetResult, error) {
	s.mu.RLock()
	sk := s.skills[p.URI]
	s.mu.RUnlock()
	if sk == nil {
		return nil, invalidParams("No skill is served at %s", p.URI)
	}
	e, err := s.entry(ctx, sk)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return &GetResult{Skill: e, CacheHint: s.cache()}, nil
}

// readDir answers resources/directory/read.
func (s *Server) readDir(ctx context.Context, _ *mcp.Request, p *DirectoryReadParams) (*DirectoryReadResult, error) {
	s.mu.RLock()
	children, ok := s.dirs[p.URI]
	var kids []protocol.Resource
	for _, c := range children {
		kids = append(kids, c)
	}
	var dyn *skill
	if !ok {
		dyn = s.dynamicDirLocked(p.URI)
	}
	s.mu.RUnlock()
	if !ok {
		if dyn == nil {
			if s.served(p.URI) {
				return nil, invalidParams("%s is not a directory resource", p.URI)
			}
			return nil, invalidParams("No directory is served at %s", p.URI)
		}
		var err error
		if kids, err = dynamicChildren(ctx, dyn, p.URI); err != nil {
			return nil, err
		}
	}
	sort.Slice(kids, func(i, j int) bool { return kids[i].URI < kids[j].URI })
	page, next, err := pageOf(kids, func(r protocol.Resource) string { return r.URI }, p.Cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &DirectoryReadResult{Resources: page, NextCursor: next, CacheHint: s.cache()}, nil
}

// served reports whether uri is a file the server serves (a static file or a
// skill's SKILL.md).
func (s *Server) served(uri string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, skill := s.skills[uri]
	_, file := s.files[uri]
	return skill || file
}

// dynamicDirLocked returns the dynamic skill whose directory tree holds uri
// (its root or a directory below it), or nil.
func (s *Server) dynamicDirLocked(uri string) *skill {
	for _, sk := range s.skills {
		if sk.dyn != nil && (uri == sk.root() || strings.HasPrefix(uri, sk.root()+"/")) {
			return sk
		}
	}
	return nil
}

// dynamicChildren lists the children of the directory uri of a dynamic skill
// from its Files.
func dynamicChildren(ctx context.Context, sk *skill, uri string) ([]protocol.Resource, error) {
	files := []string{SkillFile}
	if sk.dyn.Files != nil {
		var err error
		if files, err = sk.dyn.Files(ctx); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "listing " + uri + " failed"}
		}
	}
	seen := map[string]protocol.Resource{}
	isDir := uri == sk.root()
	for _, rel := range files {
		rel = strings.Trim(rel, "/")
		if rel == "" || slices.Contains(strings.Split(rel, "/"), "..") {
			continue
		}
		for dir := rel; ; {
			parent := path.Dir(dir)
			parentURI := sk.root()
			if parent != "." {
				parentURI = skillURI(sk.path, parent)
			}
			childURI := skillURI(sk.path, dir)
			if childURI == uri {
				isDir = isDir || dir != rel
			}
			if parentURI == uri {
				c := protocol.Resource{URI: childURI, Name: path.Base(dir), MimeType: mimeType(dir, nil)}
				if dir != rel {
					c.MimeType = DirectoryMimeType
				}
				seen[childURI] = c
				isDir = true
			}
			if parent == "." {
				break
			}
			dir = parent
		}
	}
	if !isDir {
		return nil, invalidParams("%s is not a directory resource", uri)
	}
	out := make([]protocol.Resource, 0, len(seen))
	for _, c := range seen {
		out = append(out, c)
	}
	return out, nil
}

// pageOf returns up to size items after the cursor (the base64url form of the
// last key returned), and the cursor of the next page ("" on the last).
// items must be sorted by key.
func pageOf[T any](items []T, key func(T) string, cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(after) == 0 {
			return nil, "", invalidParams("invalid cursor %q", cursor)
		}
		start = sort.Search(len(items), func(i int) bool { return key(items[i]) > string(after) })
	}
	end := min(start+size, len(items))
	page := items[start:end]
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(key(items[end-1])))
	}
	return page, next, nil
}

// invalidParams is a -32602 error.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
