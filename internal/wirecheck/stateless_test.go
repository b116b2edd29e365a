package wirecheck

import "testing"

func TestStatelessVersionFromMeta(t *testing.T) {
	w := wire{statelessVersion}
	c := newTestChecker(t, Server)
	if got := c.Version(); got != "" {
		t.Fatalf("Version() = %q before any message", got)
	}
	converse(t, c, []line{{Client, w.req(1, "tools/list", nil), valid}})
	if got := c.Version(); got != statelessVersion {
		t.Fatalf("Version() = %q, want %s learned from _meta", got, statelessVersion)
	}
	converse(t, c, []line{
		{Server, w.res(1, w.cacheable(obj{"tools": []any{}})), valid},
		// Every request carries its version and capabilities in _meta.
		{Client, mustJSON(obj{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": obj{"name": "x"}}), bad("CallToolRequest")},
		// Every result says what it is.
		{Server, mustJSON(obj{"jsonrpc": "2.0", "id": 2, "result": obj{"content": []any{}}}), bad("CallToolResult")},
		// Legacy methods are gone: ping is not in the schema.
		{Client, w.req(3, "ping", nil), valid},
	})
	if got := c.UnknownMethods(); len(got) != 1 || got[0] != "ping" {
		t.Errorf("UnknownMethods() = %v, want [ping]", got)
	}
}

func TestInputRequiredResult(t *testing.T) {
	w := wire{statelessVersion}
	elicit := obj{"method": "elicitation/create", "params": obj{"message": "Name?",
		"requestedSchema": obj{"type": "object", "properties": obj{"name": obj{"type": "string"}}}}}
	converse(t, newTestChecker(t, Server), []line{
		{Client, w.req(1, "tools/call", obj{"name": "book"}), valid},
		{Server, w.res(1, obj{"resultType": "input_required", "inputRequests": obj{"who": elicit}, "requestState": "opaque"}), valid},
		{Client, w.req(2, "tools/call", obj{"name": "book", "requestState": "opaque",
			"inputResponses": obj{"who": obj{"action": "accept", "content": obj{"name": "Ada"}}}}), valid},
		{Server, w.res(2, obj{"content": []any{obj{"type": "text", "text": "booked"}}}), valid},
		// Only sampling, roots and elicitation may be asked for.
		{Client, w.req(3, "tools/call", obj{"name": "book"}), valid},
		{Server, w.res(3, obj{"resultType": "input_required", "inputRequests": obj{"x": obj{"method": "tools/list"}}}), bad("InputRequiredResult")},
		// tools/list cannot ask for input.
		{Client, w.req(4, "tools/list", nil), valid},
		{Server, w.res(4, obj{"resultType": "input_required", "requestState": "s"}), broken(ErrWrongResultType)},
		// An answer that is not one of the allowed results.
		{Client, w.req(5, "prompts/get", obj{"name": "p", "inputResponses": obj{"who": obj{"action": "maybe"}}}), bad("GetPromptRequest")},
	})
}

func TestStatelessErrors(t *testing.T) {
	w := wire{statelessVersion}
	missing := func(id int, data any) string {
		e := obj{"code": -32021, "message": "elicitation required"}
		if data != nil {
			e["data"] = data
		}
		return mustJSON(obj{"jsonrpc": "2.0", "id": id, "error": e})
	}
	converse(t, newTestChecker(t, Server), []line{
		{Client, w.req(1, "tools/call", obj{"name": "x"}), valid},
		{Server, missing(1, nil), bad("MissingRequiredClientCapabilityError")},
		{Client, w.req(2, "tools/call", obj{"name": "x"}), valid},
		{Server, missing(2, obj{"requiredCapabilities": obj{"elicitation": obj{}}}), valid},
		{Client, w.req(3, "tools/call", obj{"name": "x"}), valid},
		{Server, mustJSON(obj{"jsonrpc": "2.0", "id": 3, "error": obj{"code": -32022, "message": "unsupported",
			"data": obj{"requested": "2099-01-01", "supported": []any{statelessVersion}}}}), valid},
		{Client, w.req(4, "tools/call", obj{"name": "x"}), valid},
		{Server, errResp(4, -32022, "unsupported"), bad("UnsupportedProtocolVersionError")},
		{Client, w.req(5, "tools/call", obj{"name": "x"}), valid},
		{Server, errResp(5, -32602, "unknown tool"), valid},
	})
}

// TestDualEra follows a server that serves both eras on one connection: each response
// is checked against the version of the request it answers.
func TestDualEra(t *testing.T) {
	legacy, stateless := wire{"2025-06-18"}, wire{statelessVersion}
	converse(t, newTestChecker(t, Server), append(legacy.handshake(),
		line{Client, legacy.req(1, "tools/list", nil), valid},
		line{Client, stateless.req(2, "tools/list", nil), valid},
		line{Server, legacy.res(1, obj{"tools": []any{}}), valid},
		line{Server, legacy.res(2, obj{"tools": []any{}}), bad("ListToolsResult")},
	))
}

func TestTasks(t *testing.T) {
	w := wire{"2025-11-25"}
	task := obj{"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
		"lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 60000}
	augmented := obj{"name": "slow", "task": obj{"ttl": 60000}}
	converse(t, newTestChecker(t, Server), append(w.handshake(),
		// A task-augmented call is answered with the task, not the tool's result.
		line{Client, w.req(1, "tools/call", augmented), valid},
		line{Server, w.res(1, obj{"content": []any{}}), bad("CreateTaskResult")},
		line{Client, w.req(2, "tools/call", augmented), valid},
		line{Server, w.res(2, obj{"task": task}), valid},
		line{Client, w.req(3, "tasks/get", obj{"taskId": "t1"}), valid},
		line{Server, w.res(3, task), valid},
		// tasks/result carries the result of the task's request.
		line{Client, w.req(4, "tasks/result", obj{"taskId": "t1"}), valid},
		line{Server, w.res(4, obj{"content": "not a list"}), bad("CallToolResult")},
		line{Client, w.req(5, "tasks/result", obj{"taskId": "t1"}), valid},
		line{Server, w.res(5, obj{"content": []any{obj{"type": "text", "text": "done"}}}), valid},
		// Tasks run the other way too: the client answers a task-augmented sampling request.
		line{Server, w.req(6, "sampling/createMessage", obj{"messages": []any{}, "maxTokens": 10, "task": obj{}}), valid},
		line{Client, w.res(6, obj{"task": obj{"taskId": "t2"}}), bad("CreateTaskResult")},
	))
}
