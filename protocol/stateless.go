package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// This file holds the shapes only the stateless protocol (2026-07-28) uses.

// _meta keys defined by the protocol. Every key except MetaKeyRelatedTask is
// 2026-07-28 only.
const (
	// MetaKeyProtocolVersion carries the request's protocol version
	// (required on every 2026-07-28 request).
	MetaKeyProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaKeyClientCapabilities carries the client's capabilities for this
	// request (required on every 2026-07-28 request).
	MetaKeyClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaKeyClientInfo identifies the client software (optional).
	MetaKeyClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaKeyLogLevel is the lowest log level the client wants for this
	// request; absent means no log notifications.
	MetaKeyLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaKeyServerInfo identifies the server software, in result _meta.
	MetaKeyServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaKeySubscriptionID carries the id of the subscriptions/listen
	// request a notification (or the listen result) belongs to.
	MetaKeySubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaKeyRelatedTask associates a message with a task. Added in
	// 2025-11-25.
	MetaKeyRelatedTask = "io.modelcontextprotocol/related-task"
)

// ProtocolVersion returns the request's protocol version from _meta ("" when
// absent).
func (m Meta) ProtocolVersion() string {
	s, _ := m[MetaKeyProtocolVersion].(string)
	return s
}

// ClientCapabilities returns the capabilities declared in _meta, and false
// when the key is absent or not an object. Decoded requests hold a
// *ClientCapabilities already, so this costs no conversion (and the value is
// shared with other requests that sent the same bytes: do not modify it); a
// value stored as generic JSON is converted.
func (m Meta) ClientCapabilities() (*ClientCapabilities, bool) {
	v, ok := m[MetaKeyClientCapabilities]
	if !ok {
		return nil, false
	}
	switch c := v.(type) {
	case *ClientCapabilities:
		return c, c != nil
	case ClientCapabilities:
		return &c, true
	}
	c := new(ClientCapabilities)
	if convertJSON(v, c) != nil {
		return nil, false
	}
	return c, true
}

// ClientInfo returns the client implementation declared in _meta (a decoded
// value is shared, as with ClientCapabilities: do not modify it).
func (m Meta) ClientInfo() (*Implementation, bool) { return m.implementation(MetaKeyClientInfo) }

// ServerInfo returns the server implementation declared in a result's _meta
// (a decoded value is shared: do not modify it).
func (m Meta) ServerInfo() (*Implementation, bool) { return m.implementation(MetaKeyServerInfo) }

// implementation reads an Implementation stored under key.
func (m Meta) implementation(key string) (*Implementation, bool) {
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	switch impl := v.(type) {
	case *Implementation:
		return impl, impl != nil
	case Implementation:
		return &impl, true
	}
	impl := new(Implementation)
	if convertJSON(v, impl) != nil {
		return nil, false
	}
	return impl, true
}

// LogLevel returns the log level requested in _meta, and false when absent
// (the server must then send no log notifications for the request).
func (m Meta) LogLevel() (LoggingLevel, bool) {
	switch l := m[MetaKeyLogLevel].(type) {
	case LoggingLevel:
		return l, true
	case string:
		return LoggingLevel(l), true
	}
	return "", false
}

// SubscriptionID returns the subscriptions/listen request id from _meta, as
// a string or an int64.
func (m Meta) SubscriptionID() (any, bool) {
	v, ok := m[MetaKeySubscriptionID]
	if !ok {
		return nil, false
	}
	return NormalizeID(v)
}

// RequestMeta is the typed content of a 2026-07-28 request's _meta.
type RequestMeta struct {
	// ProtocolVersion is the request's protocol version (required).
	ProtocolVersion string
	// ClientCapabilities are the client's capabilities for this request
	// (required; an empty value means none).
	ClientCapabilities *ClientCapabilities
	// ClientInfo identifies the client (optional).
	ClientInfo *Implementation
	// LogLevel is the lowest log level wanted ("" for no logs).
	LogLevel LoggingLevel
	// ProgressToken asks for progress notifications (nil for none).
	ProgressToken any
}

// NewRequestMeta returns a _meta object holding rm's fields. A nil
// ClientCapabilities is written as {} since the key is required.
func NewRequestMeta(rm RequestMeta) Meta {
	caps := rm.ClientCapabilities
	if caps == nil {
		caps = &ClientCapabilities{}
	}
	m := Meta{MetaKeyProtocolVersion: rm.ProtocolVersion, MetaKeyClientCapabilities: caps}
	if rm.ClientInfo != nil {
		m[MetaKeyClientInfo] = rm.ClientInfo
	}
	if rm.LogLevel != "" {
		m[MetaKeyLogLevel] = rm.LogLevel
	}
	if rm.ProgressToken != nil {
		m[MetaKeyProgressToken] = rm.ProgressToken
	}
	return m
}

// convertJSON converts a generic JSON value into dst by re-encoding it.
func convertJSON(v any, dst any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("protocol: converting _meta value: %w", err)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return fmt.Errorf("protocol: converting _meta value: %w", err)
	}
	return nil
}

