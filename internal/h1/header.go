package h1

// The header names and values most responses carry, as constant strings: a
// response made of them allocates no string for its header. Names match in any
// case (Node servers send them in lower case) and come out canonical.
var commonKeys = [...]string{
	"Access-Control-Allow-Origin",
	"Access-Control-Expose-Headers",
	"Cache-Control",
	"Connection",
	"Content-Encoding",
	"Content-Length",
	"Content-Type",
	"Date",
	"Etag",
	"Keep-Alive",
	"Last-Event-Id",
	"Last-Modified",
	"Location",
	"Mcp-Protocol-Version",
	"Mcp-Session-Id",
	"Retry-After",
	"Server",
	"Set-Cookie",
	"Strict-Transport-Security",
	"Transfer-Encoding",
	"Vary",
	"Www-Authenticate",
	"X-Accel-Buffering",
	"X-Content-Type-Options",
	"X-Powered-By",
}

var commonValues = [...]string{
	"*",
	"0",
	"Accept-Encoding",
	"Express",
	"Origin",
	"application/json",
	"application/json; charset=utf-8",
	"chunked",
	"close",
	"keep-alive",
	"no",
	"no-cache",
	"no-cache, no-transform",
	"no-store",
	"nosniff",
	"text/event-stream",
	"text/plain; charset=utf-8",
	"timeout=5",
}

// internKey returns the canonical constant for a common header name, or "".
func internKey(k []byte) string {
	for _, c := range commonKeys {
		if asciiEqualFold(k, c) {
			return c
		}
	}
	return ""
}

// internValue returns the constant equal to v, or "".
func internValue(v []byte) string {
	for _, c := range commonValues {
		if string(v) == c {
			return c
		}
	}
	return ""
}

// validKey reports whether k is an RFC 9110 token.
func validKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for _, c := range k {
		if !isTokenChar(c) {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// validValue reports whether v holds no control byte other than a tab.
func validValue(v []byte) bool {
	for _, c := range v {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// validValueString is validValue for a request header's value.
func validValueString(v string) bool {
	for i := range len(v) {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// validKeyString is validKey for a request header's name.
func validKeyString(k string) bool {
	if k == "" {
		return false
	}
	for i := range len(k) {
		if !isTokenChar(k[i]) {
			return false
		}
	}
	return true
}

// appendCanonical appends the canonical form of the token k, as
// textproto.CanonicalMIMEHeaderKey writes it: upper case first and after each
// hyphen, lower case elsewhere.
func appendCanonical(dst, k []byte) []byte {
	upper := true
	for _, c := range k {
		switch {
		case upper && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		case !upper && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
		upper = c == '-'
	}
	return dst
}

// asciiEqualFold reports whether b equals s, ignoring ASCII case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
