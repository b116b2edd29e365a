package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sort"

	"github.com/mcpkit/mcpkit/protocol"
)

// registry holds named features (tools, resources, prompts) in name order, so lists
// are deterministic and pages are stable. The Server's mutex guards it.
type registry[T any] struct {
	items  map[string]T
	sorted []string
}

func (r *registry[T]) len() int { return len(r.items) }

// add stores v under name, replacing any previous item, and reports whether one existed.
func (r *registry[T]) add(name string, v T) (replaced bool) {
	if r.items == nil {
		r.items = make(map[string]T)
	}
	_, replaced = r.items[name]
	r.items[name] = v
	if !replaced {
		i := sort.SearchStrings(r.sorted, name)
		r.sorted = slices.Insert(r.sorted, i, name)
	}
	return replaced
}

// remove deletes name and reports whether it was there.
func (r *registry[T]) remove(name string) bool {
	if _, ok := r.items[name]; !ok {
		return false
	}
	delete(r.items, name)
	i := sort.SearchStrings(r.sorted, name)
	r.sorted = slices.Delete(r.sorted, i, i+1)
	return true
}

func (r *registry[T]) get(name string) (T, bool) {
	v, ok := r.items[name]
	return v, ok
}

// all returns every item in name order.
func (r *registry[T]) all() []T {
	out := make([]T, len(r.sorted))
	for i, n := range r.sorted {
		out[i] = r.items[n]
	}
	return out
}

// page returns up to size items of r after the cursor, each converted by
// conv, and the cursor of the next page ("" on the last one). A cursor is the
// base64url form of the last name returned: opaque to clients and still valid
// when items are added or removed between pages. keep, when set, leaves out
// the names it refuses (a VisibleFunc).
//
// hash, when set (a first page, without cursor), is fed every name keep
// leaves, on every page: the fingerprint of the client's view (RefreshVisibility).
func page[E, T any](r *registry[E], cursor string, size int, keep func(string) bool, hash *maphash.Hash, conv func(E) T) (items []T, next string, err error) {
	start := 0
	if cursor != "" {
		after, derr := base64.RawURLEncoding.DecodeString(cursor)
		if derr != nil || len(after) == 0 {
			return nil, "", errorf(CodeInvalidParams, "invalid cursor %q", cursor)
		}
		start = sort.SearchStrings(r.sorted, string(after))
		if start < len(r.sorted) && r.sorted[start] == string(after) {
			start++
		}
	}
	if keep == nil {
		end := min(start+size, len(r.sorted))
		items = make([]T, 0, end-start)
		for _, n := range r.sorted[start:end] {
			items = append(items, conv(r.items[n]))
		}
		if end < len(r.sorted) {
			next = base64.RawURLEncoding.EncodeToString([]byte(r.sorted[end-1]))
		}
		return items, next, nil
	}
	items = make([]T, 0, min(size, len(r.sorted)-start))
	last := ""
	for _, n := range r.sorted[start:] {
		if !keep(n) {
			continue
		}
		if hash != nil {
			hash.WriteString(n)
			hash.WriteByte(0)
		}
		if len(items) == size {
			// One more visible item: there is a next page.
			if next == "" {
				next = base64.RawURLEncoding.EncodeToString([]byte(last))
			}
			if hash == nil {
				return items, next, nil
			}
			continue
		}
		items = append(items, conv(r.items[n]))
		last = n
	}
	return items, next, nil
}

// listPage answers a list request (tools/list, prompts/list, ...): the page
// of reg after the cursor its params carry, each item as conv gives it.
func listPage[E, T any](ctx context.Context, r *Request, raw json.RawMessage, kind FeatureKind, reg *registry[E], conv func(E) T) ([]T, string, error) {
	var p protocol.PaginatedParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, "", err
	}
	s := r.server()
	keep := s.keep(ctx, r, kind)
	// A legacy session's first page under a VisibleFunc records its view
	// (visibility.go), for RefreshVisibility.
	var h *maphash.Hash
	var gen uint64
	if keep != nil && p.Cursor == "" && r.stateless == nil && r.Session.tracked {
		h = new(maphash.Hash)
		h.SetSeed(s.viewSeed)
		gen = s.viewGen.Load()
	}
	s.mu.RLock()
	items, next, err := page(reg, p.Cursor, s.opts.PageSize, keep, h, conv)
	s.mu.RUnlock()
	if h != nil && err == nil {
		r.Session.recordView(ctx, kind, h.Sum64())
		if s.viewGen.Load() != gen {
			// A refresh ran meanwhile, perhaps before this view was
			// recorded: check it against the rules of now.
			r.Session.refreshView()
		}
	}
	return items, next, err
}
