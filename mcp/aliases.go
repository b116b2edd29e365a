package mcp

import "github.com/mcpkit/mcpkit/protocol"

// The protocol types a typical server or client touches, under this package's
// name, so that a first program needs no other import. They are the types of
// package protocol, which holds every other wire type.
type (
	// Implementation names a server or client and its version.
	Implementation = protocol.Implementation

	// Tool describes a tool: its name, description and input schema.
	Tool = protocol.Tool
	// ToolAnnotations are hints about a tool's behaviour (read-only,
	// destructive, ...).
	ToolAnnotations = protocol.ToolAnnotations
	// CallToolParams are the parameters of a tools/call request.
	CallToolParams = protocol.CallToolParams
	// CallToolResult is the result of a tool call.
	CallToolResult = protocol.CallToolResult

	// Content is one block of content: text, an image, audio, a resource
	// link or an embedded resource.
	Content = protocol.Content

	// Resource describes a resource a server offers.
	Resource = protocol.Resource
	// ResourceTemplate describes a family of resources by a URI template.
	ResourceTemplate = protocol.ResourceTemplate
	// ResourceContents is the text or binary content of a resource.
	ResourceContents = protocol.ResourceContents
	// ReadResourceResult is the result of resources/read.
	ReadResourceResult = protocol.ReadResourceResult

	// Prompt describes a prompt template a server offers.
	Prompt = protocol.Prompt
	// PromptArgument describes one argument of a prompt.
	PromptArgument = protocol.PromptArgument
	// PromptMessage is one message of a prompt's result.
	PromptMessage = protocol.PromptMessage
	// GetPromptResult is the result of prompts/get.
	GetPromptResult = protocol.GetPromptResult

	// Root is a directory or file a client exposes to servers.
	Root = protocol.Root
)
