// Package protocol defines the Model Context Protocol (MCP) wire types and
// constants for every supported protocol version: 2024-11-05, 2025-03-26,
// 2025-06-18, 2025-11-25 (the "legacy", session-based era) and 2026-07-28
// (the stateless era).
//
// One Go struct exists per schema type. When a type gained fields over time,
// the struct holds the superset and each later field's doc comment names the
// version that added it. Fields that a negotiated version does not know are
// left empty by the caller, or removed with the ForVersion adapters (for
// example [CallToolResult.ForVersion] and [Tool.ForVersion]).
//
// The package knows nothing of transports or dispatch and imports only the
// standard library. Types whose wire form needs care (content blocks,
// resource contents, results with required arrays) have hand-written
// MarshalJSON methods; every other type uses encoding/json's defaults.
//
// # Versions
//
// The version constants ([Version20241105] … [Version20260728]) name the eras:
// [IsLegacy] versions are negotiated by initialize ([Negotiate] picks the answer
// to a client's request), [IsStateless] ones are declared by every request in
// its _meta ([Meta], keys such as [MetaKeyProtocolVersion]). Feature predicates
// such as [HasStructuredOutput] and [SupportsBatching] say what a version has.
//
// # The stateless era
//
// 2026-07-28 adds [DiscoverResult], the input-required round trip
// ([InputRequiredResult], [InputRequest], [InputResponses]), caching hints
// ([CacheHint]) and the HTTP headers that mirror a request's body: [RequestFields]
// read from the body ([ReadRequestFields]) are checked against the headers with
// [CheckRequestHeaders], and a tool's Mcp-Param headers with [ParamHeaders] and
// [CheckParamHeaders].
package protocol