// ResultType tells a 2026-07-28 client how to read a result. A missing
// resultType (any earlier version) means ResultTypeComplete.
type ResultType string

// Result types.
const (
	// ResultTypeComplete is a final result.
	ResultTypeComplete ResultType = "complete"
	// ResultTypeInputRequired is an InputRequiredResult: the client must
	// answer its inputRequests and retry the request.
	ResultTypeInputRequired ResultType = "input_required"
)

// CacheScope says who may reuse a cached result.
type CacheScope string

// Cache scopes.
const (
	// CacheScopePublic results hold no user-specific data; any cache may
	// share them across authorization contexts.
	CacheScopePublic CacheScope = "public"
	// CacheScopePrivate results may be reused only within the same
	// authorization context.
	CacheScopePrivate CacheScope = "private"
)

// CacheHint holds the caching fields of a cacheable 2026-07-28 result
// (discover and the list and read results). Both fields are required there
// and absent in earlier versions; it is embedded, so its fields appear
// inline in the result.
type CacheHint struct {
	// TTLMs is how long, in milliseconds, the client may cache the result;
	// 0 means immediately stale. Nil omits the field.
	TTLMs *int64 `json:"ttlMs,omitempty"`
	// CacheScope is who may share the cached result.
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// SetCache sets the time-to-live (truncated to milliseconds, negative
// treated as 0) and the scope.
func (h *CacheHint) SetCache(ttl time.Duration, scope CacheScope) {
	ms := max(ttl.Milliseconds(), 0)
	h.TTLMs, h.CacheScope = &ms, scope
}

// ClearCache removes the caching fields (for legacy versions).
func (h *CacheHint) ClearCache() { h.TTLMs, h.CacheScope = nil, "" }

// DiscoverParams are the params of server/discover.
type DiscoverParams = RequestParams

// DiscoverResult is the result of server/discover.
type DiscoverResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is "complete".
	ResultType ResultType `json:"resultType"`
	// SupportedVersions lists the protocol versions the server supports;
	// never encoded as null.
	SupportedVersions []string `json:"supportedVersions"`
	// Capabilities are the server's capabilities.
	Capabilities ServerCapabilities `json:"capabilities"`
	// Instructions describe how to use the server.
	Instructions string `json:"instructions,omitempty"`
	// CacheHint carries ttlMs and cacheScope (both required).
	CacheHint
}

type discoverResultWire DiscoverResult

// MarshalJSON encodes r, writing a nil SupportedVersions as [].
func (r DiscoverResult) MarshalJSON() ([]byte, error) {
	if r.SupportedVersions == nil {
		r.SupportedVersions = []string{}
	}
	return json.Marshal(discoverResultWire(r))
}

// InputRequiredResult tells the client that the request needs more input:
// it answers InputRequests (with InputResponses under the same keys) and
// retries the original request, echoing RequestState. At least one of the
// two fields is set.
type InputRequiredResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// ResultType is ResultTypeInputRequired.
	ResultType ResultType `json:"resultType"`
	// InputRequests are the requests for the client, by key.
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	// RequestState is opaque server state the client echoes on retry; the
	// server must protect it (MAC or AEAD) since the client can alter it.
	RequestState string `json:"requestState,omitempty"`
}

// InputRequest is one server-to-client request inside an
// InputRequiredResult: sampling/createMessage, elicitation/create or
// roots/list. Exactly one params field matches Method; requests with a
// method this package does not know keep their params in RawParams.
type InputRequest struct {
	// Method is the request method.
	Method string
	// CreateMessage holds the params of sampling/createMessage.
	CreateMessage *CreateMessageParams
	// Elicit holds the params of elicitation/create.
	Elicit *ElicitParams
	// ListRoots holds the params of roots/list (optional on the wire).
	ListRoots *ListRootsParams
	// RawParams holds the params of any other method.
	RawParams json.RawMessage
}

// NewCreateMessageInputRequest wraps sampling params as an input request.
func NewCreateMessageInputRequest(p *CreateMessageParams) InputRequest {
	return InputRequest{Method: MethodSamplingCreateMessage, CreateMessage: p}
}

// NewElicitInputRequest wraps elicitation params as an input request.
func NewElicitInputRequest(p *ElicitParams) InputRequest {
	return InputRequest{Method: MethodElicitationCreate, Elicit: p}
}

// NewListRootsInputRequest returns a roots/list input request.
func NewListRootsInputRequest() InputRequest {
	return InputRequest{Method: MethodRootsList}
}

// inputRequestWire is the wire shape of an InputRequest.
type inputRequestWire struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Params returns the params to send with the request: the field that matches
// Method, or nil when there are none (roots/list without params).
func (r InputRequest) Params() any {
	switch r.Method {
	case MethodSamplingCreateMessage:
		if r.CreateMessage != nil {
			return r.CreateMessage
		}
	case MethodElicitationCreate:
		if r.Elicit != nil {
			return r.Elicit
		}
	case MethodRootsList:
		if r.ListRoots != nil {
			return r.ListRoots
		}
	default:
		if len(r.RawParams) > 0 {
			return r.RawParams
		}
	}
	return nil
}

