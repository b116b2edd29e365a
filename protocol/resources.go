package protocol

import (
	"encoding/json"
	"fmt"
)

// Resource is a resource the server can read, as listed by resources/list.
type Resource struct {
	// URI identifies the resource.
	URI string `json:"uri"`
	// Name is the programmatic name.
	Name string `json:"name"`
	// Title is a human-readable display name. Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// Description describes the resource.
	Description string `json:"description,omitempty"`
	// MimeType is the MIME type, if known.
	MimeType string `json:"mimeType,omitempty"`
	// Size is the raw size in bytes, if known.
	Size *int64 `json:"size,omitempty"`
	// Annotations are display hints.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons are images a UI can show. Added in 2025-11-25.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the resource's _meta object. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// ForVersion returns r without the fields version v lacks (title and _meta
// before 2025-06-18, icons before 2025-11-25). It returns r itself when
// nothing changes.
func (r *Resource) ForVersion(v string) *Resource {
	if r == nil {
		return nil
	}
	dropTitled := (r.Title != "" || r.Meta != nil) && !HasTitle(v)
	dropIcons := r.Icons != nil && !HasIcons(v)
	if !dropTitled && !dropIcons {
		return r
	}
	c := *r
	if dropTitled {
		c.Title, c.Meta = "", nil
	}
	if dropIcons {
		c.Icons = nil
	}
	return &c
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	// URITemplate is the RFC 6570 template resource URIs match.
	URITemplate string `json:"uriTemplate"`
	// Name is the programmatic name.
	Name string `json:"name"`
	// Title is a human-readable display name. Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// Description describes the resources.
	Description string `json:"description,omitempty"`
	// MimeType is the MIME type of every matching resource, if they share
	// one.
	MimeType string `json:"mimeType,omitempty"`
	// Annotations are display hints.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons are images a UI can show. Added in 2025-11-25.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the template's _meta object. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams = PaginatedParams

// ListResourcesResult is the result of resources/list.
type ListResourcesResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Resources is the page of resources; never encoded as null.
	Resources []Resource `json:"resources"`
	// NextCursor, when set, fetches the next page.
	NextCursor Cursor `json:"nextCursor,omitempty"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
	// CacheHint carries ttlMs and cacheScope. Added in 2026-07-28.
	CacheHint
}

type listResourcesResultWire ListResourcesResult

// MarshalJSON encodes r, writing a nil Resources as [].
func (r ListResourcesResult) MarshalJSON() ([]byte, error) {
	if r.Resources == nil {
		r.Resources = []Resource{}
	}
	return json.Marshal(listResourcesResultWire(r))
}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams = PaginatedParams

// ListResourceTemplatesResult is the result of resources/templates/list.
type ListResourceTemplatesResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ResourceTemplates is the page of templates; never encoded as null.
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	// NextCursor, when set, fetches the next page.
	NextCursor Cursor `json:"nextCursor,omitempty"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
	// CacheHint carries ttlMs and cacheScope. Added in 2026-07-28.
	CacheHint
}

type listResourceTemplatesResultWire ListResourceTemplatesResult

// MarshalJSON encodes r, writing a nil ResourceTemplates as [].
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	if r.ResourceTemplates == nil {
		r.ResourceTemplates = []ResourceTemplate{}
	}
	return json.Marshal(listResourceTemplatesResultWire(r))
}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// URI is the resource to read.
	URI string `json:"uri"`
	// InputResponses answers the inputRequests of an InputRequiredResult on
	// retry. Added in 2026-07-28.
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	// RequestState echoes the requestState of an InputRequiredResult on
	// retry. Added in 2026-07-28.
	RequestState string `json:"requestState,omitempty"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Contents are the resource's contents (several for a directory-like
	// resource); never encoded as null.
	Contents []*ResourceContents `json:"contents"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
	// CacheHint carries ttlMs and cacheScope. Added in 2026-07-28.
	CacheHint
}

type readResourceResultWire ReadResourceResult

// MarshalJSON encodes r, writing a nil Contents as []. A nil element is an
// error.
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	if r.Contents == nil {
		r.Contents = []*ResourceContents{}
	}
	for i, c := range r.Contents {
		if c == nil {
			return nil, fmt.Errorf("protocol: ReadResourceResult.Contents[%d] is nil", i)
		}
	}
	return json.Marshal(readResourceResultWire(r))
}

// SubscribeParams are the params of resources/subscribe (legacy versions;
// 2026-07-28 uses subscriptions/listen).
type SubscribeParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// URI is the resource to watch.
	URI string `json:"uri"`
}

// UnsubscribeParams are the params of resources/unsubscribe (legacy
// versions).
type UnsubscribeParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// URI is the resource to stop watching.
	URI string `json:"uri"`
}
