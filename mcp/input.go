package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/transport"
)

// This file lets one handler ask the client for input (elicitation, sampling,
// roots) in both eras. In the legacy era the SDK sends real requests to the
// client and waits. In the stateless era (2026-07-28) it cannot: the handler's
// request for input ends the call with an InputRequiredResult whose requestState
// (sealed, see package requeststate) carries every answer received so far; the
// client's retry brings the new answers and the handler runs again from the
// start, this time getting its answers at once. Handlers should therefore do
// their side effects after their input calls, as the protocol's multi round-trip
// pattern asks.

// ErrInputRequired is returned by the input methods of [Request] ([Request.Elicit],
// [Request.CreateMessage], [Request.ListRoots], [Request.Input]) in the stateless
// era when the answer is not there yet. The handler should return it (or any
// error): the SDK answers the client with a [protocol.InputRequiredResult] and the
// client retries with the answer.
var ErrInputRequired = errors.New("mcp: input required from the client (the request will be retried with it)")

// ErrInputNotAllowed is returned when a handler asks for input on a request
// that cannot carry an InputRequiredResult (only tools/call, prompts/get and
// resources/read can, in the stateless era).
var ErrInputNotAllowed = errors.New("mcp: this request cannot ask the client for input")

// inputRound is the input state of one stateless request.
type inputRound struct {
	mu        sync.Mutex
	loaded    bool
	loadErr   error
	responses protocol.InputResponses // answers from earlier rounds and this retry
	pending   map[string]protocol.InputRequest
	missing   *protocol.ClientCapabilities // capabilities the handler needed and lacked
	invalid   error                        // an answer that did not decode
	seq       int

	// Set by the method before the handler runs: what the state is bound to.
	method, name string // what the state is bound to, with args and principal
	args         []byte
	principal    string
	binding      *requeststate.Binding // computed on first use (most calls never need it)
	bindingErr   error
	state        string
	newResponses protocol.InputResponses
}

// bind records what the request is (method, name, arguments) and what it brought
// (inputResponses, requestState). Called by tools/call, prompts/get and
// resources/read before their handler runs.
func (r *Request) bind(ctx context.Context, name string, args []byte, state string, responses protocol.InputResponses) {
	if r.stateless == nil || r.stateless.input == nil {
		return
	}
	in := r.stateless.input
	in.method, in.name, in.args, in.principal = r.stateless.method, name, args, transport.PrincipalFrom(ctx)
	in.state, in.newResponses = state, responses
}

// bind computes the binding (a digest of the canonical arguments) the first time
// it is needed: when a state is opened or sealed. The lock is held.
func (in *inputRound) bind() error {
	if in.binding == nil {
		b, err := requeststate.NewBinding(in.method, in.name, in.args, in.principal)
		in.binding, in.bindingErr = &b, err
	}
	return in.bindingErr
}

// load opens the requestState (once), records its use when the server makes
// states single-use (see ServerOptions.StateUse), and merges its answers with
// the retry's.
func (in *inputRound) load(ctx context.Context, s *Server) error {
	if in.loaded {
		return in.loadErr
	}
	in.loaded = true
	if in.state != "" && in.bind() != nil {
		in.loadErr = errorf(CodeInvalidParams, "invalid params: %v", in.bindingErr)
		return in.loadErr
	}
	in.responses = make(protocol.InputResponses, len(in.newResponses))
	if in.state != "" {
		payload, exp, err := s.keyring.OpenExpiry(*in.binding, in.state)
		if err != nil {
			in.loadErr = errorf(CodeInvalidParams, "invalid params: requestState rejected: %v", err)
			return in.loadErr
		}
		if s.opts.StateUse != nil {
			if in.loadErr = s.useState(ctx, in.state, exp); in.loadErr != nil {
				return in.loadErr
			}
		}
		var carried protocol.InputResponses
		if err := json.Unmarshal(payload, &carried); err != nil {
			in.loadErr = errorf(CodeInvalidParams, "invalid params: requestState rejected: %v", err)
			return in.loadErr
		}
		for k, v := range carried {
			in.responses[k] = v
		}
	}
	for k, v := range in.newResponses {
		in.responses[k] = v
	}
	return nil
}

