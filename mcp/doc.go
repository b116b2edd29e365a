// Package mcp implements the Model Context Protocol's behaviour on top of the wire
// types in package [protocol]: a [Server] that offers tools, resources, prompts,
// completions and logging, and a [Client] that connects to servers, lists and calls
// what they offer, and answers their sampling, elicitation and roots requests.
//
// A Server or Client talks over any [transport.Conn] (stdio, in-memory, HTTP): the
// features here know nothing of transports.
//
// # Servers
//
// [NewServer] makes a server. Tool handlers are typed: [AddTool] infers the tool's
// input schema from a Go struct (see package [schema]), validates every call's
// arguments against it, decodes them into the struct, and turns the handler's
// output (or its error, or its panic) into a [protocol.CallToolResult];
// [Server.AddRawTool] takes a [ToolHandler] that decodes the arguments itself.
// [Server.AddResource], [Server.AddResourceTemplate], [Server.AddPrompt] and
// [Server.AddPromptCompletion] register the other features. Every handler gets a
// [Request] ([ToolRequest], [ResourceRequest], [PromptRequest]): who is asking, and
// the means to report progress ([Request.ReportProgress]), log ([Request.Log]) and
// ask the client for input ([Request.Elicit], [Request.CreateMessage],
// [Request.ListRoots], [Request.Input]).
//
// [Server.Run] serves one connection until it ends (a stdio server);
// [Server.Connect] starts a [ServerSession] and returns; [Server.Accept] is the
// [transport.Server] method the HTTP handlers call for each new session.
//
// # Both protocol eras
//
// One Server, and the same handlers, serve both eras: a connection that begins with
// initialize is a legacy session (2024-11-05 to 2025-11-25); a request whose _meta
// names its protocol version is served statelessly (2026-07-28), with no session
// ([Request.IsStateless]). A handler that asks for input in the stateless era gets
// [ErrInputRequired]: the call ends with an input-required result whose
// requestState, sealed with [ServerOptions].Keyring (a [requeststate.Keyring]),
// brings the answers back on the client's retry. subscriptions/listen streams the
// changes a [ChangeFeed] carries; tasks keep their state in a [taskstore.Store]
// (see [TaskOptions]).
//
// # Clients
//
// [NewClient] makes a client and [Client.Connect] opens a [ClientSession] over a
// connection, finding the server's era unless [ClientOptions].ProtocolVersion
// names one. The session lists and calls what the server offers
// ([ClientSession.Tools], [ClientSession.ReadResource], [ClientSession.GetPrompt],
// [ClientSession.Listen]) and answers the server's requests with the handlers of
// [ClientOptions].
//
// Client calls take Go values: [ClientSession.CallTool] encodes a struct or map
// as the tool's arguments (raw JSON is sent as it is), [CallToolAs] also decodes
// the tool's output into a Go value and reports a failed tool as a [*ToolError],
// and [ClientSession.ReadResource] and [ClientSession.GetPrompt] take a URI and a
// name. Their Params forms ([ClientSession.CallToolParams],
// [ClientSession.ReadResourceParams], [ClientSession.GetPromptParams]) send params
// the caller builds.
//
// # Middleware
//
// A [Middleware] wraps every method a server or client sends or receives: it sees
// each [Call] and calls the next [Invoker]. Package otelmcp traces MCP traffic
// this way.
//
// The design of mcpkit — its layers, the path of a request through each
// transport, and the seams other subsystems plug into — is described in
// docs/design.md in the repository.
package mcp
