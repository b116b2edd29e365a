package resource

import (
	"testing"
	"time"
)

// FuzzCheckDPoPProof checks DPoP proofs of any content (the DPoP header is
// the client's): CheckDPoPProof must never panic, and a proof it accepts
// names the request's method and URL.
func FuzzCheckDPoPProof(f *testing.F) {
	for _, s := range []string{
		"eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwiY3J2IjoiUC0yNTYiLCJ4IjoiQUEiLCJ5IjoiQUEifX0.eyJodG0iOiJQT1NUIiwiaHR1IjoiaHR0cDovLzEyNy4wLjAuMToxL21jcCIsImlhdCI6MCwianRpIjoiYSJ9.AA",
		"e30.e30.", "..", "a.b.c.d", "",
	} {
		f.Add(s, "tok")
	}
	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, proof, token string) {
		p, err := CheckDPoPProof(proof, "POST", "http://127.0.0.1:1/mcp", token, now, time.Minute)
		if err == nil && p == nil {
			t.Fatalf("accepted %q with no proof returned", proof)
		}
	})
}
