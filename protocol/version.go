package protocol

import "slices"

// Protocol version strings, as they appear on the wire.
const (
	// Version20241105 is the first public MCP version (HTTP+SSE transport).
	Version20241105 = "2024-11-05"
	// Version20250326 added Streamable HTTP, JSON-RPC batching, audio
	// content, tool annotations and completions capability.
	Version20250326 = "2025-03-26"
	// Version20250618 removed batching and added elicitation, structured
	// tool output, resource links, titles and the MCP-Protocol-Version
	// header.
	Version20250618 = "2025-06-18"
	// Version20251125 added icons, tasks, URL elicitation and sampling with
	// tools.
	Version20251125 = "2025-11-25"
	// Version20260728 is the stateless protocol: no initialize handshake,
	// per-request capabilities in _meta, server/discover and resultType.
	Version20260728 = "2026-07-28"
)

// LatestLegacy is the newest version negotiated through initialize.
const LatestLegacy = Version20251125

// Latest is the newest protocol version this package supports.
const Latest = Version20260728

// legacyVersions and supportedVersions are what LegacyVersions and
// SupportedVersions return copies of: arrays, so that no caller can change them.
var (
	legacyVersions    = [...]string{Version20251125, Version20250618, Version20250326, Version20241105}
	supportedVersions = [...]string{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}
)

// LegacyVersions returns the initialize-negotiated versions, newest first, in
// a new slice the caller may keep and change.
func LegacyVersions() []string { return slices.Clone(legacyVersions[:]) }

// SupportedVersions returns every supported version, newest first, in a new
// slice the caller may keep and change.
func SupportedVersions() []string { return slices.Clone(supportedVersions[:]) }

// versionRank orders the known versions; unknown versions rank 0.
func versionRank(v string) int {
	switch v {
	case Version20241105:
		return 1
	case Version20250326:
		return 2
	case Version20250618:
		return 3
	case Version20251125:
		return 4
	case Version20260728:
		return 5
	}
	return 0
}

// atLeast reports whether v is a known version no older than min.
func atLeast(v, min string) bool {
	r := versionRank(v)
	return r != 0 && r >= versionRank(min)
}

// IsSupported reports whether v is one of the protocol versions this package
// implements.
func IsSupported(v string) bool { return versionRank(v) != 0 }

// IsLegacy reports whether v is a supported version negotiated through the
// initialize handshake (2025-11-25 and older).
func IsLegacy(v string) bool { r := versionRank(v); return r != 0 && r < versionRank(Version20260728) }

// IsStateless reports whether v is a stateless (2026-07-28 or newer) version,
// where every request carries its protocol version and client capabilities in
// _meta and there is no initialize handshake.
func IsStateless(v string) bool { return atLeast(v, Version20260728) }

// Compare orders two supported versions: it returns -1 if a is older than b,
// +1 if newer and 0 if equal. Unknown versions sort before every known one.
func Compare(a, b string) int {
	ra, rb := versionRank(a), versionRank(b)
	switch {
	case ra < rb:
		return -1
	case ra > rb:
		return 1
	}
	return 0
}

// Negotiate returns the version a server answers to an initialize request
// asking for requested: the requested version itself when it is a supported
// legacy version, and LatestLegacy otherwise. Initialize never negotiates a
// stateless version.
func Negotiate(requested string) string {
	if IsLegacy(requested) {
		return requested
	}
	return LatestLegacy
}

// SupportsBatching reports whether v allows JSON-RPC batches (only
// 2025-03-26).
func SupportsBatching(v string) bool { return v == Version20250326 }

// HasAudio reports whether v has audio content blocks (2025-03-26+).
func HasAudio(v string) bool { return atLeast(v, Version20250326) }

// HasToolAnnotations reports whether v has Tool.annotations (2025-03-26+).
func HasToolAnnotations(v string) bool { return atLeast(v, Version20250326) }

// HasCompletionsCapability reports whether v has the completions server
// capability (2025-03-26+).
func HasCompletionsCapability(v string) bool { return atLeast(v, Version20250326) }

// HasProgressMessage reports whether progress notifications may carry a
// message (2025-03-26+).
func HasProgressMessage(v string) bool { return atLeast(v, Version20250326) }

// HasStructuredOutput reports whether v has Tool.outputSchema and
// CallToolResult.structuredContent (2025-06-18+).
func HasStructuredOutput(v string) bool { return atLeast(v, Version20250618) }

// HasElicitation reports whether v has elicitation (2025-06-18+).
func HasElicitation(v string) bool { return atLeast(v, Version20250618) }

// HasTitle reports whether v has the human-readable title field on tools,
// prompts, resources and implementations (2025-06-18+).
func HasTitle(v string) bool { return atLeast(v, Version20250618) }

// HasResourceLinks reports whether v has resource_link content blocks
// (2025-06-18+).
func HasResourceLinks(v string) bool { return atLeast(v, Version20250618) }

// HasProtocolVersionHeader reports whether HTTP requests carry the
// MCP-Protocol-Version header (2025-06-18+).
func HasProtocolVersionHeader(v string) bool { return atLeast(v, Version20250618) }

// HasCompletionContext reports whether completion/complete carries context
// arguments (2025-06-18+).
func HasCompletionContext(v string) bool { return atLeast(v, Version20250618) }

// HasIcons reports whether v has icons on tools, prompts, resources and
// implementations (2025-11-25+).
func HasIcons(v string) bool { return atLeast(v, Version20251125) }

// HasURLElicitation reports whether v has URL-mode elicitation
// (2025-11-25+).
func HasURLElicitation(v string) bool { return atLeast(v, Version20251125) }

// HasSamplingTools reports whether sampling/createMessage may carry tools and
// toolChoice, with tool_use and tool_result content (2025-11-25+).
func HasSamplingTools(v string) bool { return atLeast(v, Version20251125) }

// HasTasks reports whether v has the built-in experimental tasks methods
// (2025-11-25 only; 2026-07-28 moved tasks to an extension).
//
// Experimental: tasks are experimental in 2025-11-25; this API may change.
func HasTasks(v string) bool { return v == Version20251125 }

// HasInitialize reports whether v uses the initialize handshake (every legacy
// version).
func HasInitialize(v string) bool { return IsLegacy(v) }

// HasResultType reports whether results carry resultType (2026-07-28+).
func HasResultType(v string) bool { return atLeast(v, Version20260728) }
