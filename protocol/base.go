package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// MetaKeyProgressToken is the _meta key under which a request asks for
// progress notifications.
const MetaKeyProgressToken = "progressToken"

// Meta is the _meta object carried by params, results, notifications and many
// schema objects. Keys are strings; values are arbitrary JSON.
//
// Decoding is typed for the keys the protocol defines, so readers need no
// second conversion: "progressToken" and "io.modelcontextprotocol/subscriptionId"
// decode to a string or an int64 (exactly, with no float64 rounding),
// "io.modelcontextprotocol/clientCapabilities" to *ClientCapabilities,
// "io.modelcontextprotocol/clientInfo" and ".../serverInfo" to
// *Implementation, ".../protocolVersion" to string, ".../logLevel" to
// LoggingLevel and ".../related-task" to *RelatedTaskMetadata. Every other key
// decodes as encoding/json decodes into any (numbers become float64).
//
// A client repeats its capabilities and identity, and a server its identity,
// on every message, so the *ClientCapabilities and *Implementation values
// decoded from the same bytes are one value, shared by every Meta holding
// them: read them, and replace them to change them, but never modify what
// they point to.
type Meta map[string]any

// ProgressToken returns the request's progress token, normalised to a string
// or an int64, and whether one is present and valid. A token set by code as a
// float64 (as encoding/json would decode it into any) is converted to int64
// when it is integral; such tokens are exact only below 2^53.
func (m Meta) ProgressToken() (any, bool) {
	v, ok := m[MetaKeyProgressToken]
	if !ok {
		return nil, false
	}
	return NormalizeID(v)
}

// SetProgressToken stores token (a string or an integer) under
// "progressToken" and returns m, allocating the map when m is nil.
func (m Meta) SetProgressToken(token any) Meta {
	return m.With(MetaKeyProgressToken, token)
}

// With stores value under key and returns m, allocating the map when m is
// nil. It lets callers write p.Meta = p.Meta.With(k, v).
func (m Meta) With(key string, value any) Meta {
	if m == nil {
		m = make(Meta, 2)
	}
	m[key] = value
	return m
}

// Clone returns a shallow copy of m (nil for nil).
func (m Meta) Clone() Meta {
	if m == nil {
		return nil
	}
	c := make(Meta, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// UnmarshalJSON decodes a _meta object, typing the protocol-defined keys (see
// [Meta]). A JSON null leaves m unchanged.
func (m *Meta) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		return nil
	}
	if out, ok := decodeMetaFast(data); ok {
		*m = out
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("protocol: decoding _meta: %w", err)
	}
	out := make(Meta, len(raw))
	for k, v := range raw {
		val, err := decodeMetaEntry(k, v)
		if err != nil {
			return fmt.Errorf("protocol: decoding _meta key %q: %w", k, err)
		}
		out[k] = val
	}
	*m = out
	return nil
}

// decodeMetaValue decodes the value of one _meta key.
func decodeMetaValue(key string, v json.RawMessage) (any, error) {
	switch key {
	case MetaKeyProgressToken, MetaKeySubscriptionID:
		return DecodeID(v)
	case MetaKeyClientCapabilities:
		c := new(ClientCapabilities)
		return c, json.Unmarshal(v, c)
	case MetaKeyClientInfo, MetaKeyServerInfo:
		impl := new(Implementation)
		return impl, json.Unmarshal(v, impl)
	case MetaKeyProtocolVersion:
		var s string
		return s, json.Unmarshal(v, &s)
	case MetaKeyLogLevel:
		var l LoggingLevel
		return l, json.Unmarshal(v, &l)
	case MetaKeyRelatedTask:
		t := new(RelatedTaskMetadata)
		return t, json.Unmarshal(v, t)
	}
	var x any
	return x, json.Unmarshal(v, &x)
}

// DecodeID decodes a JSON string or integer (a request id or progress token)
// into a string or an int64, keeping integers exact.
func DecodeID(data []byte) (any, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("protocol: empty id")
	}
	if data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("protocol: decoding id: %w", err)
		}
		return s, nil
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		// Accept integral numbers written with a fraction or exponent (1.0, 1e3).
		f, ferr := strconv.ParseFloat(string(data), 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<63-1 {
			return nil, fmt.Errorf("protocol: id %s is neither a string nor an integer", data)
		}
		return int64(f), nil
	}
	return n, nil
}

