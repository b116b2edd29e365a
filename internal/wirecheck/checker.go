package wirecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Side is one end of an MCP connection.
type Side uint8

const (
	// Client is the side that connects and sends initialize (or server/discover).
	Client Side = iota + 1
	// Server is the side that answers.
	Server
)

// String returns "client" or "server".
func (s Side) String() string {
	switch s {
	case Client:
		return "client"
	case Server:
		return "server"
	}
	return fmt.Sprintf("Side(%d)", uint8(s))
}

func (s Side) other() Side {
	if s == Client {
		return Server
	}
	return Client
}

// Direction says whether the checked side wrote a message or read it.
type Direction uint8

const (
	// Outgoing messages are written by the side being checked.
	Outgoing Direction = iota + 1
	// Incoming messages are written by its peer.
	Incoming
)

// String returns "outgoing" or "incoming".
func (d Direction) String() string {
	if d == Outgoing {
		return "outgoing"
	}
	return "incoming"
}

// Option configures a Checker (and Wrap).
type Option func(*config)

type config struct {
	specDir        string
	initialVersion string
	checkIncoming  bool
	rejectUnknown  bool
}

// SpecDir reads the schemas from dir (<dir>/<version>/schema.json) instead of the
// copies embedded in package internal/specs (or $MCPKIT_SPEC_DIR).
func SpecDir(dir string) Option { return func(c *config) { c.specDir = dir } }

// InitialVersion sets the protocol version assumed until the connection negotiates
// one, for connections that start without initialize (a transport that carries the
// version out of band). Without it, a message sent before negotiation is checked
// against the newest version that defines its method.
func InitialVersion(version string) Option { return func(c *config) { c.initialVersion = version } }

// RejectUnknownMethods makes a method the schema does not define a violation
// (ErrUnknownMethod) instead of only recording it.
func RejectUnknownMethods() Option { return func(c *config) { c.rejectUnknown = true } }

const (
	methodInitialize        = "initialize"
	methodTaskPayload       = "tasks/result" // answers with the result of the task's request
	resultTypeInputRequired = "input_required"
	noVersion               = "(no version negotiated)"
)

// Checker validates the messages of one connection against the schema of the protocol
// version negotiated on it. It follows the conversation: it learns the version from
// initialize (the result's protocolVersion) or from a request's _meta (2026-07-28), and
// remembers which method each pending request id belongs to, so that a response is
// checked against that method's result definition.
//
// A Checker is safe for concurrent use. Check messages in the order they cross the
// wire: a request before its response.
type Checker struct {
	side          Side
	specs         *specSet
	rejectUnknown bool

	mu      sync.Mutex
	version string
	// pending holds the requests awaiting a response, by the direction the request
	// travelled (index Outgoing-1 or Incoming-1) and id.
	pending [2]map[string]pendingRequest
	tasks   map[string]string // task id -> method of the task-augmented request
	unknown map[string]struct{}
}

type pendingRequest struct {
	method    string
	version   string
	task      bool   // task-augmented: the result is a CreateTaskResult
	payloadOf string // tasks/result: method whose result the payload must match
}

// NewChecker returns a Checker for one connection, seen from side. It fails when the
// schemas cannot be found or read, or an option names an unknown version.
func NewChecker(side Side, opts ...Option) (*Checker, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	return newChecker(side, cfg)
}

func newChecker(side Side, cfg config) (*Checker, error) {
	if side != Client && side != Server {
		return nil, fmt.Errorf("wirecheck: invalid side %v", side)
	}
	src, err := sourceFor(cfg.specDir)
	if err != nil {
		return nil, err
	}
	specs, err := loadSpecSet(src)
	if err != nil {
		return nil, err
	}
	if v := cfg.initialVersion; v != "" && specs.versions[v] == nil {
		return nil, fmt.Errorf("wirecheck: no schema for initial version %q in %s", v, specs.source)
	}
	return &Checker{
		side:          side,
		specs:         specs,
		rejectUnknown: cfg.rejectUnknown,
		version:       cfg.initialVersion,
		pending:       [2]map[string]pendingRequest{{}, {}},
		tasks:         map[string]string{},
		unknown:       map[string]struct{}{},
	}, nil
}

// Check validates one message (an object, or a batch array) that crossed the
// connection in direction dir, and updates the conversation state. It returns nil, a
// *Violation, or several joined with errors.Join.
func (c *Checker) Check(dir Direction, msg []byte) error {
	return c.process(dir, msg, true)
}

