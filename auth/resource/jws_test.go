package resource

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// The hand-written verification (verifyFast) against go-jose's (verifyJOSE):
// same verdict, same TokenInfo, for every token the fast path does not hand
// over to go-jose.

// testNow is the verification time of these tests; testAudience the resource.
var testNow = time.Unix(1_800_000_000, 0)

const (
	testIssuer   = "https://as.example"
	testAudience = "https://mcp.example/mcp"
)

// testKey signs tokens: a JWS algorithm and a private key, published under kid.
type testKey struct {
	kid, alg string
	key      crypto.Signer
}

var (
	keysOnce sync.Once
	keys     []testKey
)

// testKeys returns one key per algorithm family (P-256, RSA, Ed25519, and P-384
// for an algorithm only go-jose handles here), generated once.
func testKeys(tb testing.TB) []testKey {
	keysOnce.Do(func() {
		ec, err1 := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		rk, err2 := rsa.GenerateKey(rand.Reader, 2048)
		_, ed, err3 := ed25519.GenerateKey(rand.Reader)
		ec384, err4 := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			panic(err)
		}
		keys = []testKey{{"ec", "ES256", ec}, {"rsa", "RS256", rk}, {"ed", "EdDSA", ed}, {"ec384", "ES384", ec384}}
	})
	return keys
}

// newTestVerifier is a verifier whose key set holds the test keys, never
// fetched (an unknown kid fails without a request).
func newTestVerifier(tb testing.TB) *JWTVerifier {
	v := &JWTVerifier{Issuer: testIssuer, Audience: testAudience, JWKSURL: "http://127.0.0.1:1/jwks", MinRefetch: time.Hour, CacheSize: -1}
	v.init()
	v.keys.keys = map[string]any{}
	for _, k := range testKeys(tb) {
		v.keys.keys[k.kid] = k.key.Public()
	}
	v.keys.fetched, v.keys.tried = time.Now(), time.Now()
	return v
}

// sign makes a compact JWS of header and payload with k (whatever header says).
func sign(tb testing.TB, k testKey, header, payload []byte) string {
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	var sig []byte
	var err error
	switch k.alg {
	case "ES256", "ES384":
		var sum []byte
		size := 32
		if k.alg == "ES256" {
			s := sha256.Sum256([]byte(input))
			sum = s[:]
		} else {
			s := sha512.Sum384([]byte(input))
			sum, size = s[:], 48
		}
		r, s, serr := ecdsa.Sign(rand.Reader, k.key.(*ecdsa.PrivateKey), sum)
		if err = serr; err == nil {
			sig = make([]byte, 2*size)
			r.FillBytes(sig[:size])
			s.FillBytes(sig[size:])
		}
	case "RS256":
		sum := sha256.Sum256([]byte(input))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k.key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
	case "EdDSA":
		sig = ed25519.Sign(k.key.(ed25519.PrivateKey), []byte(input))
	}
	if err != nil {
		tb.Fatal(err)
	}
	return input + "." + enc.EncodeToString(sig)
}

const goodClaims = `{"iss":"https://as.example","sub":"alice","aud":"https://mcp.example/mcp","client_id":"app","exp":1800003600,"iat":1800000000,"scope":"mcp:read mcp:write","jti":"j1"}`

// compare runs both paths on token and fails on a disagreement. It returns
// whether the fast path decided (rather than handing over to go-jose) and its
// error.
func compare(t testing.TB, v *JWTVerifier, token string) (bool, error) {
	fast, fastErr := v.verifyFast(t.Context(), token, testNow)
	if errors.Is(fastErr, errUseJOSE) {
		return false, nil
	}
	slow, slowErr := v.verifyJOSE(t.Context(), token, testNow)
	if !canonical(token) {
		if fastErr == nil {
			t.Fatalf("the fast path accepted a non-canonical token %q", token)
		}
		return true, fastErr
	}
	if (fastErr == nil) != (slowErr == nil) {
		t.Fatalf("token %q:\n\tfast: %v\n\tgo-jose: %v", token, fastErr, slowErr)
	}
	if fastErr == nil && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("token %q:\n\tfast: %+v\n\tgo-jose: %+v", token, fast, slow)
	}
	return true, fastErr
}

// canonical reports whether token is three parts of canonical base64url.
func canonical(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return true // go-jose refuses it as well
	}
	for _, p := range parts {
		if strings.ContainsFunc(p, func(r rune) bool { return r > 0x7f || !isBase64URL(byte(r)) }) {
			return false
		}
		if _, err := b64.DecodeString(p); err != nil {
			if _, lenient := base64.RawURLEncoding.DecodeString(p); lenient == nil {
				return false
			}
		}
	}
	return true
}

