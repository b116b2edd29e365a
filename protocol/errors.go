package protocol

import "encoding/json"

// JSON-RPC 2.0 error codes, repeated here so MCP code can use one package.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// MCP error codes.
const (
	// CodeResourceNotFound reports an unknown resource URI in legacy
	// versions (2026-07-28 uses CodeInvalidParams).
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired says the request needs URL-mode
	// elicitations first; data is URLElicitationRequiredData. Added in
	// 2025-11-25.
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch says an HTTP header disagrees with the body (e.g.
	// MCP-Protocol-Version vs _meta). Added in 2026-07-28.
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability says the request needs a client
	// capability it did not declare; data is MissingClientCapabilityData.
	// Added in 2026-07-28.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion says the server does not support the
	// request's protocol version; data is UnsupportedProtocolVersionData.
	// Added in 2026-07-28.
	CodeUnsupportedProtocolVersion = -32022
)

// URLElicitationRequiredData is the data of a CodeURLElicitationRequired
// error. Added in 2025-11-25.
type URLElicitationRequiredData struct {
	// Elicitations are the URL-mode elicitations to complete before
	// retrying.
	Elicitations []ElicitParams `json:"elicitations"`
}

// MissingClientCapabilityData is the data of a CodeMissingClientCapability
// error. Added in 2026-07-28.
type MissingClientCapabilityData struct {
	// RequiredCapabilities are the capabilities the request needs.
	RequiredCapabilities ClientCapabilities `json:"requiredCapabilities"`
}

// UnsupportedProtocolVersionData is the data of a
// CodeUnsupportedProtocolVersion error. Added in 2026-07-28.
type UnsupportedProtocolVersionData struct {
	// Requested is the version the client asked for.
	Requested string `json:"requested"`
	// Supported lists the versions the server supports.
	Supported []string `json:"supported"`
}

type urlElicitationRequiredDataWire URLElicitationRequiredData

// MarshalJSON encodes d, writing a nil Elicitations as [].
func (d URLElicitationRequiredData) MarshalJSON() ([]byte, error) {
	if d.Elicitations == nil {
		d.Elicitations = []ElicitParams{}
	}
	return json.Marshal(urlElicitationRequiredDataWire(d))
}

type unsupportedProtocolVersionDataWire UnsupportedProtocolVersionData

// MarshalJSON encodes d, writing a nil Supported as [].
func (d UnsupportedProtocolVersionData) MarshalJSON() ([]byte, error) {
	if d.Supported == nil {
		d.Supported = []string{}
	}
	return json.Marshal(unsupportedProtocolVersionDataWire(d))
}
