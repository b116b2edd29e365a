package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// Options configures Run.
type Options struct {
	// Ignore are more JSON paths of results not to compare (see DefaultIgnore
	// for the syntax), in addition to DefaultIgnore.
	Ignore []string
	// Timeout bounds the wait for each response. Zero means 30 seconds.
	Timeout time.Duration
}

// Report is the outcome of Run.
type Report struct {
	// Server is the live server's initialize result (nil for a stateless
	// capture, which has no initialize).
	Server *protocol.InitializeResult `json:"server,omitempty"`
	// Requests is how many recorded requests were sent.
	Requests int `json:"requests"`
	// Ignored are the JSON paths not compared.
	Ignored []string `json:"ignored"`
	// Differences are in the order of the capture's requests.
	Differences []Difference `json:"differences"`
}

// ErrSetup is wrapped by the errors of a replay that could not run: the live
// server refused initialize, or the connection failed.
var ErrSetup = errors.New("replay could not run")

// Run re-sends the client side of c over conn, which it closes when done:
// initialize with the recorded params (client info, capabilities, version) and
// notifications/initialized, then every recorded request in order, each with
// the params recorded, one at a time. The server's requests to the client are
// answered with the recorded answer of the request of the same method and
// params (or an error). It compares each answer with the recorded one and
// reports the differences. An error (wrapping ErrSetup) means the replay could
// not run; differences are not errors.
func Run(ctx context.Context, conn transport.Conn, c *Capture, opts Options) (*Report, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	ig := append(append([]string{}, DefaultIgnore...), opts.Ignore...)
	rp := &replayer{conn: conn, c: c, ig: newIgnorer(ig), timeout: opts.Timeout, in: make(chan *jsonrpc.Message, 16), serverCalls: newPlayerOf(c.ServerCalls)}
	readCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go rp.readLoop(readCtx, done)
	defer func() {
		stop()
		_ = conn.Close()
		<-done
	}()
	rep := &Report{Ignored: ig, Differences: []Difference{}}
	if c.Initialize != nil {
		res, err := rp.call(ctx, c.Initialize.Method, c.Initialize.Params)
		if err != nil {
			return nil, fmt.Errorf("%w: initialize: %w", ErrSetup, err)
		}
		if res.Error != nil {
			return nil, fmt.Errorf("%w: the server refused initialize: %w", ErrSetup, res.Error)
		}
		rep.Server = &protocol.InitializeResult{}
		if err := json.Unmarshal(res.Result, rep.Server); err != nil {
			return nil, fmt.Errorf("%w: initialize result: %w", ErrSetup, err)
		}
		if c.Initialize.Answered && c.Initialize.Error == nil {
			// The negotiated version and what the server declares.
			igInit := append(ignorer{{"serverInfo", "version"}, {"instructions"}}, rp.ig...)
			if fields, a, b := diffJSON(c.Initialize.Result, res.Result, igInit); len(fields) > 0 {
				rep.Differences = append(rep.Differences, Difference{Seq: c.Initialize.Seq, Method: protocol.MethodInitialize, Kind: KindInitialize, Item: "result", Fields: fields, Recorded: a, Live: b})
			}
		}
		note := jsonrpc.AppendNotification(nil, protocol.NotificationInitialized, nil)
		if err := conn.Write(ctx, note); err != nil {
			return nil, fmt.Errorf("%w: notifications/initialized: %w", ErrSetup, err)
		}
	}
	states := map[string]string{} // recorded requestState → the live server's
	for _, call := range c.Calls {
		rep.Requests++
		res, err := rp.call(ctx, call.Method, liveState(call.Params, states))
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			rep.Differences = append(rep.Differences, Difference{Seq: call.Seq, Method: call.Method, Kind: KindNoResponse, Item: call.Key, Live: "no answer within " + opts.Timeout.String()})
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("%w: %s (record %d): %w", ErrSetup, call.Method, call.Seq, err)
		}
		if rec, live := requestState(call.Result), requestState(res.Result); rec != "" && live != "" {
			states[rec] = live
		}
		rep.Differences = append(rep.Differences, compare(call, res, rp.ig)...)
	}
	return rep, nil
}

// requestState returns the requestState of an input-required result (a
// 2026-07-28 round the client completes by retrying with it), or "".
func requestState(result json.RawMessage) string {
	var r struct {
		RequestState string `json:"requestState"`
	}
	if len(result) == 0 || json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.RequestState
}