func TestVerifyFastAgreesWithJOSE(t *testing.T) {
	v := newTestVerifier(t)
	ks := testKeys(t)
	tests := []struct {
		name           string
		key            int
		header, claims string
		fast           bool // decided by the fast path
		ok             bool
	}{
		{"ES256", 0, `{"alg":"ES256","kid":"ec","typ":"at+jwt"}`, goodClaims, true, true},
		{"RS256", 1, `{"alg":"RS256","kid":"rsa"}`, goodClaims, true, true},
		{"EdDSA", 2, `{"alg":"EdDSA","kid":"ed","typ":"JWT"}`, goodClaims, true, true},
		{"ES384 is go-jose's", 3, `{"alg":"ES384","kid":"ec384"}`, goodClaims, false, true},
		{"spaces and extra members", 0, " { \"x5t\" : \"abc\", \"alg\" : \"ES256\" ,\n\"kid\":\"ec\", \"ext\":{\"a\":[1,2.5e3,{\"b\":\"c\\\"}\"}],\"n\":null}}", goodClaims, true, true},
		{"aud array and scp", 0, `{"alg":"ES256","kid":"ec"}`, `{"iss":"https://as.example","aud":["x","https://mcp.example/mcp/"],"exp":1.8000036e9,"scp":["a","b"],"azp":"app2"}`, true, true},
		{"wrong key for alg", 1, `{"alg":"ES256","kid":"ec"}`, goodClaims, true, false},
		{"alg and key mismatch", 0, `{"alg":"ES256","kid":"rsa"}`, goodClaims, true, false},
		{"wrong typ", 0, `{"alg":"ES256","kid":"ec","typ":"dpop+jwt"}`, goodClaims, true, false},
		{"unknown kid", 0, `{"alg":"ES256","kid":"nope"}`, goodClaims, true, false},
		{"expired", 0, `{"alg":"ES256","kid":"ec"}`, strings.Replace(goodClaims, "1800003600", "1700000000", 1), true, false},
		{"other audience", 0, `{"alg":"ES256","kid":"ec"}`, strings.Replace(goodClaims, "mcp.example/mcp", "other.example", 1), true, false},
		{"ISS is encoding/json's", 0, `{"alg":"ES256","kid":"ec"}`, `{"ISS":"https://as.example","aud":"https://mcp.example/mcp","exp":1800003600}`, true, true},
		{"escaped claim", 0, `{"alg":"ES256","kid":"ec"}`, `{"iss":"https:\/\/as.example","aud":"https://mcp.example/mcp","exp":1800003600}`, true, true},
		{"exp as a string", 0, `{"alg":"ES256","kid":"ec"}`, `{"iss":"https://as.example","aud":"https://mcp.example/mcp","exp":"1800003600"}`, true, false},
		{"cnf", 0, `{"alg":"ES256","kid":"ec"}`, `{"iss":"https://as.example","aud":"https://mcp.example/mcp","exp":1800003600,"cnf":{"jkt":"t"}}`, true, true},
		{"crit", 0, `{"alg":"ES256","kid":"ec","crit":["b64"],"b64":false}`, goodClaims, false, false},
		{"b64 true", 0, `{"alg":"ES256","kid":"ec","b64":true}`, goodClaims, false, true},
		{"duplicate alg", 0, `{"alg":"ES256","alg":"none","kid":"ec"}`, goodClaims, false, false},
		{"escaped name", 0, `{"\u0061lg":"ES256","kid":"ec"}`, goodClaims, false, true},
		{"kid null", 0, `{"alg":"ES256","kid":null}`, goodClaims, false, false},
		{"HS256", 0, `{"alg":"HS256","kid":"ec"}`, goodClaims, false, false},
		{"not an object", 0, `["alg"]`, goodClaims, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := sign(t, ks[tt.key], []byte(tt.header), []byte(tt.claims))
			fast, err := compare(t, v, tok)
			if fast != tt.fast {
				t.Errorf("decided by the fast path: %v, want %v", fast, tt.fast)
			}
			if _, err = v.verify(t.Context(), tok, testNow); (err == nil) != tt.ok {
				t.Errorf("verify: %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// Tokens that go-jose accepts although they are not what was signed — a line
// break its decoder skips, stray bits in a last character — are refused.
func TestVerifyFastRefusesNonCanonicalTokens(t *testing.T) {
	v := newTestVerifier(t)
	tok := sign(t, testKeys(t)[0], []byte(`{"alg":"ES256","kid":"ec"}`), []byte(goodClaims))
	if _, err := v.verify(t.Context(), tok, testNow); err != nil {
		t.Fatal(err)
	}
	dot := strings.IndexByte(tok, '.')
	broken := tok[:dot/2] + "\n" + tok[dot/2:]
	if _, err := v.verifyJOSE(t.Context(), broken, testNow); err != nil {
		t.Fatalf("go-jose no longer skips the line break (%v): this test needs another example", err)
	}
	if _, err := v.verify(t.Context(), broken, testNow); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("a token with a line break: %v, want ErrInvalidToken", err)
	}
}

// FuzzVerifyDifferential signs arbitrary headers and claims with one of the
// test keys (whatever alg the header names), optionally damages one byte, and
// requires the two verifications to agree wherever the fast path decides.
func FuzzVerifyDifferential(f *testing.F) {
	headers := []string{
		`{"alg":"ES256","kid":"ec","typ":"at+jwt"}`, `{"alg":"RS256","kid":"rsa"}`, `{"alg":"EdDSA","kid":"ed"}`,
		`{"alg":"ES384","kid":"ec384"}`, `{"alg":"ES256","kid":"ec","crit":["b64"],"b64":false}`,
		`{"alg":"ES256","kid":"ec","x5t":"a","e":[{"k":"\"]"}]}`, `{"alg":"ES256","alg":"ES256","kid":"ec"}`,
		` {"kid" :"ec","alg":"ES256" } `, `{"alg":"ES256","kid":"ec","jwk":{"kty":"EC"}}`, `{"alg":"ES256"}`,
	}
	claimSets := []string{
		goodClaims,
		`{"iss":"https://as.example","aud":["https://mcp.example/mcp"],"exp":1.8e9,"nbf":1,"scp":["x"]}`,
		`{"iss":"https://as.example","Aud":"https://mcp.example/mcp","exp":1800003600,"sub":"\u00e9"}`,
		`{"iss":"https://as.example","aud":"https://mcp.example/mcp","exp":1800003600,"cnf":{"jkt":"x"},"azp":"a"}`,
		`{"iss":"https://as.example","aud":null,"exp":-0,"scope":""}`,
	}
	for i, h := range headers {
		for j, c := range claimSets {
			f.Add([]byte(h), []byte(c), uint8(i+j), uint16(0))
		}
	}
	f.Add([]byte(headers[0]), []byte(goodClaims), uint8(0), uint16(17))
	v := newTestVerifier(f)
	ks := testKeys(f)
	f.Fuzz(func(t *testing.T, header, payload []byte, key uint8, damage uint16) {
		tok := sign(t, ks[int(key)%len(ks)], header, payload)
		if damage != 0 {
			b := []byte(tok)
			b[int(damage)%len(b)] ^= byte(damage >> 8)
			tok = string(b)
		}
		_, _ = compare(t, v, tok)
	})
}

// FuzzClaimsDifferential requires the hand-written claims decoder to agree
// with encoding/json on every payload it does not hand over.
func FuzzClaimsDifferential(f *testing.F) {
	for _, s := range []string{
		goodClaims, `{}`, `{"aud":[]}`, `{"aud":["a" , "b"],"scp":[],"exp":-1.5e3}`, `{"iss":"a","iss":"b"}`,
		`{"Iss":"x"}`, `{"iss":"\u00e9"}`, `{"x":{"iss":"y"},"iss":"z"}`, `{"exp":1e400}`, `{"nbf":null}`, `[1]`, `{"k\u212aid":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		if !json.Valid(payload) {
			return
		}
		fast, ok := parseClaims(string(payload))
		if !ok {
			return
		}
		slow, err := decodeClaims(payload)
		if err != nil {
			t.Fatalf("%q: the hand-written decoder accepted what encoding/json refuses: %v", payload, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\n\tby hand: %+v\n\tencoding/json: %+v", payload, fast, slow)
		}
	})
}

// BenchmarkVerifyPaths compares the two verifications of a token not seen
// before, per algorithm.
func BenchmarkVerifyPaths(b *testing.B) {
	v := newTestVerifier(b)
	for _, k := range testKeys(b) {
		tok := sign(b, k, []byte(`{"alg":"`+k.alg+`","kid":"`+k.kid+`","typ":"at+jwt"}`), []byte(goodClaims))
		for _, path := range []struct {
			name string
			f    func(context.Context, string, time.Time) (*TokenInfo, error)
		}{{"hand", v.verify}, {"go-jose", v.verifyJOSE}} {
			b.Run(k.alg+"/"+path.name, func(b *testing.B) {
				b.ReportAllocs()
				testkit.LoopCPU(b, func() {
					if _, err := path.f(b.Context(), tok, testNow); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
