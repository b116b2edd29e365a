package legacysse

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// forbiddenReason applies the DNS-rebinding defences documented on
// HandlerOptions.AllowedHosts and AllowedOrigins, the same rules as the Streamable
// HTTP handler's. It returns "" when the request may proceed, or why it may not.
func (h *Handler) forbiddenReason(r *http.Request) string {
	loopback := arrivedOnLoopback(r)
	if len(h.opts.AllowedHosts) > 0 {
		if !hostAllowed(h.opts.AllowedHosts, r.Host) {
			return "host not allowed"
		}
	} else if loopback && r.Host != "" && !isLoopbackHost(hostOnly(r.Host)) {
		return "host is not a loopback host"
	}
	origin := r.Header.Get("Origin")
	if origin == "" || h.anyOrigin {
		return ""
	}
	if _, ok := h.origins[normalizeOrigin(origin)]; ok {
		return ""
	}
	if loopback && isLoopbackOrigin(origin) {
		return ""
	}
	return "origin not allowed"
}

// normalizeOrigin lowercases an origin and drops a trailing slash, so that
// "HTTPS://App.example.com/" matches "https://app.example.com".
func normalizeOrigin(origin string) string {
	return strings.ToLower(strings.TrimRight(origin, "/"))
}

// isLoopbackOrigin reports whether origin ("scheme://host[:port]", nothing more) is
// an http or https origin on a loopback host.
func isLoopbackOrigin(origin string) bool {
	scheme, authority, ok := strings.Cut(origin, "://")
	if !ok || (!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")) {
		return false
	}
	if authority == "" || strings.ContainsAny(authority, "/?#@\\") {
		return false
	}
	return isLoopbackHost(hostOnly(authority))
}

// hostOnly returns the host of a "host[:port]" authority, without the brackets of an
// IPv6 literal.
func hostOnly(hostport string) string {
	if strings.HasPrefix(hostport, "[") {
		if end := strings.IndexByte(hostport, ']'); end > 0 {
			return hostport[1:end]
		}
		return hostport
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[:i], ":") {
		return hostport[:i]
	}
	return hostport
}

// isLoopbackHost reports whether host names the local machine: localhost, a name
// under .localhost, or a loopback IP address (127.0.0.0/8, ::1).
func isLoopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// hostAllowed reports whether a Host header matches an entry of allowed: "*", the
// same host and port, or the same host when the entry has no port.
func hostAllowed(allowed []string, hostport string) bool {
	host := hostOnly(hostport)
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, hostport) {
			return true
		}
		if entryHost := hostOnly(a); entryHost == strings.Trim(a, "[]") && strings.EqualFold(entryHost, host) {
			return true // the entry has no port
		}
	}
	return false
}

// arrivedOnLoopback reports whether the request came in on a loopback address (or a
// Unix socket), which is what "the server is bound to loopback" means per connection:
// a server listening on all interfaces is reached on loopback only by local clients.
// Without a local address (a handler called directly), the Host header decides.
func arrivedOnLoopback(r *http.Request) bool {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		ip, ok := netip.AddrFromSlice(a.IP)
		return ok && ip.Unmap().IsLoopback()
	case *net.UnixAddr:
		return true
	case net.Addr:
		host, _, err := net.SplitHostPort(a.String())
		return err == nil && isLoopbackHost(host)
	default:
		return r.Host != "" && isLoopbackHost(hostOnly(r.Host))
	}
}
