package resource

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The verification of a compact JWS access token, by hand, for the common shape:
// a protected header with alg ES256, RS256 or EdDSA, a string kid and typ, and
// any members that only carry information. It allocates a fraction of what
// go-jose's general parser does (about 25 allocations against 127 for an ES256
// token). Anything else — another algorithm, a header member go-jose would
// interpret (crit, b64, jwk, x5c, nonce), an escaped or repeated name, a header
// that is not a plain object, a large header or signature — is left to go-jose
// (errUseJOSE), so that both paths accept exactly the same tokens; the
// differential fuzz test FuzzVerifyDifferential holds them to that. The one
// deliberate difference: a token that is not canonical base64url (stray bits in
// a part's last character, or characters such as line breaks that go-jose's
// decoder skips before it checks the signature over its own re-encoding) is
// refused here.

// errUseJOSE says that a token is not of the shape the hand-written path
// handles: go-jose decides.
var errUseJOSE = errors.New("resource: not a common JWS shape")

// Bounds of the stack buffers: a larger header or signature goes to go-jose.
const (
	maxFastHeader    = 512
	maxFastSignature = 512 // an RSA-4096 signature
)

// b64 decodes unpadded base64url and refuses non-canonical encodings.
var b64 = base64.RawURLEncoding.Strict()

// verifyFast verifies token if it has the common shape, and returns errUseJOSE
// otherwise.
func (v *JWTVerifier) verifyFast(ctx context.Context, token string, now time.Time) (*TokenInfo, error) {
	// Only the base64url alphabet and the dots: the decoder would skip line
	// breaks, and the signing input is the token's own text.
	for i := 0; i < len(token); i++ {
		if c := token[i]; !isBase64URL(c) && c != '.' {
			return nil, fmt.Errorf("%w: not a compact JWS", ErrInvalidToken)
		}
	}
	dot1 := strings.IndexByte(token, '.')
	if dot1 < 0 {
		return nil, errUseJOSE
	}
	dot2 := strings.IndexByte(token[dot1+1:], '.')
	if dot2 < 0 {
		return nil, errUseJOSE
	}
	dot2 += dot1 + 1
	if strings.IndexByte(token[dot2+1:], '.') >= 0 ||
		b64.DecodedLen(dot1) > maxFastHeader || b64.DecodedLen(len(token)-dot2-1) > maxFastSignature {
		return nil, errUseJOSE
	}
	// One copy of the token: the parts are decoded from it and its first two
	// are the signing input.
	tb := []byte(token)
	rawHeader, rawPayload, rawSig := tb[:dot1], tb[dot1+1:dot2], tb[dot2+1:]
	var hbuf [maxFastHeader]byte
	n, err := b64.Decode(hbuf[:], rawHeader)
	if err != nil {
		return nil, invalid("the header is not base64url", err)
	}
	h, ok := parseHeader(hbuf[:n])
	if !ok {
		return nil, errUseJOSE
	}
	alg := string(h.alg) // compared as constants below: no allocation
	if alg != "ES256" && alg != "RS256" && alg != "EdDSA" {
		return nil, errUseJOSE
	}
	if err := checkType(string(h.typ)); err != nil {
		return nil, err
	}
	payload := make([]byte, b64.DecodedLen(len(rawPayload)))
	if n, err = b64.Decode(payload, rawPayload); err != nil {
		return nil, invalid("the payload is not base64url", err)
	}
	payload = payload[:n]
	var sbuf [maxFastSignature]byte
	if n, err = b64.Decode(sbuf[:], rawSig); err != nil {
		return nil, invalid("the signature is not base64url", err)
	}
	sig := sbuf[:n]
	pub, err := v.keys.key(ctx, string(h.kid))
	if err != nil {
		return nil, invalid(errNoKey, err)
	}
	if !verifySignature(alg, pub, tb[:dot2], sig) {
		return nil, fmt.Errorf("%w: bad signature", ErrInvalidToken)
	}
	var c claims
	ok = false
	if json.Valid(payload) {
		c, ok = parseClaims(string(payload))
	}
	if !ok {
		if c, err = decodeClaims(payload); err != nil {
			return nil, err
		}
	}
	return v.check(&c, now)
}

