// Package mcpkit serves an [mcp.Server] and connects an [mcp.Client] in one
// call each, over every transport mcpkit has:
//
//   - [ServeStdio] serves on standard input and output, as a server that a
//     client starts as a subprocess;
//   - [ListenAndServe] serves over HTTP until its context ends, then shuts down
//     gracefully: Streamable HTTP at /mcp and the older HTTP+SSE transport at
//     /sse and /messages, with the limits that keep a flood of connections,
//     sessions or streams from exhausting the process (see [HTTPOptions]);
//   - [Serve] does the same on a listener of your own ([Listen] makes one);
//   - [NewHTTPHandler] is the same as an http.Handler to mount in a server of
//     your own ([NewHTTPServer] has the recommended settings, and
//     [LimitListener] caps the connections), with a Shutdown that stops
//     everything in order;
//   - [Dial] reaches a server given as a [Target] (a command to start, or a
//     URL spoken to by Streamable HTTP or, for an old server, HTTP+SSE);
//     [ConnectCommand] and [ConnectURL] dial and connect a client in one call.
//
// A complete server:
//
//	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
//	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Says hello"},
//		func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
//			return "hello " + in.Name, nil
//		})
//	err := mcpkit.ServeStdio(ctx, srv)
//
// The packages below do the work and are there for what these calls do not
// cover: [mcp] (servers, clients, features), transport/streamable and
// transport/legacysse (the HTTP handlers and clients, with every option),
// transport/stdio, and protocol (every wire type).
package mcpkit
