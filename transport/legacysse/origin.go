package legacysse

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// originAllowed applies the Origin rule documented on HandlerOptions.AllowedOrigins.
func (h *Handler) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || h.anyOrigin {
		return true
	}
	if _, ok := h.origins[normalizeOrigin(origin)]; ok {
		return true
	}
	return isLoopbackOrigin(origin) && arrivedOnLoopback(r)
}

// normalizeOrigin lowercases an origin and drops a trailing slash, so that
// "HTTPS://App.example.com/" matches "https://app.example.com".
func normalizeOrigin(origin string) string {
	return strings.ToLower(strings.TrimRight(origin, "/"))
}

// isLoopbackOrigin reports whether origin is an http or https origin on a loopback
// host: localhost (or a name under .localhost), 127.0.0.0/8 or ::1.
func isLoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	host = strings.ToLower(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// arrivedOnLoopback reports whether the request came in on a loopback address (or a
// Unix socket), which is what "the server is bound to loopback" means per connection:
// a server listening on all interfaces is reached on loopback only by local clients.
func arrivedOnLoopback(r *http.Request) bool {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		ip, ok := netip.AddrFromSlice(a.IP)
		return ok && ip.Unmap().IsLoopback()
	case *net.UnixAddr:
		return true
	default:
		return false
	}
}
