package requeststate

import (
	"testing"
	"time"
)

var benchArgs = []byte(`{"query":"weather in Amsterdam","units":"metric","days":5,"filters":{"rain":true,"wind":false}}`)

func BenchmarkSeal(b *testing.B) {
	kr := newTestKeyring(b)
	bind := mustBinding(b, "tools/call", "forecast", string(benchArgs), "user-42")
	payload := make([]byte, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if _, err := kr.Seal(bind, payload, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	kr := newTestKeyring(b)
	bind := mustBinding(b, "tools/call", "forecast", string(benchArgs), "user-42")
	state := mustSeal(b, kr, bind, string(make([]byte, 256)), time.Hour)
	b.ReportAllocs()
	b.SetBytes(256)
	for b.Loop() {
		if _, err := kr.Open(bind, state); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenRejectTampered is the cost of refusing a forged state.
func BenchmarkOpenRejectTampered(b *testing.B) {
	kr := newTestKeyring(b)
	bind := mustBinding(b, "tools/call", "forecast", string(benchArgs), "user-42")
	state := mustSeal(b, kr, bind, string(make([]byte, 256)), time.Hour)
	forged := state[:len(state)-2] + "AA"
	if forged == state {
		forged = state[:len(state)-2] + "BA"
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kr.Open(bind, forged); err == nil {
			b.Fatal("forged state opened")
		}
	}
}

func BenchmarkNewBinding(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchArgs)))
	for b.Loop() {
		if _, err := NewBinding("tools/call", "forecast", benchArgs, "user-42"); err != nil {
			b.Fatal(err)
		}
	}
}
