package protocol

import "encoding/json"

// Prompt is a prompt or prompt template the server offers.
type Prompt struct {
	// Name is the programmatic name.
	Name string `json:"name"`
	// Title is a human-readable display name. Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// Description describes what the prompt provides.
	Description string `json:"description,omitempty"`
	// Arguments are the arguments the prompt accepts.
	Arguments []PromptArgument `json:"arguments,omitempty"`
	// Icons are images a UI can show. Added in 2025-11-25.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the prompt's _meta object. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// ForVersion returns p without the fields version v lacks (titles and _meta
// before 2025-06-18, icons before 2025-11-25). It returns p itself when
// nothing changes.
func (p *Prompt) ForVersion(v string) *Prompt {
	if p == nil {
		return nil
	}
	argTitles := false
	for i := range p.Arguments {
		if p.Arguments[i].Title != "" {
			argTitles = true
			break
		}
	}
	dropTitled := (p.Title != "" || p.Meta != nil || argTitles) && !HasTitle(v)
	dropIcons := p.Icons != nil && !HasIcons(v)
	if !dropTitled && !dropIcons {
		return p
	}
	c := *p
	if dropTitled {
		c.Title, c.Meta = "", nil
		if argTitles {
			c.Arguments = make([]PromptArgument, len(p.Arguments))
			for i, a := range p.Arguments {
				a.Title = ""
				c.Arguments[i] = a
			}
		}
	}
	if dropIcons {
		c.Icons = nil
	}
	return &c
}

// PromptArgument describes one argument of a prompt template.
type PromptArgument struct {
	// Name is the programmatic name.
	Name string `json:"name"`
	// Title is a human-readable display name. Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// Description describes the argument.
	Description string `json:"description,omitempty"`
	// Required says the argument must be supplied.
	Required bool `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	// Role is the message's speaker.
	Role Role `json:"role"`
	// Content is the message's content block.
	Content Content `json:"content"`
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams = PaginatedParams

// ListPromptsResult is the result of prompts/list.
type ListPromptsResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Prompts is the page of prompts; never encoded as null.
	Prompts []Prompt `json:"prompts"`
	// NextCursor, when set, fetches the next page.
	NextCursor Cursor `json:"nextCursor,omitempty"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
	// CacheHint carries ttlMs and cacheScope. Added in 2026-07-28.
	CacheHint
}

type listPromptsResultWire ListPromptsResult

// MarshalJSON encodes r, writing a nil Prompts as [].
func (r ListPromptsResult) MarshalJSON() ([]byte, error) {
	if r.Prompts == nil {
		r.Prompts = []Prompt{}
	}
	return json.Marshal(listPromptsResultWire(r))
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Name is the prompt to get.
	Name string `json:"name"`
	// Arguments are the template arguments.
	Arguments map[string]string `json:"arguments,omitempty"`
	// InputResponses answers the inputRequests of an InputRequiredResult on
	// retry. Added in 2026-07-28.
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	// RequestState echoes the requestState of an InputRequiredResult on
	// retry. Added in 2026-07-28.
	RequestState string `json:"requestState,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Description describes the prompt.
	Description string `json:"description,omitempty"`
	// Messages are the prompt's messages; never encoded as null.
	Messages []PromptMessage `json:"messages"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
}

type getPromptResultWire GetPromptResult

// MarshalJSON encodes r, writing a nil Messages as [].
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	if r.Messages == nil {
		r.Messages = []PromptMessage{}
	}
	return json.Marshal(getPromptResultWire(r))
}

// ForVersion adapts r's message content to version v (audio and resource
// links become text blocks where v lacks them) and drops resultType before
// 2026-07-28. It returns r itself when nothing changes.
func (r *GetPromptResult) ForVersion(v string) *GetPromptResult {
	if r == nil {
		return nil
	}
	dropResultType := r.ResultType != "" && !HasResultType(v)
	adapt := false
	for i := range r.Messages {
		if blockNeedsAdapting(&r.Messages[i].Content, v) {
			adapt = true
			break
		}
	}
	if !adapt && !dropResultType {
		return r
	}
	c := *r
	if dropResultType {
		c.ResultType = ""
	}
	if adapt {
		c.Messages = make([]PromptMessage, len(r.Messages))
		for i, m := range r.Messages {
			if blockNeedsAdapting(&m.Content, v) {
				m.Content = m.Content.asText()
			}
			c.Messages[i] = m
		}
	}
	return &c
}
