package protocol

// Supported marks a capability that is present with no settings; it encodes as
// {}. A nil *Supported means the capability is absent.
type Supported struct{}

// InitializeParams are the params of initialize (legacy versions only).
type InitializeParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ProtocolVersion is the newest version the client supports.
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities are the client's capabilities.
	Capabilities ClientCapabilities `json:"capabilities"`
	// ClientInfo identifies the client.
	ClientInfo Implementation `json:"clientInfo"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ProtocolVersion is the version the server chose (see Negotiate).
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities are the server's capabilities.
	Capabilities ServerCapabilities `json:"capabilities"`
	// ServerInfo identifies the server.
	ServerInfo Implementation `json:"serverInfo"`
	// Instructions describe how to use the server; clients may put them in
	// the model's system prompt.
	Instructions string `json:"instructions,omitempty"`
}

// ClientCapabilities are the optional features a client supports. The set is
// open: Experimental and Extensions carry non-standard ones.
type ClientCapabilities struct {
	// Experimental holds non-standard capabilities.
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
	// Extensions holds MCP extensions by identifier (e.g.
	// "io.modelcontextprotocol/ui"); each value is a settings object (empty
	// for none). Added in 2026-07-28.
	Extensions map[string]map[string]any `json:"extensions,omitempty"`
	// Roots is present when the client can list roots.
	Roots *RootsCapability `json:"roots,omitempty"`
	// Sampling is present when the client can sample from an LLM.
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	// Elicitation is present when the client can elicit input from the
	// user. Added in 2025-06-18.
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
	// Tasks describes the client's task support. Added in 2025-11-25.
	Tasks *ClientTasksCapability `json:"tasks,omitempty"`
}

// RootsCapability describes a client's roots support.
type RootsCapability struct {
	// ListChanged says the client sends notifications/roots/list_changed
	// (legacy versions only).
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability describes a client's sampling support.
type SamplingCapability struct {
	// Context is present when the client honours includeContext other than
	// "none". Added in 2025-11-25.
	Context *Supported `json:"context,omitempty"`
	// Tools is present when the client supports tools and toolChoice in
	// sampling requests. Added in 2025-11-25.
	Tools *Supported `json:"tools,omitempty"`
}

// ElicitationCapability describes a client's elicitation support. An empty
// object means form mode only. Added in 2025-06-18.
type ElicitationCapability struct {
	// Form is present when the client supports form mode. Added in
	// 2025-11-25.
	Form *Supported `json:"form,omitempty"`
	// URL is present when the client supports URL mode. Added in 2025-11-25.
	URL *Supported `json:"url,omitempty"`
}

// SupportsForm reports whether form-mode elicitation is supported: declared
// explicitly, or implied by an empty elicitation capability.
func (e *ElicitationCapability) SupportsForm() bool {
	return e != nil && (e.Form != nil || e.URL == nil)
}

// SupportsURL reports whether URL-mode elicitation is supported.
func (e *ElicitationCapability) SupportsURL() bool { return e != nil && e.URL != nil }

// ClientTasksCapability describes which requests a client can run as tasks.
// Added in 2025-11-25.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ClientTasksCapability struct {
	// List is present when the client supports tasks/list.
	List *Supported `json:"list,omitempty"`
	// Cancel is present when the client supports tasks/cancel.
	Cancel *Supported `json:"cancel,omitempty"`
	// Requests lists the server-to-client requests that may be
	// task-augmented.
	Requests *ClientTaskRequests `json:"requests,omitempty"`
}

// ClientTaskRequests lists the client-side requests that support tasks.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ClientTaskRequests struct {
	// Sampling covers sampling/createMessage.
	Sampling *SamplingTaskRequests `json:"sampling,omitempty"`
	// Elicitation covers elicitation/create.
	Elicitation *ElicitationTaskRequests `json:"elicitation,omitempty"`
}

// SamplingTaskRequests marks sampling/createMessage as task-capable.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type SamplingTaskRequests struct {
	// CreateMessage is present when sampling/createMessage supports tasks.
	CreateMessage *Supported `json:"createMessage,omitempty"`
}

// ElicitationTaskRequests marks elicitation/create as task-capable.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ElicitationTaskRequests struct {
	// Create is present when elicitation/create supports tasks.
	Create *Supported `json:"create,omitempty"`
}

// ServerCapabilities are the optional features a server supports. The set is
// open: Experimental and Extensions carry non-standard ones.
type ServerCapabilities struct {
	// Experimental holds non-standard capabilities.
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
	// Extensions holds MCP extensions by identifier (e.g.
	// "io.modelcontextprotocol/tasks"). Added in 2026-07-28.
	Extensions map[string]map[string]any `json:"extensions,omitempty"`
	// Logging is present when the server sends log messages.
	Logging *Supported `json:"logging,omitempty"`
	// Completions is present when the server offers argument completion.
	// Added in 2025-03-26.
	Completions *Supported `json:"completions,omitempty"`
	// Prompts is present when the server offers prompts.
	Prompts *PromptsCapability `json:"prompts,omitempty"`
	// Resources is present when the server offers resources.
	Resources *ResourcesCapability `json:"resources,omitempty"`
	// Tools is present when the server offers tools.
	Tools *ToolsCapability `json:"tools,omitempty"`
	// Tasks describes the server's task support. Added in 2025-11-25.
	Tasks *ServerTasksCapability `json:"tasks,omitempty"`
}

// PromptsCapability describes a server's prompt support.
type PromptsCapability struct {
	// ListChanged says the server sends notifications/prompts/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability describes a server's resource support.
type ResourcesCapability struct {
	// Subscribe says the server supports resource update subscriptions.
	Subscribe bool `json:"subscribe,omitempty"`
	// ListChanged says the server sends
	// notifications/resources/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability describes a server's tool support.
type ToolsCapability struct {
	// ListChanged says the server sends notifications/tools/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ServerTasksCapability describes which requests a server can run as tasks.
// Added in 2025-11-25.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ServerTasksCapability struct {
	// List is present when the server supports tasks/list.
	List *Supported `json:"list,omitempty"`
	// Cancel is present when the server supports tasks/cancel.
	Cancel *Supported `json:"cancel,omitempty"`
	// Requests lists the client-to-server requests that may be
	// task-augmented.
	Requests *ServerTaskRequests `json:"requests,omitempty"`
}

// ServerTaskRequests lists the server-side requests that support tasks.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ServerTaskRequests struct {
	// Tools covers tools/call.
	Tools *ToolsTaskRequests `json:"tools,omitempty"`
}

// ToolsTaskRequests marks tools/call as task-capable.
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
type ToolsTaskRequests struct {
	// Call is present when tools/call supports tasks.
	Call *Supported `json:"call,omitempty"`
}

// ForVersion returns c without the capabilities version v lacks:
// completions before 2025-03-26, tasks outside 2025-11-25 and extensions
// before 2026-07-28. It returns c itself when nothing changes.
func (c *ServerCapabilities) ForVersion(v string) *ServerCapabilities {
	if c == nil {
		return nil
	}
	dropCompl := c.Completions != nil && !HasCompletionsCapability(v)
	dropTasks := c.Tasks != nil && !HasTasks(v)
	dropExt := c.Extensions != nil && !IsStateless(v)
	if !dropCompl && !dropTasks && !dropExt {
		return c
	}
	out := *c
	if dropCompl {
		out.Completions = nil
	}
	if dropTasks {
		out.Tasks = nil
	}
	if dropExt {
		out.Extensions = nil
	}
	return &out
}

// ForVersion returns r with its server info and capabilities adapted to
// version v (see Implementation.ForVersion and ServerCapabilities.ForVersion).
// It returns r itself when nothing changes.
func (r *InitializeResult) ForVersion(v string) *InitializeResult {
	if r == nil {
		return nil
	}
	info := r.ServerInfo.ForVersion(v)
	caps := r.Capabilities.ForVersion(v)
	if info == &r.ServerInfo && caps == &r.Capabilities {
		return r
	}
	c := *r
	c.ServerInfo, c.Capabilities = *info, *caps
	return &c
}
