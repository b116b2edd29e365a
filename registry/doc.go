// Package registry reads and writes server.json, the document the MCP Registry
// (https://registry.modelcontextprotocol.io) keeps for each server: its name and
// version, the packages it is published as (npm, PyPI, OCI images, NuGet, MCPB
// bundles, crates and Go modules) and the remote endpoints where it runs.
//
// Parse reads a server.json, or one entry of the registry's API saved to disk
// (the {"server": {...}, "_meta": {...}} wrapper of its list and get answers),
// and checks it against the official schema, embedded in this package
// (SchemaURL; Schema returns its bytes). Validate checks without decoding.
//
// A Package or a Remote becomes something a host can run with Package.Launch
// and Remote.Launch: the command line its registry type implies (npx for npm,
// uvx for PyPI, docker run for OCI, dnx for NuGet, go run for Go modules, the
// installed binary for a crate), or a URL and headers. An MCP Bundle (mcpb) is
// fetched, checked against its fileSha256 and unpacked first (FetchBundle);
// Bundle.Launch then runs it as its manifest says. The values they need —
// {variables} in arguments, URLs and headers, environment variables, headers
// without a fixed value — are listed by Needs, with their descriptions,
// defaults, choices and whether they are secret, so that a program can take
// them from flags or ask for them; Values carries the answers.
//
// GoServer writes the server.json of a Go server published as a module
// (registryType "go", the module path as identifier, its v-prefixed version),
// as `mcpkit registry init` does.
//
// The schema is a copy of
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json
// from modelcontextprotocol/registry (MIT License, Copyright (c) 2025 GitHub);
// see NOTICE in this directory.
package registry
