package requeststate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

func TestSealOpenRoundTrip(t *testing.T) {
	kr := newTestKeyring(t)
	b := mustBinding(t, "tools/call", "book_flight", `{"from":"AMS","to":"NRT"}`, "user-42")
	for _, payload := range [][]byte{{}, []byte("x"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 1000), make([]byte, MaxPayload)} {
		state, err := kr.Seal(b, payload, time.Minute)
		if err != nil {
			t.Fatalf("Seal(%d bytes): %v", len(payload), err)
		}
		if strings.ContainsAny(state, "+/=") || len(state) > MaxStateLen {
			t.Fatalf("state is not unpadded URL-safe base64 within MaxStateLen (len %d)", len(state))
		}
		got, err := kr.Open(b, state)
		if err != nil {
			t.Fatalf("Open(%d bytes): %v", len(payload), err)
		}
		if !bytes.Equal(got, payload) {
			t.Fatalf("Open returned %d bytes, want %d", len(got), len(payload))
		}
	}
}

func TestSealIsRandomised(t *testing.T) {
	kr := newTestKeyring(t)
	b := mustBinding(t, "tools/call", "t", "", "")
	a, c := mustSeal(t, kr, b, "same", 0), mustSeal(t, kr, b, "same", 0)
	if a == c {
		t.Fatal("two seals of the same payload are identical: nonce reused")
	}
	if strings.Contains(a, "same") {
		t.Fatal("payload visible in the state")
	}
}

func TestSealRejectsBadInput(t *testing.T) {
	kr := newTestKeyring(t)
	b := mustBinding(t, "tools/call", "t", "", "")
	if _, err := kr.Seal(b, make([]byte, MaxPayload+1), 0); !errors.Is(err, ErrPayloadTooLarge) {
		t.Fatalf("oversized payload: err = %v, want ErrPayloadTooLarge", err)
	}
	if _, err := kr.Seal(b, nil, -time.Second); err == nil {
		t.Fatal("negative ttl accepted")
	}
}

// Replacing any character of the token with any other base64 character, and
// flipping any bit of the decoded token, must never yield an accepted state.
func TestEveryModificationIsRefused(t *testing.T) {
	kr := newTestKeyring(t)
	b := mustBinding(t, "tools/call", "t", `{"a":1}`, "p")
	state := mustSeal(t, kr, b, "payload", 0)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	tried := 0
	for i := 0; i < len(state); i++ {
		for _, c := range []byte(alphabet + "=+/. \x00\xff") {
			if c == state[i] {
				continue
			}
			mod := state[:i] + string(c) + state[i+1:]
			tried++
			if got, err := kr.Open(b, mod); err == nil || !errors.Is(err, ErrInvalidState) || got != nil {
				t.Fatalf("position %d replaced by %q: Open = %q, %v", i, c, got, err)
			}
		}
	}
	raw, err := encoding.DecodeString(state)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		for bit := 0; bit < 8; bit++ {
			mod := bytes.Clone(raw)
			mod[i] ^= 1 << bit
			tried++
			got, err := kr.Open(b, encoding.EncodeToString(mod))
			if err == nil || got != nil {
				t.Fatalf("byte %d bit %d flipped: Open = %q, %v", i, bit, got, err)
			}
			if i >= 2+len("k1") && !errors.Is(err, ErrTampered) {
				t.Fatalf("byte %d bit %d flipped in nonce/ciphertext: err = %v, want ErrTampered", i, bit, err)
			}
		}
	}
	for i := 0; i <= len(state); i++ {
		for _, c := range []string{"\r", "\n", "A", "-"} {
			tried++
			if _, err := kr.Open(b, state[:i]+c+state[i:]); err == nil {
				t.Fatalf("%q inserted at %d: opened", c, i)
			}
		}
		if i < len(state) {
			tried++
			if _, err := kr.Open(b, state[:i]+state[i+1:]); err == nil {
				t.Fatalf("character %d deleted: opened", i)
			}
		}
	}
	for n := 0; n < len(state); n++ {
		tried++
		if _, err := kr.Open(b, state[:n]); err == nil {
			t.Fatalf("prefix of %d characters opened", n)
		}
	}
	if _, err := kr.Open(b, state+"A"); err == nil {
		t.Fatal("state with an extra character opened")
	}
	if tried < len(state)*64 {
		t.Fatalf("only %d modifications tried", tried)
	}
}