// MarshalJSON encodes the request as {"method":...,"params":...}.
func (r InputRequest) MarshalJSON() ([]byte, error) {
	params := r.Params()
	if params == nil && (r.Method == MethodSamplingCreateMessage || r.Method == MethodElicitationCreate) {
		return nil, fmt.Errorf("protocol: %s input request without params", r.Method)
	}
	w := inputRequestWire{Method: r.Method}
	if params != nil {
		data, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		w.Params = data
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the request, typing its params by method.
func (r *InputRequest) UnmarshalJSON(data []byte) error {
	var w inputRequestWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = InputRequest{Method: w.Method}
	hasParams := len(w.Params) > 0 && string(w.Params) != "null"
	var err error
	switch w.Method {
	case MethodSamplingCreateMessage:
		r.CreateMessage = new(CreateMessageParams)
		if hasParams {
			err = json.Unmarshal(w.Params, r.CreateMessage)
		}
	case MethodElicitationCreate:
		r.Elicit = new(ElicitParams)
		if hasParams {
			err = json.Unmarshal(w.Params, r.Elicit)
		}
	case MethodRootsList:
		if hasParams {
			r.ListRoots = new(ListRootsParams)
			err = json.Unmarshal(w.Params, r.ListRoots)
		}
	default:
		r.RawParams = w.Params
	}
	if err != nil {
		return fmt.Errorf("protocol: %s input request params: %w", w.Method, err)
	}
	return nil
}

// InputResponses are the client's answers to InputRequests, by the same
// keys: each value is a CreateMessageResult, ElicitResult or ListRootsResult.
// Values stay raw because the wire carries no discriminator; the server,
// which knows what it asked under each key, decodes them with Decode.
type InputResponses map[string]json.RawMessage

// DecodeInputResponse checks that raw answers a request of method: a JSON
// object that decodes as that method's result (CreateMessageResult,
// ElicitResult, ListRootsResult; any object for another method). It returns
// the decoded result.
func DecodeInputResponse(method string, raw json.RawMessage) (any, error) {
	if b := bytes.TrimLeft(raw, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var dst any
	switch method {
	case MethodSamplingCreateMessage:
		dst = new(CreateMessageResult)
	case MethodElicitationCreate:
		dst = new(ElicitResult)
	case MethodRootsList:
		dst = new(ListRootsResult)
	default:
		dst = new(map[string]any)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// Decode decodes the response stored under key into dst (a
// *CreateMessageResult, *ElicitResult or *ListRootsResult). It reports false
// when key is absent.
func (r InputResponses) Decode(key string, dst any) (bool, error) {
	raw, ok := r[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, fmt.Errorf("protocol: input response %q: %w", key, err)
	}
	return true, nil
}

// Set encodes v and stores it under key, allocating the map when r is nil;
// it returns the map.
func (r InputResponses) Set(key string, v any) (InputResponses, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return r, fmt.Errorf("protocol: input response %q: %w", key, err)
	}
	if r == nil {
		r = make(InputResponses, 1)
	}
	r[key] = data
	return r, nil
}

// SubscriptionFilter selects the notifications a subscriptions/listen stream
// delivers; every type is opt-in.
type SubscriptionFilter struct {
	// ToolsListChanged asks for notifications/tools/list_changed.
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
	// PromptsListChanged asks for notifications/prompts/list_changed.
	PromptsListChanged bool `json:"promptsListChanged,omitempty"`
	// ResourcesListChanged asks for notifications/resources/list_changed.
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions asks for notifications/resources/updated for
	// these URIs (it replaces resources/subscribe).
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs asks for notifications/tasks about these tasks (the tasks
	// extension, io.modelcontextprotocol/tasks).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// SubscriptionsListenParams are the params of subscriptions/listen.
type SubscriptionsListenParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Notifications selects what the stream delivers.
	Notifications SubscriptionFilter `json:"notifications"`
}

// SubscriptionsAcknowledgedParams are the params of
// notifications/subscriptions/acknowledged, the first message of a listen
// stream.
type SubscriptionsAcknowledgedParams struct {
	// Meta carries MetaKeySubscriptionID.
	Meta Meta `json:"_meta,omitempty"`
	// Notifications is the filter the server accepted.
	Notifications SubscriptionFilter `json:"notifications"`
}

// SubscriptionsListenResult ends a subscriptions/listen stream gracefully.
type SubscriptionsListenResult struct {
	// Meta carries MetaKeySubscriptionID (required).
	Meta Meta `json:"_meta"`
	// ResultType is "complete".
	ResultType ResultType `json:"resultType"`
}

// InputResponseParams are the fields common to every request that can answer
// an InputRequiredResult. The request-specific params (CallToolParams,
// GetPromptParams, ReadResourceParams) carry the same fields inline.
type InputResponseParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// InputResponses answers the earlier inputRequests.
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	// RequestState echoes the earlier requestState.
	RequestState string `json:"requestState,omitempty"`
}
