package registry

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/schema"
)

// SchemaURL is the "$schema" of the server.json documents this package reads
// and writes: the 2025-12-11 schema, embedded in the package.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

//go:embed server.schema.json
var schemaJSON []byte

// Schema returns the official server.json schema this package validates
// against (SchemaURL), byte for byte as published. The caller must not modify
// the slice.
func Schema() []byte { return schemaJSON }

// MaxSize bounds the server.json documents Parse and Validate read.
const MaxSize = 4 << 20

// Server is a server.json document: one version of an MCP server.
type Server struct {
	Schema      string      `json:"$schema,omitempty"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Icons       []Icon      `json:"icons,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Remote    `json:"remotes,omitempty"`
	// Meta is "_meta": publisher-provided metadata, kept as written.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Repository is where the server's source code is.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	ID        string `json:"id,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Icon is an image a client may show for the server.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Input describes a value given to the server: fixed (Value) or chosen by the
// user (Default, Choices, Format), possibly secret.
type Input struct {
	Description string `json:"description,omitempty"`
	// Format is "string" (when empty), "number", "boolean" or "filepath".
	Format      string   `json:"format,omitempty"`
	Value       string   `json:"value,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	IsRequired  bool     `json:"isRequired,omitempty"`
	IsSecret    bool     `json:"isSecret,omitempty"`
	// Variables are the {name}s that Value refers to.
	Variables map[string]Input `json:"variables,omitempty"`
}

// KeyValue is an environment variable or an HTTP header.
type KeyValue struct {
	Name string `json:"name"`
	Input
}

// Argument is a command-line argument: "positional" (its value alone) or
// "named" (Name, then the value when there is one).
type Argument struct {
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
	Input
}

// Transport is how a package or a remote is spoken to: "stdio",
// "streamable-http" or "sse", the last two at URL (a template of {variables})
// with Headers.
type Transport struct {
	Type    string     `json:"type"`
	URL     string     `json:"url,omitempty"`
	Headers []KeyValue `json:"headers,omitempty"`
}

// Remote is an endpoint where the server runs; Variables are the {names} of
// its URL.
type Remote struct {
	Transport
	Variables map[string]Input `json:"variables,omitempty"`
}

// Package is the server published in a package registry.
type Package struct {
	// RegistryType is "npm", "pypi", "oci", "nuget", "mcpb", "cargo" or "go"
	// (the schema leaves it open; Launch knows these).
	RegistryType    string `json:"registryType"`
	RegistryBaseURL string `json:"registryBaseUrl,omitempty"`
	// Identifier is the package's name, an image reference (OCI), a download
	// URL (MCPB) or a module path (Go).
	Identifier string `json:"identifier"`
	Version    string `json:"version,omitempty"`
	FileSHA256 string `json:"fileSha256,omitempty"`
	// RuntimeHint names the runner (npx, uvx, docker, dnx, ...).
	RuntimeHint          string     `json:"runtimeHint,omitempty"`
	Transport            Transport  `json:"transport"`
	RuntimeArguments     []Argument `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValue `json:"environmentVariables,omitempty"`
}

// Entry is a server as Parse read it: the document, and the registry's
// metadata when it came from the registry's API.
type Entry struct {
	Server Server
	// RegistryMeta is the "_meta" beside "server" in a registry API answer
	// (its status, publication time, ...); nil for a plain server.json.
	RegistryMeta json.RawMessage
}

// Parse reads a server.json, or one entry of a registry API answer
// ({"server": {...}, "_meta": {...}}), checking it against the official
// schema first. A *schema.ValidationError lists every violation.
func Parse(data []byte) (*Entry, error) {
	doc, meta, err := unwrap(data)
	if err != nil {
		return nil, err
	}
	if err := validate(doc); err != nil {
		return nil, err
	}
	e := &Entry{RegistryMeta: meta}
	if err := json.Unmarshal(doc, &e.Server); err != nil {
		return nil, fmt.Errorf("server.json: %w", err)
	}
	// encoding/json matches member names without regard to case, the schema
	// does not: "NAME" beside "name" would replace the value checked.
	if _, err := e.Server.Marshal(); err != nil {
		return nil, fmt.Errorf("server.json: a member's name differs from the schema's only in case: %w", err)
	}
	return e, nil
}

// Validate checks a server.json (not a registry API entry) against the
// official schema. A *schema.ValidationError lists every violation.
func Validate(data []byte) error {
	if len(data) > MaxSize {
		return fmt.Errorf("server.json: %d bytes, more than the %d allowed", len(data), MaxSize)
	}
	return validate(data)
}

// unwrap returns the server document of data: data itself, or the "server"
// member of a registry API entry with its "_meta".
func unwrap(data []byte) (doc, meta json.RawMessage, err error) {
	if len(data) > MaxSize {
		return nil, nil, fmt.Errorf("server.json: %d bytes, more than the %d allowed", len(data), MaxSize)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("server.json: not a JSON object: %w", err)
	}
	if _, ok := top["servers"]; ok && top["name"] == nil {
		return nil, nil, errors.New(`server.json: this is a registry list answer ({"servers": [...]}); save one of its entries`)
	}
	raw, ok := top["server"]
	if !ok || top["name"] != nil {
		return data, nil, nil
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, nil, errors.New(`server.json: registry entry: "server" is not an object`)
	}
	return raw, top["_meta"], nil
}

// validator is the compiled schema; the schema package caches it.
func validator() (*schema.Validator, error) {
	return schema.Compile(schemaJSON, &schema.CompileOptions{Name: "server.json"})
}

func validate(doc []byte) error {
	v, err := validator()
	if err != nil {
		return fmt.Errorf("server.json schema: %w", err)
	}
	return v.Validate(doc)
}
