package streamable

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// checkRequestOrigin applies the DNS-rebinding defences: the Host header, then the
// Origin header (see HandlerOptions.AllowedHosts and AllowedOrigins). It returns 0
// when the request may proceed, or 403 and the reason.
func (h *Handler) checkRequestOrigin(r *http.Request) (int, string) {
	loopback := -1 // unknown until needed: -1, 0 or 1
	isLoopback := func() bool {
		if loopback < 0 {
			loopback = 0
			if servedOnLoopback(r) {
				loopback = 1
			}
		}
		return loopback == 1
	}
	if len(h.hosts) > 0 {
		if !hostListed(h.hosts, r.Host) {
			return http.StatusForbidden, "forbidden: host " + quote(r.Host) + " is not allowed"
		}
	} else if r.Host != "" && isLoopback() && !isLoopbackHost(r.Host) {
		return http.StatusForbidden, "forbidden: host " + quote(r.Host) + " is not a loopback host"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return 0, ""
	}
	for _, o := range h.origins {
		if o == "*" || strings.EqualFold(o, origin) {
			return 0, ""
		}
	}
	if isLoopback() && isLoopbackOrigin(origin) {
		return 0, ""
	}
	return http.StatusForbidden, "forbidden: origin " + quote(origin) + " is not allowed"
}

func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max]
	}
	return "\"" + strings.ToValidUTF8(s, "\uFFFD") + "\""
}

// servedOnLoopback reports whether the request came in on a loopback address: the
// local address net/http records in the request's context (a Unix socket counts as
// loopback). Without one (a handler called directly), the Host header decides.
func servedOnLoopback(r *http.Request) bool {
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
	return isLoopbackHost(r.Host)
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

// isLoopbackHost reports whether a Host header names the local machine: localhost
// (or a name under .localhost), or a loopback IP address.
func isLoopbackHost(hostport string) bool {
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
	return isLoopbackHost(rest)
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

// acceptsMedia reports whether an Accept header allows the media type typ
// ("type/subtype"), directly or through a wildcard, with a non-zero quality.
func acceptsMedia(accept []string, typ string) bool {
	slash := strings.IndexByte(typ, '/')
	for _, line := range accept {
		for len(line) > 0 {
			var item string
			item, line, _ = strings.Cut(line, ",")
			mt, params, _ := strings.Cut(item, ";")
			mt = strings.TrimSpace(mt)
			if !(mt == "*/*" || strings.EqualFold(mt, typ) ||
				(strings.HasSuffix(mt, "/*") && strings.EqualFold(mt[:len(mt)-1], typ[:slash+1]))) {
				continue
			}
			if qualityZero(params) {
				continue
			}
			return true
		}
	}
	return false
}

// qualityZero reports whether media-type parameters hold q=0.
func qualityZero(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			v = strings.TrimRight(strings.TrimSpace(v), "0")
			return v == "0" || v == "0." || v == ""
		}
	}
	return false
}

// isJSONContentType reports whether a Content-Type header is application/json,
// parameters (charset) allowed.
func isJSONContentType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}