func TestOpenRefusesAnotherCall(t *testing.T) {
	kr := newTestKeyring(t)
	orig := mustBinding(t, "tools/call", "transfer", `{"to":"bob","amount":10}`, "alice")
	state := mustSeal(t, kr, orig, "confirmed", 0)
	others := map[string]Binding{
		"method":          mustBinding(t, "prompts/get", "transfer", `{"to":"bob","amount":10}`, "alice"),
		"name":            mustBinding(t, "tools/call", "transfer2", `{"to":"bob","amount":10}`, "alice"),
		"argument value":  mustBinding(t, "tools/call", "transfer", `{"to":"bob","amount":1000}`, "alice"),
		"argument added":  mustBinding(t, "tools/call", "transfer", `{"to":"bob","amount":10,"memo":""}`, "alice"),
		"number spelling": mustBinding(t, "tools/call", "transfer", `{"to":"bob","amount":10.0}`, "alice"),
		"no arguments":    mustBinding(t, "tools/call", "transfer", ``, "alice"),
		"principal":       mustBinding(t, "tools/call", "transfer", `{"to":"bob","amount":10}`, "mallory"),
		"no principal":    mustBinding(t, "tools/call", "transfer", `{"to":"bob","amount":10}`, ""),
		// Length prefixes keep field boundaries: "transfer"+"alice" != "transferalice"+"".
		"shifted boundary": {Method: "tools/call", Name: "transferalice", ArgumentsDigest: orig.ArgumentsDigest},
	}
	for name, b := range others {
		t.Run(name, func(t *testing.T) {
			got, err := kr.Open(b, state)
			if !errors.Is(err, ErrMismatch) || !errors.Is(err, ErrInvalidState) || got != nil {
				t.Fatalf("Open = %q, %v; want ErrMismatch", got, err)
			}
		})
	}
}

func TestOpenAcceptsReformattedArguments(t *testing.T) {
	kr := newTestKeyring(t)
	orig := mustBinding(t, "tools/call", "search", `{"query":"go","filters":{"lang":"en","year":2026},"tags":["a","b"]}`, "u")
	state := mustSeal(t, kr, orig, "page-2", 0)
	retry := mustBinding(t, "tools/call", "search", "\n{ \"tags\" : [ \"a\",\"b\" ],\r\n\t\"filters\":{\"year\":2026, \"lang\":\"\\u0065n\"}, \"query\":\"go\" }\n", "u")
	got, err := kr.Open(retry, state)
	if err != nil || string(got) != "page-2" {
		t.Fatalf("Open with reordered, re-spaced arguments = %q, %v", got, err)
	}
}