// ask looks up the answers to reqs; those missing become pending. It returns the
// answers when all are there, ErrInputRequired otherwise.
func (in *inputRound) ask(ctx context.Context, s *Server, caps *protocol.ClientCapabilities, reqs map[string]protocol.InputRequest) (protocol.InputResponses, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.load(ctx, s); err != nil {
		return nil, err
	}
	for _, req := range reqs {
		if need, ok := requiredCapability(caps, req); !ok {
			if in.missing == nil {
				in.missing = &protocol.ClientCapabilities{}
			}
			mergeCapability(in.missing, need)
		}
	}
	if in.missing != nil {
		return nil, fmt.Errorf("%w (%s)", ErrCapabilityNotSupported, capabilityNames(*in.missing))
	}
	out := make(protocol.InputResponses, len(reqs))
	complete := true
	for key, req := range reqs {
		if raw, ok := in.responses[key]; ok {
			if _, err := protocol.DecodeInputResponse(req.Method, raw); err != nil {
				if in.invalid == nil {
					in.invalid = fmt.Errorf("input response %q: %w", key, err)
				}
				return nil, in.invalid
			}
			out[key] = raw
			continue
		}
		complete = false
		if in.pending == nil {
			in.pending = make(map[string]protocol.InputRequest)
		}
		in.pending[key] = req
	}
	if !complete {
		return nil, ErrInputRequired
	}
	return out, nil
}

// finish turns the handler's outcome into the answer: a -32021 error when the
// handler needed a capability the client lacks, a -32602 for a bad state or an
// undecodable answer, an InputRequiredResult when input is pending, and the
// handler's own result otherwise.
func (in *inputRound) finish(s *Server, r *Request, res any, err error) (any, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.loadErr != nil:
		return nil, in.loadErr
	case in.missing != nil:
		return nil, missingCapability(*in.missing, capabilityNames(*in.missing))
	case in.invalid != nil:
		return nil, errorf(CodeInvalidParams, "invalid params: %v", in.invalid)
	case len(in.pending) == 0:
		return res, err
	}
	// Carry only the answers the handler used or may use again: everything it
	// was given, so later rounds need not ask twice.
	payload, merr := json.Marshal(in.responses)
	if merr != nil {
		return nil, fmt.Errorf("mcp: sealing request state: %w", merr)
	}
	if err := in.bind(); err != nil {
		return nil, errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	state, serr := s.keyring.Seal(*in.binding, payload, s.opts.InputStateTTL)
	if serr != nil {
		return nil, fmt.Errorf("mcp: sealing request state: %w", serr)
	}
	pending := make(map[string]protocol.InputRequest, len(in.pending))
	for k, v := range in.pending {
		pending[k] = v
	}
	return &protocol.InputRequiredResult{InputRequests: pending, RequestState: state}, nil
}

// requiredCapability says which client capability req needs, and whether caps has it.
func requiredCapability(caps *protocol.ClientCapabilities, req protocol.InputRequest) (protocol.ClientCapabilities, bool) {
	var need protocol.ClientCapabilities
	switch req.Method {
	case protocol.MethodSamplingCreateMessage:
		need.Sampling = &protocol.SamplingCapability{}
		if caps.Sampling == nil {
			return need, false
		}
		if req.CreateMessage != nil && len(req.CreateMessage.Tools) > 0 && caps.Sampling.Tools == nil {
			need.Sampling.Tools = &protocol.Supported{}
			return need, false
		}
	case protocol.MethodElicitationCreate:
		need.Elicitation = &protocol.ElicitationCapability{}
		ec := caps.Elicitation
		if ec == nil {
			return need, false
		}
		if req.Elicit != nil && req.Elicit.Mode == protocol.ElicitModeURL {
			if ec.URL == nil {
				need.Elicitation.URL = &protocol.Supported{}
				return need, false
			}
		} else if ec.Form == nil && ec.URL != nil {
			need.Elicitation.Form = &protocol.Supported{}
			return need, false
		}
	case protocol.MethodRootsList:
		need.Roots = &protocol.RootsCapability{}
		if caps.Roots == nil {
			return need, false
		}
	}
	return need, true
}

