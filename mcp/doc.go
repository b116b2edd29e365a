// Package mcp implements the Model Context Protocol's behaviour on top of the wire
// types in package protocol: a Server that offers tools, resources, prompts,
// completions and logging, and a Client that connects to servers, lists and calls
// what they offer, and answers their sampling, elicitation and roots requests.
//
// A Server or Client talks over any transport.Conn (stdio, in-memory, HTTP): the
// features here know nothing of transports.
//
// Tool handlers are typed: AddTool infers the tool's input schema from a Go struct,
// validates every call's arguments against it, decodes them into the struct, and
// turns the handler's output (or its error, or its panic) into a CallToolResult.
//
// Client calls take Go values: [ClientSession.CallTool] encodes a struct or map
// as the tool's arguments (raw JSON is sent as it is), [CallToolAs] also
// decodes the tool's output into a Go value and reports a failed tool as a
// [*ToolError], and [ClientSession.ReadResource] and [ClientSession.GetPrompt]
// take a URI and a name. Their Params forms ([ClientSession.CallToolParams],
// ...) send params the caller builds.
//
// Middleware wraps every method a server or client sends or receives.
package mcp