// liveState returns params with a recorded requestState replaced by the one
// the live server sealed in the same round (states), since a server opens only
// the states it sealed (or its replicas, sharing MCPKIT_STATE_KEYS). Params
// without one, or with a state the replay has not seen, are returned as they
// are.
func liveState(params json.RawMessage, states map[string]string) json.RawMessage {
	if len(states) == 0 {
		return params
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	var rec string
	if json.Unmarshal(m["requestState"], &rec) != nil {
		return params
	}
	live, ok := states[rec]
	if !ok {
		return params
	}
	m["requestState"], _ = json.Marshal(live)
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// compare returns how a live response differs from the recorded one.
func compare(call *Call, live *jsonrpc.Message, ig ignorer) []Difference {
	if !call.Answered {
		return nil // nothing to compare with
	}
	d := Difference{Seq: call.Seq, Method: call.Method, Item: call.Key}
	switch {
	case call.Error != nil && live.Error != nil:
		if call.Error.Code == live.Error.Code {
			return nil // messages are prose, and often carry details that vary
		}
		d.Kind = KindErrorChanged
	case call.Error != nil:
		d.Kind = KindErrorVanished
	case live.Error != nil:
		d.Kind = KindErrorAppeared
	default:
		if diffs, ok := diffList(call, call.Result, live.Result, ig); ok {
			return diffs
		}
		fields, a, b := diffJSON(call.Result, live.Result, ig)
		if len(fields) == 0 {
			return nil
		}
		d.Kind, d.Fields, d.Recorded, d.Live = KindResult, fields, a, b
		if isErrorResult(call.Result) != isErrorResult(live.Result) {
			d.Kind = KindErrorVanished
			if isErrorResult(live.Result) {
				d.Kind = KindErrorAppeared
			}
		}
		return []Difference{d}
	}
	d.Recorded, d.Live = errorText(call.Error), errorText(live.Error)
	return []Difference{d}
}

func errorText(e *jsonrpc.Error) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("error %d %q", e.Code, e.Message)
}

// isErrorResult reports whether a tool result has isError set.
func isErrorResult(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// replayer is the client side of one replay.
type replayer struct {
	conn        transport.Conn
	c           *Capture
	ig          ignorer
	timeout     time.Duration
	in          chan *jsonrpc.Message
	nextID      int64
	serverCalls *player
}

// newPlayerOf indexes recorded server-to-client requests by method and params.
func newPlayerOf(calls []*Call) *player { return newPlayer(&Capture{Calls: calls}) }

// readLoop hands every message read to rp.in until the connection ends; then it
// closes rp.in and reports why on done.
func (rp *replayer) readLoop(ctx context.Context, done chan<- error) {
	defer close(rp.in)
	for {
		data, err := rp.conn.Read(ctx)
		if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
			continue
		}
		if err != nil {
			done <- err
			return
		}
		msgs := []*jsonrpc.Message{}
		if jsonrpc.IsBatch(data) {
			msgs, _, _ = jsonrpc.DecodeBatch(data)
		} else if m, err := jsonrpc.Decode(data); err == nil {
			msgs = append(msgs, m)
		}
		for _, m := range msgs {
			if m == nil {
				continue
			}
			select {
			case rp.in <- m:
			case <-ctx.Done():
				done <- ctx.Err()
				return
			}
		}
	}
}

// call sends one request and waits for its response, answering the server's
// requests meanwhile.
func (rp *replayer) call(ctx context.Context, method string, params json.RawMessage) (*jsonrpc.Message, error) {
	rp.nextID++
	id := jsonrpc.Int64ID(rp.nextID)
	ctx, cancel := context.WithTimeout(ctx, rp.timeout)
	defer cancel()
	if err := rp.conn.Write(ctx, jsonrpc.AppendRequest(nil, id, method, params)); err != nil {
		return nil, fmt.Errorf("sending: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case m, ok := <-rp.in:
			if !ok {
				return nil, errors.New("the server closed the connection")
			}
			switch {
			case m.IsResponse() && m.ID == id:
				return m, nil
			case m.IsRequest():
				if err := rp.answer(ctx, m); err != nil {
					return nil, err
				}
			}
		}
	}
}

// answer answers a server's request from the capture.
func (rp *replayer) answer(ctx context.Context, m *jsonrpc.Message) error {
	var out []byte
	switch rec := rp.serverCalls.take(m.Method, MatchKey(m.Params)); {
	case m.Method == protocol.MethodPing:
		out = jsonrpc.AppendResult(nil, m.ID, json.RawMessage(`{}`))
	case rec == nil || !rec.Answered:
		out = jsonrpc.AppendError(nil, m.ID, rp.serverCalls.noMatch(m.Method, m.Params))
	case rec.Error != nil:
		out = jsonrpc.AppendError(nil, m.ID, rec.Error)
	default:
		out = jsonrpc.AppendResult(nil, m.ID, rec.Result)
	}
	if err := rp.conn.Write(ctx, out); err != nil {
		return fmt.Errorf("answering the server's %s: %w", m.Method, err)
	}
	return nil
}
