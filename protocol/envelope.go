package protocol

// The 2026-07-28 envelope of a result: its resultType, and its _meta, to which
// a server adds its identity. A server stamps every result it returns to a
// stateless client through [StatelessResult], so a new result type only has to
// implement it (protocol's envelope test lists every type with a ResultType
// field and fails for one that does not, or is not named as stamped elsewhere).

// StatelessResult is a result a server stamps for a 2026-07-28 client. Every
// result type with a ResultType field implements it, except those of the
// tasks extension, which the task machinery stamps where it makes them
// ([ExtensionCreateTaskResult], [DetailedTask]).
type StatelessResult interface {
	// ResultMeta returns the result's _meta.
	ResultMeta() Meta
	// Stamped returns a copy of the result with meta as its _meta and the
	// resultType its type answers with: "input_required" for
	// [InputRequiredResult], "complete" for every other.
	Stamped(meta Meta) any
}

// CacheFields returns the caching fields themselves; through embedding, it
// gives a server the hint of any cacheable result (discover, the lists, a read).
func (h *CacheHint) CacheFields() *CacheHint { return h }

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *InputRequiredResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "input_required" and _meta meta.
func (r InputRequiredResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeInputRequired, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *CallToolResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r CallToolResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *ListToolsResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r ListToolsResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *ListPromptsResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r ListPromptsResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *GetPromptResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r GetPromptResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *ListResourcesResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r ListResourcesResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *ListResourceTemplatesResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r ListResourceTemplatesResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *ReadResourceResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r ReadResourceResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *CompleteResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r CompleteResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *DiscoverResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r DiscoverResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *SubscriptionsListenResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r SubscriptionsListenResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}

// ResultMeta returns r's _meta (see [StatelessResult]).
func (r *EmptyResult) ResultMeta() Meta { return r.Meta }

// Stamped returns a copy of r with resultType "complete" and _meta meta.
func (r EmptyResult) Stamped(meta Meta) any {
	r.ResultType, r.Meta = ResultTypeComplete, meta
	return &r
}
