package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/schema"
)

// This file checks a tool's structuredContent against the outputSchema the
// server listed for it, as the specification asks of clients ("SHOULD validate
// structured results against this schema"). The schemas are compiled when the
// tools are listed ([ClientSession.ListTools], [ClientSession.Tools]), once per
// listing and tool, and dropped when the server says the list changed. A tool
// the client never listed (or not since the last change) is not checked: the
// client has no schema for it, and fetching the list behind the caller's back on
// the first call would add a round trip (and pages) the caller did not ask for.
// That is also what the TypeScript SDK does.

// OutputError is the error a tool call returns when the result of a tool with
// an outputSchema breaks it: the structuredContent does not match the schema,
// or a successful result has none. The server's result is kept in Result. A
// result with isError set is not checked. [ClientOptions].SkipOutputValidation
// and [SkipOutputValidation] turn the check off.
type OutputError struct {
	// Tool is the name of the tool called.
	Tool string
	// Result is the result as the server sent it.
	Result *protocol.CallToolResult
	// Err says what is wrong: a *[schema.ValidationError] listing each
	// violation, or [ErrNoStructuredContent].
	Err error
}

// Error names the tool and each violation.
func (e *OutputError) Error() string {
	return fmt.Sprintf("mcp: tool %q: the result does not match the tool's outputSchema: %v", e.Tool, e.Err)
}

// Unwrap returns Err.
func (e *OutputError) Unwrap() error { return e.Err }

// ErrNoStructuredContent is the [OutputError].Err of a successful result that
// has no structuredContent although its tool declares an outputSchema.
var ErrNoStructuredContent = errors.New("the result has no structuredContent")

// SkipOutputValidation returns the result of this tools/call without checking
// it against the tool's outputSchema (see [OutputError]).
func SkipOutputValidation() RequestOption {
	return func(c *requestConfig) { c.skipOutput = true }
}

// outputChecks holds a session's compiled output schemas, by tool name.
type outputChecks struct {
	mu sync.RWMutex
	m  map[string]outputCheck
}

// outputCheck is one tool's output schema and its validator.
type outputCheck struct {
	schema json.RawMessage
	v      *schema.Validator
}

// maxToolOutputs bounds how many tools' schemas a session keeps; past it the
// tools listed later are not checked (a server listing more tools than this is
// not one a client validates by default).
const maxToolOutputs = 4096

// learnTools records the output schemas of listed tools: a tool with one gets
// (or keeps, if unchanged) its compiled validator; one without loses any it
// had. A schema that does not compile is reported in the log and not enforced.
func (cs *ClientSession) learnTools(tools []protocol.Tool) {
	if cs.client.opts.SkipOutputValidation {
		return
	}
	o := &cs.outputs
	for i := range tools {
		t := &tools[i]
		o.mu.RLock()
		old, had := o.m[t.Name]
		o.mu.RUnlock()
		if len(t.OutputSchema) == 0 {
			if had {
				o.mu.Lock()
				delete(o.m, t.Name)
				o.mu.Unlock()
			}
			continue
		}
		if had && bytes.Equal(old.schema, t.OutputSchema) {
			continue
		}
		v, err := schema.Compile(t.OutputSchema, &schema.CompileOptions{Name: "structuredContent"})
		o.mu.Lock()
		if err != nil {
			delete(o.m, t.Name)
		} else if o.m == nil || len(o.m) < maxToolOutputs || had {
			if o.m == nil {
				o.m = make(map[string]outputCheck)
			}
			o.m[t.Name] = outputCheck{schema: bytes.Clone(t.OutputSchema), v: v}
		}
		o.mu.Unlock()
		if err != nil {
			cs.client.log.Warn("mcp: a tool's outputSchema does not compile; its results are not checked",
				"tool", t.Name, "error", err)
		}
	}
}

// forgetTools drops every output schema: the server's list changed.
func (cs *ClientSession) forgetTools() {
	cs.outputs.mu.Lock()
	clear(cs.outputs.m)
	cs.outputs.mu.Unlock()
}

// outputValidator returns the validator of the tool name, or nil.
func (cs *ClientSession) outputValidator(name string) *schema.Validator {
	cs.outputs.mu.RLock()
	defer cs.outputs.mu.RUnlock()
	return cs.outputs.m[name].v
}

// checkOutput checks the result of the tool name against its output schema,
// unless opts skip the check.
func (cs *ClientSession) checkOutput(name string, res *protocol.CallToolResult, opts []RequestOption) error {
	if res.IsError {
		return nil
	}
	v := cs.outputValidator(name)
	if v == nil {
		return nil
	}
	if applyOptions(opts).skipOutput {
		return nil
	}
	var raw []byte
	switch sc := res.StructuredContent.(type) {
	case nil:
		return &OutputError{Tool: name, Result: res, Err: ErrNoStructuredContent}
	case json.RawMessage:
		raw = sc
	default:
		var err error
		if raw, err = json.Marshal(sc); err != nil {
			return &OutputError{Tool: name, Result: res, Err: fmt.Errorf("re-encoding the structuredContent: %w", err)}
		}
	}
	if err := v.Validate(raw); err != nil {
		return &OutputError{Tool: name, Result: res, Err: err}
	}
	return nil
}
