package wirecheck

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// methodKind says how a method travels on the wire.
type methodKind uint8

const (
	// kindRequest is a JSON-RPC request: it has an id and gets a response.
	kindRequest methodKind = iota + 1
	// kindNotification is a JSON-RPC notification: no id, no response.
	kindNotification
	// kindInputRequest is a request the server embeds in an InputRequiredResult
	// (2026-07-28) instead of sending it as a JSON-RPC request.
	kindInputRequest
)

func (k methodKind) String() string {
	switch k {
	case kindRequest:
		return "request"
	case kindNotification:
		return "notification"
	case kindInputRequest:
		return "input request"
	}
	return "unknown"
}

// methodSpec is one row of a version's table: a method and the definitions that
// describe it.
type methodSpec struct {
	method string
	kind   methodKind
	def    string // the request or notification definition, e.g. CallToolRequest
	// resultDef is the definition of a successful result (requests and input requests).
	resultDef string
	// emptyResult is set when the schema has no <Name>Result for the request, so its
	// result is EmptyResult (ping, logging/setLevel, resources/subscribe, ...).
	emptyResult bool
	// inputRequired is set when the schema's <Name>ResultResponse lets the result be an
	// InputRequiredResult instead (2026-07-28).
	inputRequired bool
	// taskAugmentable is set when the request's params accept "task", in which case
	// the result is a CreateTaskResult (2025-11-25).
	taskAugmentable bool
	// fromClient and fromServer say who may send the method, from the schema's
	// ClientRequest/ServerRequest/ClientNotification/ServerNotification unions.
	fromClient, fromServer bool
}

// errorSpec is a definition tied to one error code.
type errorSpec struct {
	def string
	// wholeMessage is set when def describes the whole response (jsonrpc, id, error);
	// otherwise it describes the error object alone.
	wholeMessage bool
}

// table is everything the checker needs to know about one version, derived from its
// schema: the methods, the envelope definitions and the error codes.
type table struct {
	methods map[string]*methodSpec

	requestEnvelope      string // JSONRPCRequest
	notificationEnvelope string // JSONRPCNotification
	resultEnvelope       string // JSONRPCResultResponse, or JSONRPCResponse before 2025-11-25
	errorEnvelope        string // JSONRPCErrorResponse, or JSONRPCError before 2025-11-25
	messageDef           string // JSONRPCMessage
	batches              bool   // JSONRPCMessage admits arrays (2025-03-26)

	errorCodes map[int64]errorSpec

	inputRequiredDef string // InputRequiredResult, when the version has it
	createTaskDef    string // CreateTaskResult, when the version has it
	// metaVersionKey is the request _meta key that carries the protocol version, when
	// the version has one.
	metaVersionKey string
}

// unionKinds are the schema's unions that say which side sends which method.
var unionKinds = []struct {
	name       string
	kind       methodKind
	fromClient bool
}{
	{"ClientRequest", kindRequest, true},
	{"ServerRequest", kindRequest, false},
	{"ClientNotification", kindNotification, true},
	{"ServerNotification", kindNotification, false},
	{"InputRequest", kindInputRequest, false},
}