// mergeCapability adds need to into.
func mergeCapability(into *protocol.ClientCapabilities, need protocol.ClientCapabilities) {
	if need.Sampling != nil {
		if into.Sampling == nil {
			into.Sampling = &protocol.SamplingCapability{}
		}
		if need.Sampling.Tools != nil {
			into.Sampling.Tools = need.Sampling.Tools
		}
	}
	if need.Elicitation != nil {
		if into.Elicitation == nil {
			into.Elicitation = &protocol.ElicitationCapability{}
		}
		if need.Elicitation.Form != nil {
			into.Elicitation.Form = need.Elicitation.Form
		}
		if need.Elicitation.URL != nil {
			into.Elicitation.URL = need.Elicitation.URL
		}
	}
	if need.Roots != nil && into.Roots == nil {
		into.Roots = need.Roots
	}
}

// capabilityNames lists the capabilities in c for messages ("sampling, roots").
func capabilityNames(c protocol.ClientCapabilities) string {
	var names []string
	if c.Sampling != nil {
		n := "sampling"
		if c.Sampling.Tools != nil {
			n = "sampling.tools"
		}
		names = append(names, n)
	}
	if c.Elicitation != nil {
		n := "elicitation"
		if c.Elicitation.URL != nil {
			n = "elicitation.url"
		} else if c.Elicitation.Form != nil {
			n = "elicitation.form"
		}
		names = append(names, n)
	}
	if c.Roots != nil {
		names = append(names, "roots")
	}
	sort.Strings(names)
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// Input asks the client for several things at once — elicitations, samplings,
// roots — under keys the handler chooses, and returns the answers under the same
// keys (decode each with InputResponses.Decode).
//
// In the legacy era the requests go to the client concurrently and Input waits
// for all of them. In the stateless era Input returns the answers when the
// client's retry brought them, and ErrInputRequired otherwise (return it: the
// client is asked, and retries). It fails with an error matching
// ErrCapabilityNotSupported when the client lacks a capability a request needs.
func (r *Request) Input(ctx context.Context, reqs map[string]protocol.InputRequest) (protocol.InputResponses, error) {
	if r.stateless != nil {
		if r.stateless.input == nil {
			return nil, ErrInputNotAllowed
		}
		return r.stateless.input.ask(ctx, r.server(), &r.stateless.caps, reqs)
	}
	return r.Session.inputLegacy(ctx, reqs)
}

// inputLegacy sends each request to the client and collects the answers.
func (ss *ServerSession) inputLegacy(ctx context.Context, reqs map[string]protocol.InputRequest) (protocol.InputResponses, error) {
	caps := ss.ClientCapabilities()
	for _, req := range reqs {
		if _, ok := requiredCapability(&caps, req); !ok {
			return nil, fmt.Errorf("%s: %w", req.Method, ErrCapabilityNotSupported)
		}
	}
	type answer struct {
		key string
		raw json.RawMessage
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan answer, len(reqs))
	for key, req := range reqs {
		go func() {
			var raw json.RawMessage
			err := ss.call(ctx, req.Method, req.Params(), &raw)
			answers <- answer{key, raw, err}
		}()
	}
	out := make(protocol.InputResponses, len(reqs))
	var firstErr error
	for range reqs {
		a := <-answers
		if a.err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", a.key, a.err)
			cancel()
		}
		out[a.key] = a.raw
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// askOne is the stateless side of Elicit, CreateMessage and ListRoots: one input
// request under the next automatic key ("elicitation-1", "sampling-2", ...),
// its answer decoded into dst.
func (r *Request) askOne(ctx context.Context, prefix string, req protocol.InputRequest, dst any) error {
	in := r.stateless.input
	if in == nil {
		return ErrInputNotAllowed
	}
	in.mu.Lock()
	in.seq++
	key := prefix + "-" + strconv.Itoa(in.seq)
	in.mu.Unlock()
	got, err := in.ask(ctx, r.server(), &r.stateless.caps, map[string]protocol.InputRequest{key: req})
	if err != nil {
		return err
	}
	if _, err := got.Decode(key, dst); err != nil {
		in.mu.Lock()
		if in.invalid == nil {
			in.invalid = err
		}
		in.mu.Unlock()
		return err
	}
	return nil
}