// Observe updates the conversation state from a message without validating it, so
// that responses to it (or the version it negotiates) are understood.
func (c *Checker) Observe(dir Direction, msg []byte) {
	_ = c.process(dir, msg, false)
}

// Version returns the protocol version the connection is using, or "" before it is
// known.
func (c *Checker) Version() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// UnknownMethods returns, sorted, the methods seen so far that the schema of their
// version does not define. Their messages were checked against the envelope only.
func (c *Checker) UnknownMethods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.unknown))
	for m := range c.unknown {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// plan is what one message must be validated against, worked out under the lock and
// run outside it.
type plan struct {
	checks []schemaCheck
	rules  []ruleBreak
}

type schemaCheck struct {
	vs     *versionSpec
	def    string
	inst   any
	method string
}

type ruleBreak struct {
	version, method string
	err             error
}

func (p *plan) add(vs *versionSpec, def string, inst any, method string) {
	p.checks = append(p.checks, schemaCheck{vs: vs, def: def, inst: inst, method: method})
}

func (p *plan) rule(version, method string, err error) {
	p.rules = append(p.rules, ruleBreak{version: version, method: method, err: err})
}

func (c *Checker) process(dir Direction, msg []byte, validate bool) error {
	sender := c.side
	if dir == Incoming {
		sender = c.side.other()
	}
	var p plan
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	c.mu.Lock()
	switch arr, isBatch := doc.([]any); {
	case err != nil:
		p.rule(c.versionFor(""), "", fmt.Errorf("%w: not one JSON value: %v", ErrMalformed, err))
	case isBatch:
		c.planBatch(&p, dir, sender, arr)
	default:
		c.planMessage(&p, dir, sender, doc)
	}
	c.mu.Unlock()
	if !validate {
		return nil
	}
	return p.run(sender, msg)
}

// run validates the plan and returns its violations.
func (p *plan) run(sender Side, msg []byte) error {
	var errs []error
	var shown []byte
	message := func() []byte {
		if shown == nil {
			shown = bytes.Clone(msg)
		}
		return shown
	}
	for _, r := range p.rules {
		errs = append(errs, &Violation{Version: r.version, Sender: sender, Method: r.method, Message: message(), Err: r.err})
	}
	for _, ch := range p.checks {
		if err := ch.vs.validate(ch.def, ch.inst); err != nil {
			errs = append(errs, &Violation{Version: ch.vs.name, Sender: sender, Method: ch.method,
				Definition: ch.def, Message: message(), Err: err})
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// versionFor returns the version a message of method is checked against: the
// connection's, else the newest that defines method, else the newest. Needs c.mu.
func (c *Checker) versionFor(method string) string {
	if c.version != "" {
		return c.version
	}
	if v := c.specs.latestWith(method); v != "" {
		return v
	}
	return c.specs.latest()
}

func (c *Checker) planBatch(p *plan, dir Direction, sender Side, arr []any) {
	switch vs := c.specs.versions[c.version]; {
	case vs == nil:
		p.rule(noVersion, "", fmt.Errorf("%w: a batch before a protocol version was negotiated", ErrBatch))
	case !vs.table.batches:
		p.rule(vs.name, "", fmt.Errorf("%w: %s has no JSON-RPC batches", ErrBatch, vs.name))
	default:
		p.add(vs, vs.table.messageDef, arr, "")
	}
	if len(arr) == 0 {
		p.rule(c.versionFor(""), "", fmt.Errorf("%w: empty batch", ErrBatch))
	}
	for _, el := range arr {
		c.planMessage(p, dir, sender, el)
	}
}

func (c *Checker) planMessage(p *plan, dir Direction, sender Side, doc any) {
	obj, ok := doc.(map[string]any)
	if !ok {
		vs := c.specs.versions[c.versionFor("")]
		p.add(vs, vs.table.messageDef, doc, "")
		return
	}
	methodVal, hasMethod := obj["method"]
	method, _ := methodVal.(string)
	_, hasID := obj["id"]
	result, hasResult := obj["result"]
	errVal, hasError := obj["error"]
	switch {
	case hasMethod && hasID:
		c.planRequest(p, dir, sender, obj, method)
	case hasMethod:
		c.planNotification(p, sender, obj, method)
	case hasResult && hasError:
		p.rule(c.versionFor(""), "", fmt.Errorf("%w: a response with both result and error", ErrMalformed))
	case hasResult:
		c.planResult(p, dir, obj, result)
	case hasError:
		c.planError(p, dir, obj, errVal)
	default:
		vs := c.specs.versions[c.versionFor("")]
		p.add(vs, vs.table.messageDef, obj, "")
	}
}

// requestVersion works out, and learns, the version of a request: the one in its
// _meta, or for initialize the one the client asks for. Needs c.mu.
func (c *Checker) requestVersion(obj map[string]any, method string) string {
	params, _ := obj["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	for _, key := range c.specs.metaVersionKeys {
		if v, _ := meta[key].(string); c.specs.versions[v] != nil {
			c.version = v
			return v
		}
	}
	if method == methodInitialize {
		// Until the result names the negotiated version, the connection uses the one
		// the client asked for (or, if there is no schema for it, the newest that has
		// initialize).
		asked, _ := params["protocolVersion"].(string)
		if vs := c.specs.versions[asked]; vs == nil || vs.table.methods[method] == nil {
			asked = c.specs.latestWith(method)
		}
		if asked != "" {
			c.version = asked
			return asked
		}
	}
	return c.versionFor(method)
}

func (c *Checker) planRequest(p *plan, dir Direction, sender Side, obj map[string]any, method string) {
	ver := c.requestVersion(obj, method)
	vs := c.specs.versions[ver]
	p.add(vs, vs.table.requestEnvelope, obj, method)
	pr := pendingRequest{method: method, version: ver}
	switch ms := vs.table.methods[method]; {
	case ms == nil:
		c.noteUnknown(p, ver, method)
	case ms.kind == kindInputRequest:
		p.rule(ver, method, fmt.Errorf("%w: in %s, %s travels only inside an InputRequiredResult", ErrWrongSender, ver, method))
	case ms.kind == kindNotification:
		p.rule(ver, method, fmt.Errorf("%w: %s is a notification but carries an id", ErrMalformed, method))
	default:
		c.checkSender(p, ver, ms, sender)
		p.add(vs, ms.def, obj, method)
		params, _ := obj["params"].(map[string]any)
		if ms.taskAugmentable {
			_, pr.task = params["task"].(map[string]any)
		}
		if method == methodTaskPayload {
			taskID, _ := params["taskId"].(string)
			pr.payloadOf = c.tasks[taskID]
		}
	}
	key, ok := idKey(obj["id"])
	if !ok {
		return // the envelope check reports the bad id
	}
	pending := c.pending[dir-1]
	if prev, dup := pending[key]; dup {
		p.rule(ver, method, fmt.Errorf("%w: id %s reused while %s is pending", ErrMalformed, key[1:], prev.method))
	}
	pending[key] = pr
}

func (c *Checker) planNotification(p *plan, sender Side, obj map[string]any, method string) {
	ver := c.versionFor(method)
	vs := c.specs.versions[ver]
	p.add(vs, vs.table.notificationEnvelope, obj, method)
	switch ms := vs.table.methods[method]; {
	case ms == nil:
		c.noteUnknown(p, ver, method)
	case ms.kind != kindNotification:
		p.rule(ver, method, fmt.Errorf("%w: %s is a request but has no id", ErrMalformed, method))
	default:
		c.checkSender(p, ver, ms, sender)
		p.add(vs, ms.def, obj, method)
	}
}

// takePending removes and returns the request a response answers: one that travelled
// the other way.
func (c *Checker) takePending(dir Direction, obj map[string]any) (pendingRequest, bool) {
	key, ok := idKey(obj["id"])
	if !ok {
		return pendingRequest{}, false
	}
	requestDir := Incoming
	if dir == Incoming {
		requestDir = Outgoing
	}
	pending := c.pending[requestDir-1]
	pr, ok := pending[key]
	if ok {
		delete(pending, key)
	}
	return pr, ok
}

func (c *Checker) planResult(p *plan, dir Direction, obj map[string]any, result any) {
	pr, found := c.takePending(dir, obj)
	ver := pr.version
	if !found {
		ver = c.versionFor("")
	}
	vs := c.specs.versions[ver]
	p.add(vs, vs.table.resultEnvelope, obj, pr.method)
	if !found {
		p.rule(ver, "", fmt.Errorf("%w: id %v", ErrUnmatchedResponse, obj["id"]))
		return
	}
	ms := vs.table.methods[pr.method]
	if ms == nil || ms.kind == kindNotification {
		return // unknown method: the envelope is all there is to check
	}
	res, _ := result.(map[string]any)
	def := ms.resultDef
	if pr.method == methodInitialize {
		negotiated, _ := res["protocolVersion"].(string)
		switch nvs := c.specs.versions[negotiated]; {
		case negotiated == "":
			// InitializeResult requires protocolVersion; the schema check reports it.
		case nvs == nil:
			p.rule(ver, pr.method, fmt.Errorf("%w: initialize negotiated %q, which has no schema", ErrUnknownVersion, negotiated))
		case nvs.table.methods[methodInitialize] == nil:
			p.rule(ver, pr.method, fmt.Errorf("%w: initialize negotiated %s, which has no initialize", ErrUnknownVersion, negotiated))
		default:
			vs, ms, c.version = nvs, nvs.table.methods[methodInitialize], negotiated
			def = ms.resultDef
		}
	}
	if pr.task {
		def = vs.table.createTaskDef
		task, _ := res["task"].(map[string]any)
		if id, _ := task["taskId"].(string); id != "" {
			c.tasks[id] = pr.method
		}
	}
	if rt, _ := res["resultType"].(string); rt == resultTypeInputRequired && vs.table.inputRequiredDef != "" {
		if ms.inputRequired {
			def = vs.table.inputRequiredDef
		} else {
			p.rule(ver, pr.method, fmt.Errorf("%w: %s cannot return an InputRequiredResult in %s", ErrWrongResultType, pr.method, ver))
		}
	}
	p.add(vs, def, result, pr.method)
	if orig := vs.table.methods[pr.payloadOf]; orig != nil {
		p.add(vs, orig.resultDef, result, pr.method)
	}
}

func (c *Checker) planError(p *plan, dir Direction, obj map[string]any, errVal any) {
	pr, found := c.takePending(dir, obj)
	ver := pr.version
	if !found {
		ver = c.versionFor("")
	}
	vs := c.specs.versions[ver]
	envelope := obj
	if id, has := obj["id"]; has && id == nil {
		// JSON-RPC 2.0 answers a request whose id could not be read with id null;
		// the schemas' RequestId has no null, so the rest of the envelope is
		// checked with a stand-in id.
		envelope = maps.Clone(obj)
		envelope["id"] = json.Number("0")
	}
	p.add(vs, vs.table.errorEnvelope, envelope, pr.method)
	if _, hasID := idKey(obj["id"]); hasID && !found {
		p.rule(ver, "", fmt.Errorf("%w: id %v", ErrUnmatchedResponse, obj["id"]))
	}
	em, _ := errVal.(map[string]any)
	code, _ := em["code"].(json.Number)
	n, err := code.Int64()
	if err != nil {
		return
	}
	if spec, ok := vs.table.errorCodes[n]; ok {
		if spec.wholeMessage {
			p.add(vs, spec.def, envelope, pr.method)
		} else {
			p.add(vs, spec.def, errVal, pr.method)
		}
	}
}

// checkSender reports a method sent by the side the schema does not let send it.
func (c *Checker) checkSender(p *plan, ver string, ms *methodSpec, sender Side) {
	if (sender == Client && ms.fromClient) || (sender == Server && ms.fromServer) {
		return
	}
	p.rule(ver, ms.method, fmt.Errorf("%w: %s is not a %s %s in %s", ErrWrongSender, ms.method, sender, ms.kind, ver))
}

// noteUnknown records a method the schema does not define. Needs c.mu.
func (c *Checker) noteUnknown(p *plan, ver, method string) {
	if method == "" {
		return // not a string: the envelope check reports it
	}
	c.unknown[method] = struct{}{}
	if c.rejectUnknown {
		p.rule(ver, method, fmt.Errorf("%w: %s does not define %s", ErrUnknownMethod, ver, method))
	}
}

// idKey turns a JSON-RPC id into a map key that keeps its JSON type: "s" + a string
// id, "n" + a number id. Other values are not ids.
func idKey(id any) (string, bool) {
	switch v := id.(type) {
	case string:
		return "s" + v, true
	case json.Number:
		return "n" + v.String(), true
	}
	return "", false
}
