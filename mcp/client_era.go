package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file decides, at Connect, which era the session speaks. The
// specification's rule for a dual-era client (basic/versioning, "Backward
// Compatibility"): probe with server/discover at the preferred stateless version;
// a DiscoverResult, or a recognized 2026-07-28 error such as
// UnsupportedProtocolVersion, means a stateless server; any other answer — other
// errors, an HTTP status without a 2026-07-28 error body, silence — means a
// legacy server, which is then initialized. The decision never keys on one
// error code.

// DefaultProbeTimeout is how long Connect waits for the answer to its
// server/discover probe before taking the server for a legacy one, when
// ClientOptions.ProbeTimeout is zero. On stdio the wait includes the server's
// start-up (an npx or a cold interpreter takes seconds), and a server that
// never answers is rare — JSON-RPC asks every request to be answered, if only
// with an error — so the default is generous; the era found is remembered per
// server, so the wait is paid at most once.
const DefaultProbeTimeout = 10 * time.Second

// maxProbeAttempts bounds the server/discover requests of one Connect: the first,
// and retries at a version an UnsupportedProtocolVersion error offered.
const maxProbeAttempts = 3

// statelessState is what a stateless session knows beyond its connection.
type statelessState struct {
	caps     *protocol.ClientCapabilities // sent in every request's _meta
	discover protocol.DiscoverResult      // the answer to the probe
	cache    *resultCache                 // nil when ClientOptions.DisableCache

	mu       sync.Mutex
	version  string                            // the version requests carry
	logLevel protocol.LoggingLevel             // "" = no log notifications
	params   map[string][]protocol.ParamHeader // x-mcp-header declarations, by tool

	// The _meta member of a request with no _meta of its own, encoded for
	// envVersion and envLevel (see envelopeLocked).
	env        []byte
	envVersion string
	envLevel   protocol.LoggingLevel
}

// appendMetaMembers appends to dst the `"_meta":{...}` member of a request
// whose _meta has the members of base besides the session's envelope env (as
// envelopeLocked returns it): the envelope's, then base's in key order, but
// none that the envelope sets (the protocol's keys win, as in requestMeta;
// withLevel says whether the envelope sets the log level). It returns nil when
// encoding/json cannot encode a value of base: the caller then goes the way of
// requestMeta, whose encoding fails the request with encoding/json's error.
func appendMetaMembers(dst, env []byte, base protocol.Meta, withLevel bool) []byte {
	var arr [8]string
	keys := arr[:0]
	for k := range base {
		switch k {
		case protocol.MetaKeyProtocolVersion, protocol.MetaKeyClientCapabilities, protocol.MetaKeyClientInfo:
			continue
		case protocol.MetaKeyLogLevel:
			if withLevel {
				continue
			}
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, env[:len(env)-1]...) // without the envelope's closing brace
	for _, k := range keys {
		v, err := json.Marshal(base[k])
		if err != nil {
			return nil
		}
		dst = append(jsonrpc.AppendString(append(dst, ','), k), ':')
		dst = append(dst, v...)
	}
	return append(dst, '}')
}

// envelopeLocked returns the `"_meta":{...}` member of a request whose params
// have no _meta of their own, at version and level: encoded once and kept until
// either changes, so that requests pay no encoding for it. m.mu is held.
func (m *statelessState) envelopeLocked(c *Client, version string, level protocol.LoggingLevel) []byte {
	if m.env == nil || version != m.envVersion || level != m.envLevel {
		meta, err := json.Marshal(c.requestMeta(nil, version, m.caps, level))
		if err != nil {
			return nil // plain structs and strings: cannot fail; nil falls back to requestMeta
		}
		m.env = append([]byte(`"_meta":`), meta...)
		m.envVersion, m.envLevel = version, level
	}
	return m.env
}

func (m *statelessState) currentVersion() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version
}

