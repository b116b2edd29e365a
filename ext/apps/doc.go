// Package apps serves MCP Apps (the io.modelcontextprotocol/ui extension,
// specification 2026-01-26): interactive HTML views that a host renders in a
// sandboxed iframe next to a tool's result.
//
// A server registers a view as a ui:// resource whose content is an HTML5
// document of type text/html;profile=mcp-app ([AddResource]), and links tools
// to it with _meta.ui.resourceUri ([AddTool], [AddRawTool]). A tool's result
// carries its data for the view in structuredContent and a text fallback in
// content, for the model and for hosts that render no views. A tool whose
// [ToolMeta].Visibility lacks "model" is for the view alone: the host hides it
// from the model and the view calls it (through the host) to refresh itself.
//
// The extension is negotiated: a client that did not declare
// io.modelcontextprotocol/ui with the mime type [MIMEType] (in initialize in
// the legacy era, in each request's _meta in the stateless era) gets plain
// tools. [Middleware] removes _meta.ui (and the deprecated flat
// _meta["ui/resourceUri"]) from the tools it lists, leaves out the tools meant
// for views only and the ui:// resources; calling a view-only tool anyway
// fails with an isError result. Install it in [mcp.ServerOptions].Middleware.
//
// The view itself is the server author's HTML and JavaScript; it talks to the
// host over postMessage JSON-RPC (ui/initialize, ui/notifications/tool-result,
// proxied tools/call), typically through the App class of the npm package
// @modelcontextprotocol/ext-apps. examples/apps is a complete server with a view.
//
// For hosts (host.go): [ToolView] reads the view a tool links to,
// [IsView] recognises a view's contents, and [ContentSecurityPolicy]
// builds the policy a view is served under from the domains it declares
// (`mcpkit host --web` and the tap's preview both use it).
package apps
