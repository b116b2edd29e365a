package protocol

import "encoding/json"

// Completion reference types.
const (
	// RefTypePrompt refers to a prompt by name.
	RefTypePrompt = "ref/prompt"
	// RefTypeResource refers to a resource template by URI template.
	RefTypeResource = "ref/resource"
)

// MaxCompletionValues is the most values a Completion may hold.
const MaxCompletionValues = 100

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Ref is the prompt or resource template whose argument is completed.
	Ref CompleteReference `json:"ref"`
	// Argument is the argument being completed.
	Argument CompleteArgument `json:"argument"`
	// Context holds already-resolved arguments. Added in 2025-06-18.
	Context *CompleteContext `json:"context,omitempty"`
}

// CompleteReference is the union of PromptReference (Type "ref/prompt",
// Name, Title) and ResourceTemplateReference (Type "ref/resource", URI).
type CompleteReference struct {
	// Type is RefTypePrompt or RefTypeResource.
	Type string `json:"type"`
	// Name is the prompt name (ref/prompt).
	Name string `json:"name,omitempty"`
	// Title is the prompt's display name (ref/prompt). Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// URI is the resource URI template (ref/resource).
	URI string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed.
type CompleteArgument struct {
	// Name is the argument's name.
	Name string `json:"name"`
	// Value is the partial value typed so far.
	Value string `json:"value"`
}

// CompleteContext carries context for a completion. Added in 2025-06-18.
type CompleteContext struct {
	// Arguments are previously resolved argument values, by name.
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Completion holds the suggestions.
	Completion Completion `json:"completion"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
}

// Completion holds completion suggestions.
type Completion struct {
	// Values are the suggestions (at most MaxCompletionValues); never
	// encoded as null.
	Values []string `json:"values"`
	// Total is the number of available suggestions, which may exceed
	// len(Values).
	Total *int `json:"total,omitempty"`
	// HasMore says more suggestions exist beyond Values.
	HasMore bool `json:"hasMore,omitempty"`
}

type completionWire Completion

// MarshalJSON encodes c, writing a nil Values as [].
func (c Completion) MarshalJSON() ([]byte, error) {
	if c.Values == nil {
		c.Values = []string{}
	}
	return json.Marshal(completionWire(c))
}