// buildTable derives a version's table from its definitions. It fails when a method
// is in no union, when two definitions claim one method, or when a request's result
// cannot be found, so that a new schema cannot silently go half-checked.
func buildTable(defs map[string]any) (*table, error) {
	t := &table{methods: map[string]*methodSpec{}, errorCodes: map[int64]errorSpec{}}
	isUnion := map[string]bool{}
	for _, u := range unionKinds {
		isUnion[u.name] = true
	}

	// Every definition whose "method" is a constant names a method.
	defOf := map[string]string{}
	for _, name := range sortedKeys(defs) {
		if isUnion[name] {
			continue
		}
		if m := methodConst(defs[name]); m != "" {
			if prev, dup := defOf[m]; dup {
				return nil, fmt.Errorf("method %q is defined by both %s and %s", m, prev, name)
			}
			defOf[m] = name
		}
	}

	// The unions say whether it is a request or a notification, and who sends it.
	for _, u := range unionKinds {
		d, ok := defs[u.name]
		if !ok {
			continue
		}
		for _, m := range unionMethods(defs, d) {
			def, ok := defOf[m]
			if !ok {
				return nil, fmt.Errorf("%s lists %q, which no definition names", u.name, m)
			}
			ms := t.methods[m]
			if ms == nil {
				ms = &methodSpec{method: m, kind: u.kind, def: def}
				t.methods[m] = ms
			} else if ms.kind != u.kind {
				return nil, fmt.Errorf("method %q is both a %s and a %s", m, ms.kind, u.kind)
			}
			if u.fromClient {
				ms.fromClient = true
			} else {
				ms.fromServer = true
			}
		}
	}
	for m, def := range defOf {
		if t.methods[m] == nil {
			return nil, fmt.Errorf("method %q (%s) is in none of the request/notification unions", m, def)
		}
	}

	if _, ok := defs["InputRequiredResult"]; ok {
		t.inputRequiredDef = "InputRequiredResult"
	}
	if _, ok := defs["CreateTaskResult"]; ok {
		t.createTaskDef = "CreateTaskResult"
	}
	for _, ms := range t.methods {
		if ms.kind == kindNotification {
			continue
		}
		if err := t.deriveResult(defs, ms); err != nil {
			return nil, err
		}
		ms.taskAugmentable = t.createTaskDef != "" && acceptsTask(defs, defs[ms.def], 0)
	}

	if err := t.deriveEnvelopes(defs); err != nil {
		return nil, err
	}
	if err := t.deriveErrorCodes(defs); err != nil {
		return nil, err
	}
	if meta, ok := defs["RequestMetaObject"].(map[string]any); ok {
		props, _ := meta["properties"].(map[string]any)
		for _, k := range sortedKeys(props) {
			if strings.HasSuffix(k, "/protocolVersion") {
				t.metaVersionKey = k
			}
		}
	}
	return t, nil
}

// deriveResult finds the result definition of a request. The schema pairs them by
// name: FooRequest's result is FooResult, or, where the schema spells the response out
// (2026-07-28), the result of FooResultResponse, which may also admit an
// InputRequiredResult. A request with no result of its own answers EmptyResult.
func (t *table) deriveResult(defs map[string]any, ms *methodSpec) error {
	base := strings.TrimSuffix(ms.def, "Request")
	if resp, ok := defs[base+"ResultResponse"].(map[string]any); ok {
		props, _ := resp["properties"].(map[string]any)
		var others []string
		for _, alt := range alternatives(props["result"]) {
			if alt == t.inputRequiredDef && alt != "" {
				ms.inputRequired = true
			} else {
				others = append(others, alt)
			}
		}
		if len(others) != 1 {
			return fmt.Errorf("%sResultResponse: want one result definition besides InputRequiredResult, got %v", base, others)
		}
		ms.resultDef = others[0]
		return nil
	}
	if _, ok := defs[base+"Result"]; ok {
		ms.resultDef = base + "Result"
		return nil
	}
	if _, ok := defs["EmptyResult"]; ok {
		ms.resultDef, ms.emptyResult = "EmptyResult", true
		return nil
	}
	return fmt.Errorf("no result definition for %s (%s)", ms.method, ms.def)
}

func (t *table) deriveEnvelopes(defs map[string]any) error {
	pick := func(dst *string, names ...string) error {
		for _, n := range names {
			if _, ok := defs[n]; ok {
				*dst = n
				return nil
			}
		}
		return fmt.Errorf("no envelope definition among %v", names)
	}
	for _, p := range []struct {
		dst   *string
		names []string
	}{
		{&t.requestEnvelope, []string{"JSONRPCRequest"}},
		{&t.notificationEnvelope, []string{"JSONRPCNotification"}},
		{&t.resultEnvelope, []string{"JSONRPCResultResponse", "JSONRPCResponse"}},
		{&t.errorEnvelope, []string{"JSONRPCErrorResponse", "JSONRPCError"}},
		{&t.messageDef, []string{"JSONRPCMessage"}},
	} {
		if err := pick(p.dst, p.names...); err != nil {
			return err
		}
	}
	msg, _ := defs[t.messageDef].(map[string]any)
	alts, _ := msg["anyOf"].([]any)
	for _, a := range alts {
		am, _ := a.(map[string]any)
		if ref, ok := am["$ref"].(string); ok {
			am, _ = defs[refName(ref)].(map[string]any)
		}
		if am["type"] == "array" {
			t.batches = true
		}
	}
	return nil
}