// NormalizeID converts a request id or progress token held in an any to a
// string or an int64. It accepts string, every Go integer type, integral
// float32/float64 (below 2^53 for exactness) and integral json.Number. It
// reports false for anything else.
func NormalizeID(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return nil, false
		}
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return nil, false
		}
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<63-1 {
			return nil, false
		}
		return int64(x), true
	case float32:
		return NormalizeID(float64(x))
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		f, err := x.Float64()
		if err != nil {
			return nil, false
		}
		return NormalizeID(f)
	}
	return nil, false
}

// Role is the sender or recipient of messages and data in a conversation.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations are optional hints to the client about how an object is used or
// displayed. Added in 2025-03-26 as a named type (2024-11-05 had the same
// audience and priority fields inline).
type Annotations struct {
	// Audience says who the object is intended for.
	Audience []Role `json:"audience,omitempty"`
	// Priority is the importance of the object, 0 (optional) to 1 (required).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp of the last modification.
	// Added in 2025-06-18.
	LastModified string `json:"lastModified,omitempty"`
}

// IconTheme is the UI theme an icon is designed for.
type IconTheme string

// Icon themes.
const (
	IconThemeLight IconTheme = "light"
	IconThemeDark  IconTheme = "dark"
)

// Icon is an image a client can display for a tool, prompt, resource or
// implementation. Added in 2025-11-25.
type Icon struct {
	// Src is an http(s) or data: URI of the image.
	Src string `json:"src"`
	// MimeType optionally overrides the source's MIME type.
	MimeType string `json:"mimeType,omitempty"`
	// Sizes lists the sizes the icon is available in, e.g. "48x48" or "any".
	Sizes []string `json:"sizes,omitempty"`
	// Theme says which UI theme the icon is designed for.
	Theme IconTheme `json:"theme,omitempty"`
}

// Implementation describes an MCP client or server implementation.
type Implementation struct {
	// Name is the programmatic name.
	Name string `json:"name"`
	// Title is a human-readable display name. Added in 2025-06-18.
	Title string `json:"title,omitempty"`
	// Version is the implementation's version string.
	Version string `json:"version"`
	// Description says what the implementation does. Added in 2025-11-25.
	Description string `json:"description,omitempty"`
	// WebsiteURL is the implementation's home page. Added in 2025-11-25.
	WebsiteURL string `json:"websiteUrl,omitempty"`
	// Icons are images a UI can show. Added in 2025-11-25.
	Icons []Icon `json:"icons,omitempty"`
}

// ForVersion returns impl without the fields version v lacks. It returns impl
// itself (no allocation) when nothing needs to change.
func (impl *Implementation) ForVersion(v string) *Implementation {
	if impl == nil {
		return nil
	}
	dropTitle := impl.Title != "" && !HasTitle(v)
	dropNew := (impl.Description != "" || impl.WebsiteURL != "" || impl.Icons != nil) && !HasIcons(v)
	if !dropTitle && !dropNew {
		return impl
	}
	c := *impl
	if dropTitle {
		c.Title = ""
	}
	if dropNew {
		c.Description, c.WebsiteURL, c.Icons = "", "", nil
	}
	return &c
}

// Cursor is an opaque pagination token.
type Cursor = string

// RequestParams holds only _meta: the params of requests that have no other
// fields (ping, roots/list, server/discover).
type RequestParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
}

// PaginatedParams are the params of the list requests.
type PaginatedParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Cursor, when set, asks for the page after the one that returned it.
	Cursor Cursor `json:"cursor,omitempty"`
}

// NotificationParams holds only _meta: the params of notifications that have
// no other fields (initialized, list_changed notifications).
type NotificationParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
}

// InitializedParams are the params of notifications/initialized.
type InitializedParams = NotificationParams

// PingParams are the params of ping.
type PingParams = RequestParams

// EmptyResult is a result with no fields beyond _meta (ping, subscribe,
// setLevel, ...).
type EmptyResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is "complete" for stateless versions. Added in 2026-07-28.
	ResultType ResultType `json:"resultType,omitempty"`
}
