package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// This file lets a legacy session live on several replicas: a connection that
// implements transport.StatefulConn (Streamable HTTP with a session store) is
// restored from the state another replica saved, and its state is saved each
// time a rare method changes it. tools/call and the other frequent methods
// never touch it.

// restore presets a session from the state saved by another replica. It
// reports an error for a state that names no legacy version or whose client
// fields do not decode.
func (ss *ServerSession) restore(st *transport.SessionState) error {
	if !protocol.IsLegacy(st.ProtocolVersion) {
		return fmt.Errorf("mcp: restored session with unsupported protocol version %q", st.ProtocolVersion)
	}
	preset := &sessionState{version: st.ProtocolVersion}
	if len(st.ClientInfo) > 0 {
		if err := json.Unmarshal(st.ClientInfo, &preset.clientInfo); err != nil {
			return fmt.Errorf("mcp: restored session: client info: %w", err)
		}
	}
	if len(st.ClientCapabilities) > 0 {
		if err := json.Unmarshal(st.ClientCapabilities, &preset.clientCaps); err != nil {
			return fmt.Errorf("mcp: restored session: client capabilities: %w", err)
		}
	}
	level := protocol.LoggingLevel(st.LogLevel)
	if level != "" && level.Severity() < 0 {
		return fmt.Errorf("mcp: restored session: unknown logging level %q", st.LogLevel)
	}
	ss.applyLocked(st) // not yet shared: no lock needed
	ss.state.Store(preset)
	ss.ready.Store(st.Initialized)
	return nil
}

// applyLocked takes the log level and subscriptions of a shared state. ss.mu
// is held (or the session is not yet shared).
func (ss *ServerSession) applyLocked(st *transport.SessionState) {
	ss.rareLocked().applied = st
	ss.logLevel = protocol.LoggingLevel(st.LogLevel)
	if ss.logLevel.Severity() < 0 {
		ss.logLevel = ""
	}
	clear(ss.subscriptions)
	if len(st.Subscriptions) > 0 && ss.subscriptions == nil {
		ss.subscriptions = make(map[string]struct{}, len(st.Subscriptions))
	}
	for _, uri := range st.Subscriptions {
		ss.subscriptions[uri] = struct{}{}
	}
}

// syncSharedLocked brings the log level and subscriptions up to date with the
// latest shared state the connection has seen, which another replica may have
// changed (logging/setLevel or resources/subscribe served there). It is called
// where those fields are read, never on the path of a request that does not
// log. ss.mu is held.
func (ss *ServerSession) syncSharedLocked() {
	sc, ok := ss.transport.(transport.StatefulConn)
	if !ok {
		return
	}
	if st := sc.RestoredState(); st != nil && (ss.rare == nil || st != ss.rare.applied) {
		ss.applyLocked(st)
	}
}

// saveState stores the session's state through its connection, when the
// connection shares it (transport.StatefulConn); otherwise it does nothing.
// An error is answered as an internal error: the change is not shared, so the
// client must not believe it took effect.
func (ss *ServerSession) saveState(ctx context.Context) error {
	sc, ok := ss.transport.(transport.StatefulConn)
	if !ok {
		return nil
	}
	st := ss.state.Load()
	if st == nil {
		return nil
	}
	out := transport.SessionState{ProtocolVersion: st.version, Initialized: ss.ready.Load()}
	var err error
	if out.ClientInfo, err = json.Marshal(&st.clientInfo); err != nil {
		return errorf(CodeInternalError, "internal error: encoding the session's state: %v", err)
	}
	if out.ClientCapabilities, err = json.Marshal(&st.clientCaps); err != nil {
		return errorf(CodeInternalError, "internal error: encoding the session's state: %v", err)
	}
	ss.mu.Lock()
	out.LogLevel = string(ss.logLevel)
	for uri := range ss.subscriptions {
		out.Subscriptions = append(out.Subscriptions, uri)
	}
	ss.mu.Unlock()
	sort.Strings(out.Subscriptions)
	if err := sc.SaveState(ctx, &out); err != nil {
		ss.server.log.Warn("mcp: saving a session's state", "error", err)
		return errorf(CodeInternalError, "internal error: the session's state cannot be saved: %v", err)
	}
	return nil
}
