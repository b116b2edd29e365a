package gateway

import "github.com/mcpkit/mcpkit/llm"

// Separator joins a server's name and a tool's or prompt's name.
const Separator = llm.ToolNameSeparator

// MaxNameLen is the longest name OpenAI and Anthropic accept for a tool.
const MaxNameLen = llm.MaxToolNameLen

// Ref is one tool (or prompt) of one server.
type Ref = llm.ToolRef

// AssignNames gives each ref a name for clients and models: "<server>__<name>"
// when that is already made of [a-zA-Z0-9_-], is at most 64 characters and no
// other ref wants it; otherwise the same sanitized, cut to fit, and ended by a
// short hash, longer while names still collide. The names are those
// llm.ToolNames gives, so `mcpkit host` offers a model the same names as the
// gateway does for the same servers. Every name matches ^[a-zA-Z0-9_-]{1,64}$,
// the names are distinct, and the result depends only on the set of refs.
func AssignNames(refs []Ref) map[Ref]string { return llm.ToolNames(refs) }
