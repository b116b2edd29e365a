// Package gateway serves the MCP servers of an upstream.Config as one MCP
// server: `mcpkit gateway` is a thin command around it.
//
//	cfg, err := upstream.Load("mcp.json")
//	gw := gateway.New(cfg, nil)
//	gw.Start(ctx)
//	defer gw.Close()
//	_ = gw.WaitStarted(ctx)                        // the servers' first connection
//	err = gw.Server().Run(ctx, stdio.NewProcessServerConn(nil))
//
// (or serve gw.Server() with streamable.NewHandler and legacysse.NewHandler).
// See package upstream for the layout of the packages around it.
//
// # Names
//
// Tools and prompts are offered as "<server>__<name>", sanitized to
// ^[a-zA-Z0-9_-]{1,64}$ (the names OpenAI and Anthropic accept); a name that
// is too long or would clash with another gets a short deterministic hash
// suffix instead of failing: [llm.ToolNames], the names `mcpkit host` gives a
// model too. Resource
// URIs keep their server's form unless two servers share one (see URIScheme;
// an MCP App's ui:// view stays a ui:// URI, and the _meta.ui.resourceUri of
// every tool that links to it follows). With Options.Naming NamingBare, a
// tool or prompt that no other server has keeps its own name. In either mode
// a tools/call of a server's own tool name that only that server has (an
// app's view calling its tool by the name it knows) reaches it.
// Entries lists the mapping; `mcpkit gateway --list` prints it.
//
// # Extensions
//
// The gateway declares the union of its servers' extensions (MCP Apps,
// Skills, any other; tasks are its own), through mcp.Server.AddExtension, and
// forwards the custom methods of the ones it knows (ExtensionMethods:
// skills/list, skills/get, resources/directory/read; more through
// Options.ExtensionMethods) to the servers that declare them — a list method
// of several servers gets their first pages concatenated. To its servers it
// declares the Apps extension, so that they do not hide views and app tools
// from it (extensions.go).
//
// # What passes through
//
//   - tools/call, prompts/get, resources/read and completion/complete go to
//     the server that has the feature, under its own name. Arguments are
//     checked against the tool's schema on the way. A call to a server that is
//     down fails at once, as an isError result that says why (its last error
//     and stderr lines) while the supervisor restarts it. A tool's result
//     reaches the client as the server wrote it (mcp.ToolRequest.RawResult),
//     unknown members included, with the gateway's own resultType and
//     serverInfo; it is decoded only when it may link to a resource whose URI
//     the gateway rewrites.
//   - Progress: a client's progress token is replaced by the gateway's own on
//     the way to the server, and the server's progress comes back under the
//     client's token. Cancellation: a client that cancels (or disconnects)
//     cancels the forwarded request. A per-server "timeout" bounds it: a
//     request the server has not answered by then is cancelled on the server,
//     and the client gets an error that names the server and its timeout.
//   - The servers' requests for sampling, elicitation and roots go to the
//     gateway's client whose request caused them, and the answer goes back. In
//     the stateless era the server's input request comes in the result of that
//     very request, so the routing is exact; a legacy server's request does not
//     say which request caused it, so the latest call in flight to that server
//     (from a client that has the capability) is asked. Roots asked for outside
//     any request are the union of the connected clients' roots.
//   - Logging: a client's logging/setLevel is passed to every server; a
//     server's log messages go to the client whose request is in flight, else
//     to every client at its level, their logger prefixed with the server's
//     name.
//   - list_changed: when a server connects, restarts, or says a list changed,
//     the gateway fetches its lists again and registers the difference; its
//     clients hear one list_changed per kind of list that changed. A server
//     that is down keeps its features listed until it is back.
//   - Tasks: a task-augmented tools/call (both eras) becomes a task of the
//     gateway, forwarded as a task to a 2025-11-25 server that takes them
//     (see tasks.go for the ids, owners and the servers that do not).
//   - Subscriptions: a legacy client's resources/subscribe and the resources
//     of a stateless client's subscriptions/listen stream are subscribed to on
//     their servers — resources/subscribe on a legacy server, a listen stream
//     of the gateway's on a stateless one —, once for all the clients that
//     want them, again after a reconnection, and unsubscribed when the last
//     session or stream that wanted them ends; resources/updated comes back
//     under the gateway's URI (subs.go).
//
// Many clients share one session (one process, for stdio) per server: the
// mcp client multiplexes their requests with its own ids.
package gateway