// deriveErrorCodes indexes the definitions that pin an error code: error objects
// ({"code": {"const": -32602}, ...}) and whole error responses whose "error" is an
// allOf that pins the code.
func (t *table) deriveErrorCodes(defs map[string]any) error {
	for _, name := range sortedKeys(defs) {
		d, _ := defs[name].(map[string]any)
		props, _ := d["properties"].(map[string]any)
		var spec errorSpec
		code, ok := codeConst(props)
		if ok && props["message"] != nil {
			spec = errorSpec{def: name}
		} else if errObj, isMap := props["error"].(map[string]any); isMap && props["jsonrpc"] != nil {
			parts, _ := errObj["allOf"].([]any)
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				pp, _ := pm["properties"].(map[string]any)
				if c, found := codeConst(pp); found {
					code, ok, spec = c, true, errorSpec{def: name, wholeMessage: true}
				}
			}
		}
		if !ok {
			continue
		}
		if prev, dup := t.errorCodes[code]; dup {
			return fmt.Errorf("error code %d is pinned by both %s and %s", code, prev.def, name)
		}
		t.errorCodes[code] = spec
	}
	return nil
}

// methodConst returns the method a definition pins with properties.method.const (or
// a one-value enum), or "".
func methodConst(d any) string {
	dm, _ := d.(map[string]any)
	props, _ := dm["properties"].(map[string]any)
	m, _ := props["method"].(map[string]any)
	if s, ok := m["const"].(string); ok {
		return s
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 {
		s, _ := e[0].(string)
		return s
	}
	return ""
}

// unionMethods lists the methods of a union: its anyOf/oneOf members or single $ref,
// or the union itself when the schema inlined its only member.
func unionMethods(defs map[string]any, d any) []string {
	if m := methodConst(d); m != "" {
		return []string{m}
	}
	var out []string
	for _, name := range alternatives(d) {
		if m := methodConst(defs[name]); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// alternatives returns the definition names a schema refers to directly: its $ref,
// or the $refs of its anyOf/oneOf members.
func alternatives(s any) []string {
	sm, _ := s.(map[string]any)
	if ref, ok := sm["$ref"].(string); ok {
		return []string{refName(ref)}
	}
	var out []string
	for _, key := range []string{"anyOf", "oneOf"} {
		list, _ := sm[key].([]any)
		for _, member := range list {
			mm, _ := member.(map[string]any)
			if ref, ok := mm["$ref"].(string); ok {
				out = append(out, refName(ref))
			}
		}
	}
	return out
}

// acceptsTask reports whether a request definition's params accept a "task"
// (TaskMetadata), following $ref, anyOf, oneOf and allOf a few levels deep.
func acceptsTask(defs map[string]any, s any, depth int) bool {
	if depth > 6 {
		return false
	}
	sm, _ := s.(map[string]any)
	if ref, ok := sm["$ref"].(string); ok {
		return acceptsTask(defs, defs[refName(ref)], depth+1)
	}
	props, _ := sm["properties"].(map[string]any)
	if task, ok := props["task"].(map[string]any); ok && depth > 0 {
		if ref, _ := task["$ref"].(string); refName(ref) == "TaskMetadata" {
			return true
		}
	}
	if depth == 0 {
		return acceptsTask(defs, props["params"], 1)
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := sm[key].([]any)
		for _, member := range list {
			if acceptsTask(defs, member, depth+1) {
				return true
			}
		}
	}
	return false
}

// codeConst returns properties.code.const as an integer.
func codeConst(props map[string]any) (int64, bool) {
	c, _ := props["code"].(map[string]any)
	n, ok := c["const"].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil
}

// refName returns the definition name at the end of a local $ref.
func refName(ref string) string {
	return ref[strings.LastIndexByte(ref, '/')+1:]
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