// open starts the session in the era ClientOptions.ProtocolVersion asks for, or
// the one the server speaks.
//
// The era found is remembered per server (see Client.rememberEra), so the next
// connection to the same server skips the probe; a remembered era that no longer
// works is forgotten and the following connection probes again.
func (cs *ClientSession) open(ctx context.Context, endpoint string) error {
	want := cs.client.opts.ProtocolVersion
	switch {
	case want == "":
		if known, ok := cs.client.eras.Load(endpoint); ok && endpoint != "" {
			err := cs.openAt(ctx, known.(string))
			if err != nil {
				cs.client.eras.Delete(endpoint)
			}
			return err
		}
		legacy, err := cs.probeStateless(ctx, protocol.Latest, false)
		if err != nil {
			return err
		}
		if legacy == "" {
			cs.client.rememberEra(endpoint, cs.ProtocolVersion())
			return nil
		}
		if err := cs.initialize(ctx, legacy); err != nil {
			return err
		}
		cs.client.rememberEra(endpoint, cs.init.ProtocolVersion)
		return nil
	case protocol.IsLegacy(want):
		return cs.initialize(ctx, want)
	case protocol.IsStateless(want):
		_, err := cs.probeStateless(ctx, want, true)
		return err
	}
	return fmt.Errorf("mcp: protocol version %q is not supported (this client supports %v)", want, protocol.SupportedVersions())
}

// openAt opens the session at a version known to work with this server.
func (cs *ClientSession) openAt(ctx context.Context, version string) error {
	if protocol.IsLegacy(version) {
		return cs.initialize(ctx, version)
	}
	_, err := cs.probeStateless(ctx, version, true)
	return err
}

// rememberEra records the version a server was found to speak, keyed by the
// endpoint its connection names ("" — a connection that names none — is not
// remembered).
func (c *Client) rememberEra(endpoint, version string) {
	if endpoint != "" && version != "" {
		c.eras.Store(endpoint, version)
	}
}

// errNotDiscover is the probe's outcome when the server answered server/discover
// with something that is not a DiscoverResult (some legacy servers answer every
// unknown method with an empty result).
var errNotDiscover = errors.New("the answer is not a DiscoverResult")

// probeStateless probes the server at version. It returns "" with the session in
// the stateless era, or the legacy version to initialize with instead (never
// when only is set: then the failure to find a stateless server is the error).
func (cs *ClientSession) probeStateless(ctx context.Context, version string, only bool) (legacy string, err error) {
	for range maxProbeAttempts {
		res, err := cs.probe(ctx, version)
		if err == nil {
			if next := chooseVersion(version, res.SupportedVersions); next != version {
				if !protocol.IsStateless(next) {
					if only {
						return "", fmt.Errorf("mcp: the server does not support protocol version %s (it supports %v)", version, res.SupportedVersions)
					}
					return next, nil
				}
				version = next
			}
			cs.startStateless(version, res)
			return "", nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("mcp: server/discover: %w", ctx.Err())
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			switch je.Code {
			case protocol.CodeUnsupportedProtocolVersion:
				supported := unsupportedData(je)
				if next := newestCommon(supported, protocol.IsStateless); next != "" {
					version = next
					continue
				}
				if next := newestCommon(supported, protocol.IsLegacy); next != "" && !only {
					return next, nil
				}
				return "", fmt.Errorf("mcp: the server supports none of this client's protocol versions (it supports %v): %w", supported, err)
			case protocol.CodeHeaderMismatch, protocol.CodeMissingClientCapability:
				// A stateless server that refused this request: falling back
				// would not help.
				return "", fmt.Errorf("mcp: server/discover: %w", err)
			}
		}
		if only {
			return "", fmt.Errorf("mcp: the server does not speak protocol version %s (its answer to server/discover: %w)", version, err)
		}
		cs.client.log.Debug("mcp: the server is not stateless; initializing", "probe", err)
		return protocol.LatestLegacy, nil
	}
	return "", fmt.Errorf("mcp: server/discover: the server refused protocol version %s %d times", version, maxProbeAttempts)
}

// discoverWire is a DiscoverResult as drafts of the protocol sent it: some put
// serverInfo in the body rather than in _meta.
type discoverWire struct {
	protocol.DiscoverResult
	ServerInfo *protocol.Implementation `json:"serverInfo,omitempty"`
}

