package wire

import (
	"net/url"
	"strings"
)

// JoinURL returns the URL of an endpoint at path under base: path is added
// to base's path (after its trailing slashes, and after strip when base's
// path ends with it), base's query and fragment kept where they belong, so
// that "http://h/v1?key=X" and "/chat/completions" give
// "http://h/v1/chat/completions?key=X". A base that does not parse is
// joined as text (the request then fails saying why).
func JoinURL(base, strip, path string) string {
	u, err := url.Parse(base)
	if err != nil {
		return strings.TrimSuffix(strings.TrimRight(base, "/"), strip) + path
	}
	join := func(p string) string {
		p = strings.TrimRight(p, "/")
		if strip != "" {
			p = strings.TrimSuffix(p, strip)
		}
		return p + path
	}
	if u.RawPath != "" {
		u.RawPath = join(u.RawPath)
	}
	u.Path = join(u.Path)
	return u.String()
}
