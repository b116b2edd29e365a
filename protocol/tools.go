package protocol

import (
	"encoding/json"
	"strconv"
)

// DefaultInputSchema is written for a Tool whose InputSchema is empty: an
// object schema accepting any properties.
var DefaultInputSchema = json.RawMessage(`{"type":"object"}`)

// Tool is the definition of a tool the client can call.
type Tool struct {
	// Name is the programmatic name.
	Name string `json:"name"`
	// Title is a human-readable display name. Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// Description tells the model what the tool does.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments; its root must have
	// "type": "object". An empty InputSchema encodes as DefaultInputSchema.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of CallToolResult.StructuredContent.
	// Added in 2025-06-18.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are behavioural hints. Added in 2025-03-26.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Execution describes task support. Added in 2025-11-25.
	Execution *ToolExecution `json:"execution,omitempty"`
	// Icons are images a UI can show. Added in 2025-11-25.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the tool's _meta object. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// toolWire has Tool's fields without its methods.
type toolWire Tool

// MarshalJSON encodes t, substituting DefaultInputSchema for an empty
// InputSchema (the field is required).
func (t Tool) MarshalJSON() ([]byte, error) {
	if len(t.InputSchema) == 0 {
		t.InputSchema = DefaultInputSchema
	}
	return json.Marshal(toolWire(t))
}

// ForVersion returns t without the fields version v lacks: title, outputSchema
// and _meta before 2025-06-18, annotations before 2025-03-26, execution and
// icons before 2025-11-25 (and execution after it: 2026-07-28 moved tasks to
// an extension). It returns t itself (no allocation) when nothing changes.
func (t *Tool) ForVersion(v string) *Tool {
	if t == nil {
		return nil
	}
	dropTitled := (t.Title != "" || t.OutputSchema != nil || t.Meta != nil) && !HasTitle(v)
	dropAnn := t.Annotations != nil && !HasToolAnnotations(v)
	dropIcons := t.Icons != nil && !HasIcons(v)
	dropExec := t.Execution != nil && !HasTasks(v)
	if !dropTitled && !dropAnn && !dropIcons && !dropExec {
		return t
	}
	c := *t
	if dropTitled {
		c.Title, c.OutputSchema, c.Meta = "", nil, nil
	}
	if dropAnn {
		c.Annotations = nil
	}
	if dropIcons {
		c.Icons = nil
	}
	if dropExec {
		c.Execution = nil
	}
	return &c
}

// ToolAnnotations are hints about a tool's behaviour. Clients must treat them
// as untrusted unless the server is trusted. Added in 2025-03-26.
type ToolAnnotations struct {
	// Title is a human-readable display name.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint says the tool does not modify its environment
	// (default false).
	ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint says the tool may perform destructive updates
	// (meaningful when not read-only; default true).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint says repeated calls with the same arguments have no
	// additional effect (default false).
	IdempotentHint *bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint says the tool interacts with an open world of external
	// entities (default true).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// TaskSupport says whether a tool can run as a task.
//
// Experimental: tasks (experimental in 2025-11-25, the io.modelcontextprotocol/tasks
// extension in 2026-07-28) are still changing, and this API may change with them.
type TaskSupport string

// Task support levels.
const (
	TaskSupportForbidden TaskSupport = "forbidden"
	TaskSupportOptional  TaskSupport = "optional"
	TaskSupportRequired  TaskSupport = "required"
)

// ToolExecution holds execution-related properties of a tool. Added in
// 2025-11-25.
type ToolExecution struct {
	// TaskSupport says whether the tool supports task-augmented execution
	// (default "forbidden").
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// ListToolsParams are the params of tools/list.
type ListToolsParams = PaginatedParams

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Tools is the page of tools; never encoded as null.
	Tools []Tool `json:"tools"`
	// NextCursor, when set, fetches the next page.
	NextCursor Cursor `json:"nextCursor,omitempty"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
	// CacheHint carries ttlMs and cacheScope. Added in 2026-07-28.
	CacheHint
}

type listToolsResultWire ListToolsResult

// MarshalJSON encodes r, writing a nil Tools as [].
func (r ListToolsResult) MarshalJSON() ([]byte, error) {
	if r.Tools == nil {
		r.Tools = []Tool{}
	}
	return json.Marshal(listToolsResultWire(r))
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Name is the tool to call.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments, kept raw so the tool's
	// handler decodes it into its own type.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task asks for task-augmented execution. Added in 2025-11-25.
	Task *TaskMetadata `json:"task,omitempty"`
	// InputResponses answers the inputRequests of an InputRequiredResult on
	// retry. Added in 2026-07-28.
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	// RequestState echoes the requestState of an InputRequiredResult on
	// retry. Added in 2026-07-28.
	RequestState string `json:"requestState,omitempty"`
}

// AppendJSON appends p's JSON encoding to b, byte for byte as encoding/json
// writes it. A client's call (a name, arguments already compact, no task and
// no input responses) is written without reflection: a gateway forwards every
// call this way. Anything else goes through encoding/json.
func (p *CallToolParams) AppendJSON(b []byte) ([]byte, error) {
	if p.Meta != nil || p.Task != nil || p.InputResponses != nil ||
		(len(p.Arguments) > 0 && !isCompactJSON(p.Arguments)) {
		data, err := json.Marshal(p)
		return append(b, data...), err
	}
	b = appendStringField(append(b, '{'), "name", p.Name)
	if len(p.Arguments) > 0 {
		b = append(appendKey(b, "arguments"), p.Arguments...)
	}
	if p.RequestState != "" {
		b = appendStringField(b, "requestState", p.RequestState)
	}
	return append(b, '}'), nil
}

// CallToolResult is the result of tools/call. A tool that fails while running
// reports it here with IsError set, so the model can read the error; protocol
// failures (unknown tool, malformed params) are JSON-RPC errors instead.
type CallToolResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Content is the unstructured result; never encoded as null.
	Content []Content `json:"content"`
	// StructuredContent is the structured result, matching the tool's
	// OutputSchema. It is an any so handlers can store their own Go value
	// and have it encoded once, with the response; a json.RawMessage is
	// written verbatim. Decoding yields encoding/json's generic values
	// (map[string]any, ...). Before 2026-07-28 it must be a JSON object.
	// Added in 2025-06-18.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError marks a tool failure.
	IsError bool `json:"isError,omitempty"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
}

// NewToolResultText returns a successful result holding one text block.
func NewToolResultText(text string) *CallToolResult {
	return newOneBlockResult(NewTextContent(text))
}

// NewToolResultError returns a failed result (IsError) holding one text
// block with the message.
func NewToolResultError(message string) *CallToolResult {
	r := newOneBlockResult(NewTextContent(message))
	r.IsError = true
	return r
}

// oneBlockResult is a result and the backing array of its one content block,
// allocated together: most tool results hold a single block.
type oneBlockResult struct {
	result CallToolResult
	block  [1]Content
}

// newOneBlockResult returns a result holding c, in one allocation.
func newOneBlockResult(c Content) *CallToolResult {
	o := &oneBlockResult{block: [1]Content{c}}
	o.result.Content = o.block[:]
	return &o.result
}

// MarshalJSON encodes r; a nil Content is written as [].
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	n := 64
	for i := range r.Content {
		n += r.Content[i].sizeHint()
	}
	return r.AppendJSON(make([]byte, 0, n))
}

// AppendJSON appends r's JSON encoding to b.
func (r *CallToolResult) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, '{')
	if b, err = appendContentArray(appendKey(b, "content"), r.Content); err != nil {
		return b, err
	}
	if r.StructuredContent != nil {
		if b, err = appendValueField(b, "structuredContent", r.StructuredContent); err != nil {
			return b, err
		}
	}
	if r.IsError {
		b = appendBoolField(b, "isError", true)
	}
	if r.ResultType != "" {
		b = appendStringField(b, "resultType", string(r.ResultType))
	}
	if r.Meta != nil {
		if b, err = appendMetaField(b, "_meta", r.Meta); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// ForVersion adapts r to version v: it drops structuredContent before
// 2025-06-18 (after serialising it into a text block when the content would
// otherwise be empty, as the spec recommends for backwards compatibility),
// turns resource_link blocks into text before 2025-06-18 and audio blocks
// into text before 2025-03-26, and drops resultType before 2026-07-28. It
// returns r itself (no allocation) when nothing needs to change.
func (r *CallToolResult) ForVersion(v string) *CallToolResult {
	if r == nil {
		return nil
	}
	dropStructured := r.StructuredContent != nil && !HasStructuredOutput(v)
	dropResultType := r.ResultType != "" && !HasResultType(v)
	contentChanges := contentNeedsAdapting(r.Content, v)
	if !dropStructured && !dropResultType && !contentChanges {
		return r
	}
	c := *r
	if dropResultType {
		c.ResultType = ""
	}
	if contentChanges {
		c.Content = adaptContent(r.Content, v)
	}
	if dropStructured {
		if len(c.Content) == 0 {
			if data, err := json.Marshal(c.StructuredContent); err == nil {
				c.Content = []Content{NewTextContent(string(data))}
			}
		}
		c.StructuredContent = nil
	}
	return &c
}

// contentNeedsAdapting reports whether any block has a type version v lacks.
func contentNeedsAdapting(blocks []Content, v string) bool {
	for i := range blocks {
		if blockNeedsAdapting(&blocks[i], v) {
			return true
		}
	}
	return false
}

// blockNeedsAdapting reports whether one block must change for version v.
func blockNeedsAdapting(c *Content, v string) bool {
	switch c.Type {
	case ContentTypeAudio:
		return !HasAudio(v)
	case ContentTypeResourceLink:
		return !HasResourceLinks(v)
	case ContentTypeToolUse, ContentTypeToolResult:
		return !HasSamplingTools(v)
	}
	return false
}

// adaptContent returns a copy of blocks with each block version v lacks
// replaced by a text block describing it.
func adaptContent(blocks []Content, v string) []Content {
	out := make([]Content, len(blocks))
	for i := range blocks {
		if blockNeedsAdapting(&blocks[i], v) {
			out[i] = blocks[i].asText()
		} else {
			out[i] = blocks[i]
		}
	}
	return out
}

// asText renders a block as a text block for peers that do not know its
// type.
func (c *Content) asText() Content {
	var text string
	switch c.Type {
	case ContentTypeAudio:
		text = "[audio content (" + c.MimeType + ", " + strconv.Itoa(len(c.Data)) + " bytes) omitted: not supported by this protocol version]"
	case ContentTypeResourceLink:
		text = "Resource: " + c.URI
		if c.Name != "" {
			text += " (" + c.Name + ")"
		}
		if c.Description != "" {
			text += ": " + c.Description
		}
	case ContentTypeToolUse:
		text = "[tool_use " + c.Name + " " + string(c.Input) + "]"
	case ContentTypeToolResult:
		text = "[tool_result for " + c.ToolUseID + "]"
	}
	return Content{Type: ContentTypeText, Text: text, Annotations: c.Annotations, Meta: c.Meta}
}

// ForVersion returns r with every tool adapted to version v (see
// Tool.ForVersion) and, before 2026-07-28, without resultType and the cache
// fields. It returns r itself (no allocation) when nothing changes.
func (r *ListToolsResult) ForVersion(v string) *ListToolsResult {
	if r == nil {
		return nil
	}
	first := -1
	for i := range r.Tools {
		if r.Tools[i].ForVersion(v) != &r.Tools[i] {
			first = i
			break
		}
	}
	dropStateless := !IsStateless(v) && (r.ResultType != "" || r.TTLMs != nil || r.CacheScope != "")
	if first < 0 && !dropStateless {
		return r
	}
	c := *r
	if dropStateless {
		c.ResultType = ""
		c.ClearCache()
	}
	if first >= 0 {
		c.Tools = make([]Tool, len(r.Tools))
		copy(c.Tools, r.Tools[:first])
		for i := first; i < len(r.Tools); i++ {
			c.Tools[i] = *r.Tools[i].ForVersion(v)
		}
	}
	return &c
}