func TestExpiry(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	kr := newTestKeyring(t)
	kr.SetClock(clock.Now)
	b := mustBinding(t, "resources/read", "file:///report.pdf", "", "")
	state := mustSeal(t, kr, b, "s", time.Minute)

	clock.Advance(time.Minute - time.Millisecond)
	if _, err := kr.Open(b, state); err != nil {
		t.Fatalf("1ms before expiry: %v", err)
	}
	clock.Advance(time.Millisecond)
	if got, err := kr.Open(b, state); !errors.Is(err, ErrExpired) || !errors.Is(err, ErrInvalidState) || got != nil {
		t.Fatalf("at expiry: Open = %q, %v; want ErrExpired", got, err)
	}
	// A replica whose clock lags still accepts; the expiry travels in the state.
	lagging := newTestKeyring(t)
	lagging.SetClock(func() time.Time { return clock.Now().Add(-time.Hour) })
	if _, err := lagging.Open(b, state); err != nil {
		t.Fatalf("replica with an earlier clock: %v", err)
	}
	// DefaultTTL applies when ttl is zero.
	fresh := mustSeal(t, kr, b, "s", 0)
	clock.Advance(DefaultTTL - time.Millisecond)
	if _, err := kr.Open(b, fresh); err != nil {
		t.Fatalf("before DefaultTTL: %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := kr.Open(b, fresh); !errors.Is(err, ErrExpired) {
		t.Fatalf("after DefaultTTL: err = %v, want ErrExpired", err)
	}
	kr.SetClock(nil) // back to the real clock, long after the fake one
	if _, err := kr.Open(b, mustSeal(t, kr, b, "s", time.Minute)); err != nil {
		t.Fatalf("real clock: %v", err)
	}
}

func TestOpenRefusesMalformedInput(t *testing.T) {
	kr := newTestKeyring(t)
	b := mustBinding(t, "tools/call", "t", "", "")
	valid := mustSeal(t, kr, b, "p", 0)
	raw, _ := encoding.DecodeString(valid)
	withVersion := func(v byte) string { m := bytes.Clone(raw); m[0] = v; return encoding.EncodeToString(m) }
	withIDLen := func(n byte) string { m := bytes.Clone(raw); m[1] = n; return encoding.EncodeToString(m) }
	cases := map[string]struct {
		state string
		want  error
	}{
		"empty":             {"", ErrMalformed},
		"padding":           {valid + "=", ErrMalformed},
		"std alphabet":      {strings.NewReplacer("-", "+", "_", "/").Replace(valid) + "+/", ErrMalformed},
		"whitespace":        {" " + valid, ErrMalformed},
		"inner CR":          {valid[:10] + "\r" + valid[10:], ErrMalformed},
		"inner LF":          {valid[:10] + "\n" + valid[10:], ErrMalformed},
		"trailing CRLF":     {valid + "\r\n", ErrMalformed},
		"json string":       {`"` + valid + `"`, ErrMalformed},
		"too long":          {strings.Repeat("A", MaxStateLen+1), ErrMalformed},
		"one byte":          {encoding.EncodeToString([]byte{tokenVersion}), ErrMalformed},
		"version 0":         {withVersion(0), ErrMalformed},
		"version 2":         {withVersion(2), ErrMalformed},
		"zero id length":    {withIDLen(0), ErrMalformed},
		"id past the end":   {withIDLen(255), ErrMalformed},
		"id length +1":      {withIDLen(3), ErrUnknownKey},
		"header only":       {encoding.EncodeToString(raw[:2+2+nonceSize]), ErrMalformed},
		"unknown key":       {encoding.EncodeToString(append([]byte{1, 2, 'z', 'z'}, raw[4:]...)), ErrUnknownKey},
		"random same shape": {encoding.EncodeToString(append(bytes.Clone(raw[:4]), make([]byte, len(raw)-4)...)), ErrTampered},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := kr.Open(b, c.state)
			if !errors.Is(err, c.want) || !errors.Is(err, ErrInvalidState) || got != nil {
				t.Fatalf("Open = %q, %v; want %v", got, err, c.want)
			}
		})
	}
}

func TestOpenedPayloadIsIsolated(t *testing.T) {
	kr := newTestKeyring(t)
	b := mustBinding(t, "tools/call", "t", "", "")
	payload := []byte("abc")
	state, err := kr.Seal(b, payload, 0)
	if err != nil {
		t.Fatal(err)
	}
	payload[0] = 'X' // Seal must not keep the caller's slice
	got, err := kr.Open(b, state)
	if err != nil || string(got) != "abc" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if cap(got) != len(got) {
		t.Fatalf("payload slice has spare capacity %d over the sealed tag", cap(got)-len(got))
	}
}

func TestOpenExpiry(t *testing.T) {
	start := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	kr := newTestKeyring(t)
	kr.SetClock(clock.Now)
	b := mustBinding(t, "tools/call", "deploy", `{"env":"prod"}`, "alice")
	state := mustSeal(t, kr, b, "answers", 90*time.Second)
	clock.Advance(30 * time.Second)

	payload, exp, err := kr.OpenExpiry(b, state)
	if err != nil || string(payload) != "answers" {
		t.Fatalf("OpenExpiry = %q, %v", payload, err)
	}
	if want := start.Add(90 * time.Second); !exp.Equal(want) {
		t.Fatalf("expiry = %v, want %v (the moment sealed in the state)", exp, want)
	}
	clock.Advance(time.Minute)
	if payload, exp, err := kr.OpenExpiry(b, state); !errors.Is(err, ErrExpired) || payload != nil || !exp.IsZero() {
		t.Fatalf("after expiry: OpenExpiry = %q, %v, %v; want ErrExpired and zero values", payload, exp, err)
	}
}