func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// verifySignature checks sig over the JWS signing input with pub for alg
// (ES256, RS256 or EdDSA); a key of another type or curve never verifies.
func verifySignature(alg string, pub any, input, sig []byte) bool {
	switch alg {
	case "ES256":
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok || k.Curve != elliptic.P256() || len(sig) != 64 {
			return false
		}
		sum := sha256.Sum256(input)
		var der [72]byte
		return ecdsa.VerifyASN1(k, sum[:], derSignature(der[:0], sig[:32], sig[32:]))
	case "RS256":
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return false
		}
		sum := sha256.Sum256(input)
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) == nil
	case "EdDSA":
		k, ok := pub.(ed25519.PublicKey)
		return ok && ed25519.Verify(k, input, sig)
	}
	return false
}

// derSignature appends the ASN.1 DER form of an ECDSA signature (a SEQUENCE of
// two INTEGERs) of the unsigned big-endian r and s, each at most 32 bytes, to
// dst (at most 72 bytes).
func derSignature(dst, r, s []byte) []byte {
	r, s = trimZeros(r), trimZeros(s)
	dst = append(dst, 0x30, byte(4+derIntLen(r)+derIntLen(s)))
	return appendDERInt(appendDERInt(dst, r), s)
}

// trimZeros drops leading zero bytes, keeping one for zero.
func trimZeros(b []byte) []byte {
	for len(b) > 1 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// derIntLen is the length of the INTEGER content of the unsigned b: a zero byte
// goes before a high bit.
func derIntLen(b []byte) int {
	if b[0]&0x80 != 0 {
		return len(b) + 1
	}
	return len(b)
}

func appendDERInt(dst, b []byte) []byte {
	dst = append(dst, 0x02, byte(derIntLen(b)))
	if b[0]&0x80 != 0 {
		dst = append(dst, 0)
	}
	return append(dst, b...)
}

// checkType accepts the JWT types of access tokens: none, at+jwt (RFC 9068)
// and JWT.
func checkType(typ string) error {
	if typ != "" && !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") && !strings.EqualFold(typ, "JWT") {
		return fmt.Errorf("%w: token type %q", ErrInvalidToken, typ)
	}
	return nil
}

// joseHeader is what the hand-written path reads of a protected header.
type joseHeader struct {
	alg, kid, typ []byte
}

// parseHeader reads a protected header that is a JSON object of the common
// shape. ok is false for anything go-jose must decide: invalid JSON, not an
// object, a member it interprets (crit, b64, jwk, x5c, nonce), a name with an
// escape, alg, kid or typ repeated or not a string without escapes, no alg.
func parseHeader(b []byte) (h joseHeader, ok bool) {
	if !json.Valid(b) {
		return h, false
	}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return h, false
	}
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return h, false // no alg
	}
	var seen [3]bool
	for {
		// b is valid JSON: a member name (a string) starts here.
		name, next, plain := jsonString(b, i)
		if !plain {
			return h, false
		}
		i = skipSpace(b, skipSpace(b, next)+1) // past the colon
		field := -1
		switch string(name) {
		case "alg":
			field = 0
		case "kid":
			field = 1
		case "typ":
			field = 2
		case "crit", "b64", "jwk", "x5c", "nonce":
			return h, false
		}
		if field >= 0 {
			if seen[field] || b[i] != '"' {
				return h, false
			}
			seen[field] = true
			val, next, plain := jsonString(b, i)
			if !plain {
				return h, false
			}
			switch field {
			case 0:
				h.alg = val
			case 1:
				h.kid = val
			case 2:
				h.typ = val
			}
			i = next
		} else {
			i = skipValue(b, i)
		}
		i = skipSpace(b, i)
		if b[i] == '}' {
			return h, seen[0]
		}
		i = skipSpace(b, i+1) // past the comma
	}
}
