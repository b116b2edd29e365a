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
// Middleware wraps every method a server or client sends or receives.
package mcp
