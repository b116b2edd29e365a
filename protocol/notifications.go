package protocol

import (
	"encoding/json"
	"fmt"
)

// ProgressParams are the params of notifications/progress.
type ProgressParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ProgressToken is the token from the request's _meta: a string or an
	// integer. Decoding yields a string or an int64 (exact), so echoing a
	// token keeps its JSON type.
	ProgressToken any `json:"progressToken"`
	// Progress is the progress so far; it must increase with each
	// notification.
	Progress float64 `json:"progress"`
	// Total is the total amount of work, when known (0 means unknown).
	Total float64 `json:"total,omitempty"`
	// Message describes the current progress. Added in 2025-03-26.
	Message string `json:"message,omitempty"`
}

type progressParamsWire ProgressParams

// UnmarshalJSON decodes p, keeping an integer token exact as int64.
func (p *ProgressParams) UnmarshalJSON(data []byte) error {
	var w struct {
		progressParamsWire
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = ProgressParams(w.progressParamsWire)
	p.ProgressToken = nil
	if len(w.ProgressToken) > 0 && string(w.ProgressToken) != "null" {
		tok, err := DecodeID(w.ProgressToken)
		if err != nil {
			return fmt.Errorf("protocol: progressToken: %w", err)
		}
		p.ProgressToken = tok
	}
	return nil
}

// CancelledParams are the params of notifications/cancelled.
type CancelledParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// RequestID is the id of the request to cancel: a string or an integer.
	// Decoding yields a string or an int64 (exact). It is required except
	// in 2025-11-25, where tasks are cancelled with tasks/cancel instead.
	RequestID any `json:"requestId,omitempty"`
	// Reason says why, for logs or users.
	Reason string `json:"reason,omitempty"`
}

type cancelledParamsWire CancelledParams

// UnmarshalJSON decodes p, keeping an integer request id exact as int64.
func (p *CancelledParams) UnmarshalJSON(data []byte) error {
	var w struct {
		cancelledParamsWire
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = CancelledParams(w.cancelledParamsWire)
	p.RequestID = nil
	if len(w.RequestID) > 0 && string(w.RequestID) != "null" {
		id, err := DecodeID(w.RequestID)
		if err != nil {
			return fmt.Errorf("protocol: requestId: %w", err)
		}
		p.RequestID = id
	}
	return nil
}

// ResourceUpdatedParams are the params of notifications/resources/updated.
type ResourceUpdatedParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// URI is the resource that changed (possibly a sub-resource of the one
	// subscribed to).
	URI string `json:"uri"`
}

// ListChangedParams are the params of the list_changed notifications (tools,
// prompts, resources, roots).
type ListChangedParams = NotificationParams
