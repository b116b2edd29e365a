// Package httpguard defends MCP's HTTP endpoints against DNS rebinding and
// unwanted cross-origin requests, by the Host and Origin headers. Both HTTP
// transports (streamable and legacysse) apply it, configured by their
// HandlerOptions (AllowedOrigins, AllowedHosts).
//
// The rules: a server reached on a loopback address accepts only loopback Host
// names (localhost, *.localhost, 127.0.0.0/8, ::1) unless AllowedHosts says
// otherwise, which defeats DNS rebinding; a request with an Origin header is
// accepted when the origin is listed in AllowedOrigins ("*" for any) or, on a
// loopback server, is itself a loopback origin. Requests without Origin (non-browser
// clients) pass the origin check.
package httpguard

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// Policy says which Host and Origin headers an endpoint accepts. The zero Policy
// applies the loopback defaults above.
type Policy struct {
	// AllowedOrigins lists browser origins ("https://app.example.com") accepted
	// besides the defaults; "*" accepts any. Compared case-insensitively, with a
	// trailing slash ignored.
	AllowedOrigins []string
	// AllowedHosts, when set, lists the only Host headers accepted: "*", a host
	// ("example.com", matching any port) or host:port.
	AllowedHosts []string
}

// ErrForbidden is wrapped by every error Check returns.
var ErrForbidden = errors.New("forbidden")

// Check returns nil when r may proceed, or an error wrapping ErrForbidden that says
// why not; the caller answers 403.
func (p *Policy) Check(r *http.Request) error {
	loopback := -1 // unknown until needed: -1, 0 or 1
	isLoopback := func() bool {
		if loopback < 0 {
			loopback = 0
			if ServedOnLoopback(r) {
				loopback = 1
			}
		}
		return loopback == 1
	}
	if len(p.AllowedHosts) > 0 {
		if !hostListed(p.AllowedHosts, r.Host) {
			return forbidden("host " + quote(r.Host) + " is not allowed")
		}
	} else if r.Host != "" && isLoopback() && !IsLoopbackHost(r.Host) {
		return forbidden("host " + quote(r.Host) + " is not a loopback host")
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	norm := strings.TrimRight(origin, "/")
	for _, o := range p.AllowedOrigins {
		if o == "*" || strings.EqualFold(strings.TrimRight(o, "/"), norm) {
			return nil
		}
	}
	if isLoopback() && isLoopbackOrigin(origin) {
		return nil
	}
	return forbidden("origin " + quote(origin) + " is not allowed")
}

func forbidden(why string) error { return &forbiddenError{why} }

type forbiddenError struct{ why string }

func (e *forbiddenError) Error() string { return "forbidden: " + e.why }
func (e *forbiddenError) Unwrap() error { return ErrForbidden }

// quote quotes a header value for an error message, cut to a readable length.
func quote(s string) string { return strconv.Quote(s[:min(len(s), 200)]) }

// ServedOnLoopback reports whether the request came in on a loopback address: the
// local address net/http records in the request's context (a Unix socket counts as
// loopback). Without one (a handler called directly), the Host header decides.
func ServedOnLoopback(r *http.Request) bool {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		ip, ok := netip.AddrFromSlice(a.IP)
		return ok && ip.Unmap().IsLoopback()
	case *net.UnixAddr:
		return true
	case net.Addr:
		host, _, err := net.SplitHostPort(a.String())
		if err != nil {
			return false
		}
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.Unmap().IsLoopback()
	}
	return IsLoopbackHost(r.Host)
}

// splitHost returns the host part of a "host[:port]" authority, without the brackets
// of an IPv6 literal.
func splitHost(hostport string) string {
	if strings.HasPrefix(hostport, "[") {
		if i := strings.IndexByte(hostport, ']'); i > 0 {
			return hostport[1:i]
		}
		return hostport
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && strings.IndexByte(hostport[:i], ':') < 0 {
		return hostport[:i]
	}
	return hostport
}

// IsLoopbackHost reports whether a Host header names the local machine: localhost
// (or a name under .localhost), or a loopback IP address.
func IsLoopbackHost(hostport string) bool {
	host := strings.TrimSuffix(splitHost(hostport), ".")
	if strings.EqualFold(host, "localhost") || hasSuffixFold(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// isLoopbackOrigin reports whether an Origin ("scheme://host[:port]") is on the local
// machine.
func isLoopbackOrigin(origin string) bool {
	_, rest, ok := strings.Cut(origin, "://")
	if !ok || rest == "" || strings.ContainsAny(rest, "/?#@") {
		return false
	}
	return IsLoopbackHost(rest)
}

// hostListed reports whether hostport matches an entry of allowed: "*", the same
// host and port, or the same host when the entry has no port.
func hostListed(allowed []string, hostport string) bool {
	host := splitHost(hostport)
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, hostport) {
			return true
		}
		if splitHost(a) == a || (strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]")) {
			// The entry has no port: compare hosts only.
			if strings.EqualFold(splitHost(a), host) {
				return true
			}
		}
	}
	return false
}