// probe sends server/discover at version, bounded by ClientOptions.ProbeTimeout.
func (cs *ClientSession) probe(ctx context.Context, version string) (*discoverWire, error) {
	timeout := cs.client.opts.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs.probing.Store(true)
	defer cs.probing.Store(false)
	caps := cs.client.statelessCapabilities(version)
	params := &protocol.DiscoverParams{Meta: cs.client.requestMeta(nil, version, caps, "")}
	var raw json.RawMessage
	if err := cs.call(pctx, protocol.MethodServerDiscover, params, &raw); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("no answer within %v", timeout)
		}
		return nil, err
	}
	res, err := decodeDiscover(raw)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// decodeDiscover reads a DiscoverResult; anything else (no supportedVersions, a
// resultType other than complete) is errNotDiscover.
func decodeDiscover(raw json.RawMessage) (*discoverWire, error) {
	var res discoverWire
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotDiscover, err)
	}
	if res.SupportedVersions == nil {
		return nil, fmt.Errorf("%w: it has no supportedVersions", errNotDiscover)
	}
	if t := res.ResultType; t != "" && t != protocol.ResultTypeComplete {
		return nil, fmt.Errorf("%w: its resultType is %q", errNotDiscover, t)
	}
	return &res, nil
}

// startStateless puts the session in the stateless era at version.
func (cs *ClientSession) startStateless(version string, res *discoverWire) {
	c := cs.client
	m := &statelessState{
		caps:     c.statelessCapabilities(version),
		discover: res.DiscoverResult,
		version:  version,
		params:   make(map[string][]protocol.ParamHeader),
	}
	if !c.opts.DisableCache {
		m.cache = newResultCache(c.now)
	}
	info, ok := res.Meta.ServerInfo()
	if !ok && res.ServerInfo != nil {
		info = res.ServerInfo
	}
	cs.init = protocol.InitializeResult{
		Meta:            res.Meta,
		ProtocolVersion: version,
		Capabilities:    res.Capabilities,
		Instructions:    res.Instructions,
	}
	if info != nil {
		cs.init.ServerInfo = *info
	}
	cs.stateless = m
	cs.live.Store(m)
}

// statelessCapabilities returns what the client declares in the _meta of its
// stateless requests: as for initialize, without the roots listChanged flag (a
// stateless client sends no notifications).
func (c *Client) statelessCapabilities(version string) *protocol.ClientCapabilities {
	caps := c.capabilities(version)
	if caps.Roots != nil && caps.Roots.ListChanged && c.opts.Capabilities == nil {
		caps.Roots = &protocol.RootsCapability{}
	}
	return &caps
}

// requestMeta returns the _meta of a stateless request: the caller's keys (base,
// which is not modified) and the protocol's per-request ones.
func (c *Client) requestMeta(base protocol.Meta, version string, caps *protocol.ClientCapabilities, level protocol.LoggingLevel) protocol.Meta {
	m := make(protocol.Meta, len(base)+4)
	for k, v := range base {
		m[k] = v
	}
	m[protocol.MetaKeyProtocolVersion] = version
	m[protocol.MetaKeyClientCapabilities] = caps
	m[protocol.MetaKeyClientInfo] = &c.info
	if level != "" {
		m[protocol.MetaKeyLogLevel] = level
	}
	return m
}

// chooseVersion picks the version to go on with after a DiscoverResult listing
// supported: the requested one when listed (or when the list is empty), else the
// newest stateless version both sides support, else the newest legacy one.
func chooseVersion(requested string, supported []string) string {
	if len(supported) == 0 || slices.Contains(supported, requested) {
		return requested
	}
	if v := newestCommon(supported, protocol.IsStateless); v != "" {
		return v
	}
	if v := newestCommon(supported, protocol.IsLegacy); v != "" {
		return v
	}
	return requested // the server answered at it: go on
}

// newestCommon returns the newest version in supported that this client supports
// and that keep accepts, or "".
func newestCommon(supported []string, keep func(string) bool) string {
	best := ""
	for _, v := range supported {
		if keep(v) && (best == "" || protocol.Compare(v, best) > 0) {
			best = v
		}
	}
	return best
}

// unsupportedData returns the versions an UnsupportedProtocolVersion error lists.
func unsupportedData(je *jsonrpc.Error) []string {
	var d protocol.UnsupportedProtocolVersionData
	if len(je.Data) == 0 || json.Unmarshal(je.Data, &d) != nil {
		return nil
	}
	return d.Supported
}
