package resource

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpkit/mcpkit/auth"
)

// MetadataPath is the path of the Protected Resource Metadata of the resource
// at resourceURL: /.well-known/oauth-protected-resource followed by the
// resource's path (RFC 9728 §3.1).
func MetadataPath(resourceURL string) (string, error) {
	u, err := url.Parse(resourceURL)
	if err != nil {
		return "", fmt.Errorf("resource: %w", err)
	}
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// MetadataURL is the absolute URL of the Protected Resource Metadata of the
// resource at resourceURL.
func MetadataURL(resourceURL string) (string, error) {
	u, err := url.Parse(resourceURL)
	if err != nil {
		return "", fmt.Errorf("resource: %w", err)
	}
	p, err := MetadataPath(resourceURL)
	if err != nil {
		return "", err
	}
	return u.Scheme + "://" + u.Host + p, nil
}

// MetadataHandler serves the Protected Resource Metadata md as JSON to GET (and
// HEAD) requests, readable from any origin (CORS), as RFC 9728 intends for
// browser-based clients.
func MetadataHandler(md *auth.ProtectedResourceMetadata) http.Handler {
	body, err := json.Marshal(md)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodGet, http.MethodHead:
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if err != nil {
			http.Error(w, "metadata unavailable", http.StatusInternalServerError)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "max-age=300")
		_, _ = w.Write(body)
	})
}
