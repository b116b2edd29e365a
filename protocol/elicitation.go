package protocol

import "encoding/json"

// ElicitMode is the kind of elicitation.
type ElicitMode string

// Elicitation modes.
const (
	// ElicitModeForm asks the user to fill in a form described by a JSON
	// schema (the only mode before 2025-11-25, where "mode" is absent).
	ElicitModeForm ElicitMode = "form"
	// ElicitModeURL sends the user to a URL. Added in 2025-11-25.
	ElicitModeURL ElicitMode = "url"
)

// ElicitParams are the params of elicitation/create: the union of form mode
// (RequestedSchema) and URL mode (URL, ElicitationID). Added in 2025-06-18.
type ElicitParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Mode is the elicitation mode; empty means form. Added in 2025-11-25
	// (required for URL mode; leave empty for form mode before
	// 2025-11-25).
	Mode ElicitMode `json:"mode,omitempty"`
	// Message explains to the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is the form's flat object schema (form mode): an
	// object whose properties are primitive string, number, boolean or enum
	// schemas.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is where the user should go (URL mode). Added in 2025-11-25.
	URL string `json:"url,omitempty"`
	// ElicitationID identifies the URL-mode elicitation, for
	// notifications/elicitation/complete (required in 2025-11-25; absent in
	// 2026-07-28). Added in 2025-11-25.
	ElicitationID string `json:"elicitationId,omitempty"`
	// Task asks for task-augmented execution. Added in 2025-11-25.
	Task *TaskMetadata `json:"task,omitempty"`
}

// IsURL reports whether p is a URL-mode elicitation.
func (p *ElicitParams) IsURL() bool { return p.Mode == ElicitModeURL }

// ElicitAction is the user's response to an elicitation.
type ElicitAction string

// Elicitation actions.
const (
	// ElicitActionAccept means the user submitted (form content in
	// Content) or consented (URL mode).
	ElicitActionAccept ElicitAction = "accept"
	// ElicitActionDecline means the user explicitly declined.
	ElicitActionDecline ElicitAction = "decline"
	// ElicitActionCancel means the user dismissed without choosing.
	ElicitActionCancel ElicitAction = "cancel"
)

// ElicitResult is the client's answer to elicitation/create. Added in
// 2025-06-18.
type ElicitResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Action is what the user did.
	Action ElicitAction `json:"action"`
	// Content is the submitted form data (form mode with action "accept"):
	// values are strings, numbers, booleans or (since 2025-11-25) string
	// arrays.
	Content map[string]any `json:"content,omitempty"`
}

// ElicitationCompleteParams are the params of
// notifications/elicitation/complete. Added in 2025-11-25.
type ElicitationCompleteParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ElicitationID is the completed URL-mode elicitation.
	ElicitationID string `json:"elicitationId"`
}
