package streamable

import "strings"

// quote quotes a header value for an error message, cut to a readable length and
// made valid UTF-8.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max]
	}
	return "\"" + strings.ToValidUTF8(s, "\uFFFD") + "\""
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
