package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// docServer serves JSON documents by path (with {origin} replaced by its URL)
// and records every path requested.
type docServer struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]string
	seen []string
}

func newDocServer(t *testing.T, docs map[string]string) *docServer {
	d := &docServer{docs: docs}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.seen = append(d.seen, r.URL.Path)
		doc, ok := d.docs[r.URL.Path]
		d.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.ReplaceAll(doc, "{origin}", d.URL)))
	}))
	t.Cleanup(d.Close)
	return d
}

func (d *docServer) paths() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.seen)
}

func TestDiscoverOrders(t *testing.T) {
	const asDoc = `{"issuer":"{origin}/tenant1","authorization_endpoint":"{origin}/tenant1/authorize","token_endpoint":"{origin}/tenant1/token","code_challenge_methods_supported":["S256"]}`
	tests := []struct {
		name       string
		rsDocs     map[string]string
		asDocs     map[string]string
		challenge  string // resource_metadata, relative to the RS
		wantRS     []string
		wantAS     []string
		wantResErr error
		resource   string
	}{{
		name:      "from the challenge; never the root",
		rsDocs:    map[string]string{"/custom.json": `{"resource":"{origin}/mcp","authorization_servers":["AS/tenant1"]}`},
		asDocs:    map[string]string{"/tenant1/.well-known/openid-configuration": asDoc},
		challenge: "/custom.json",
		wantRS:    []string{"/custom.json"},
		wantAS:    []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"},
	}, {
		name:      "path form, after a failing challenge URL",
		rsDocs:    map[string]string{"/.well-known/oauth-protected-resource/mcp": `{"resource":"{origin}/mcp","authorization_servers":["AS/tenant1"]}`},
		asDocs:    map[string]string{"/.well-known/oauth-authorization-server/tenant1": asDoc},
		challenge: "/gone.json",
		wantRS:    []string{"/gone.json", "/.well-known/oauth-protected-resource/mcp"},
		wantAS:    []string{"/.well-known/oauth-authorization-server/tenant1"},
	}, {
		name:     "root form; its resource is sent verbatim",
		rsDocs:   map[string]string{"/.well-known/oauth-protected-resource": `{"resource":"{origin}","authorization_servers":["AS/tenant1"]}`},
		asDocs:   map[string]string{"/.well-known/openid-configuration/tenant1": asDoc},
		wantRS:   []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
		wantAS:   []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"},
		resource: "RS",
	}, {
		name:       "a resource elsewhere is refused before any authorization server request",
		rsDocs:     map[string]string{"/.well-known/oauth-protected-resource/mcp": `{"resource":"https://evil.example.com/mcp","authorization_servers":["AS/tenant1"]}`},
		wantRS:     []string{"/.well-known/oauth-protected-resource/mcp"},
		wantResErr: ErrResourceMismatch,
	}, {
		name:       "metadata naming another issuer is not used",
		rsDocs:     map[string]string{"/.well-known/oauth-protected-resource/mcp": `{"resource":"{origin}/mcp","authorization_servers":["AS/tenant1"]}`},
		asDocs:     map[string]string{"/.well-known/oauth-authorization-server/tenant1": `{"issuer":"https://attacker.example.com","token_endpoint":"{origin}/x"}`},
		wantRS:     []string{"/.well-known/oauth-protected-resource/mcp"},
		wantAS:     []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"},
		wantResErr: ErrIssuerMismatch,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newDocServer(t, tt.asDocs)
			for k, v := range tt.rsDocs {
				tt.rsDocs[k] = strings.ReplaceAll(v, "AS", as.URL)
			}
			rs := newDocServer(t, tt.rsDocs)
			var ch Challenge
			if tt.challenge != "" {
				ch = Challenge{Scheme: "Bearer", Params: map[string]string{"resource_metadata": rs.URL + tt.challenge}}
			}
			d, err := Discover(t.Context(), rs.Client(), rs.URL+"/mcp", ch)
			if tt.wantResErr != nil {
				if !errors.Is(err, tt.wantResErr) {
					t.Fatalf("Discover error = %v, want %v", err, tt.wantResErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := rs.paths(); !slices.Equal(got, tt.wantRS) {
				t.Errorf("resource server paths = %v, want %v", got, tt.wantRS)
			}
			if got := as.paths(); !slices.Equal(got, tt.wantAS) {
				t.Errorf("authorization server paths = %v, want %v", got, tt.wantAS)
			}
			if err == nil {
				want := rs.URL + "/mcp"
				if tt.resource == "RS" {
					want = rs.URL
				}
				if d.Resource != want || d.Legacy || d.Server.Issuer != as.URL+"/tenant1" {
					t.Errorf("discovery = resource %q legacy %v issuer %q", d.Resource, d.Legacy, d.Server.Issuer)
				}
			}
		})
	}
}

// Without Protected Resource Metadata, the 2025-03-26 rules apply: the origin's
// metadata is used whatever issuer it names, and without it the default
// endpoints.
func TestDiscoverLegacy(t *testing.T) {
	rs := newDocServer(t, map[string]string{"/.well-known/oauth-authorization-server": `{"issuer":"{origin}/oauth","authorization_endpoint":"{origin}/oauth/authorize","token_endpoint":"{origin}/oauth/token"}`})
	d, err := Discover(t.Context(), rs.Client(), rs.URL+"/mcp", Challenge{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Legacy || !d.ServerMetadataFound || d.Server.TokenEndpoint != rs.URL+"/oauth/token" || d.Resource != rs.URL+"/mcp" {
		t.Errorf("legacy discovery with metadata = %+v %+v", d, d.Server)
	}
	bare := newDocServer(t, nil)
	d, err = Discover(t.Context(), bare.Client(), bare.URL+"/mcp", Challenge{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Legacy || d.ServerMetadataFound || d.Server.AuthorizationEndpoint != bare.URL+"/authorize" || d.Server.TokenEndpoint != bare.URL+"/token" || d.Server.RegistrationEndpoint != bare.URL+"/register" {
		t.Errorf("legacy discovery without metadata = %+v", d.Server)
	}
	want := []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"}
	if got := bare.paths(); !slices.Equal(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
}
