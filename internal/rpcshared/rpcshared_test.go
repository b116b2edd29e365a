package rpcshared

import "testing"

func TestMethodNameTable(t *testing.T) {
	if _, ok := LookupMethodName([]byte("test/unregistered")); ok {
		t.Fatal("LookupMethodName found a name nobody registered")
	}
	RegisterMethodNames("test/a")
	RegisterMethodNames("test/b")
	for _, n := range []string{"test/a", "test/b"} {
		s, ok := LookupMethodName([]byte(n))
		if !ok || s != n {
			t.Errorf("LookupMethodName(%q) = %q, %v; want %q, true", n, s, ok, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { LookupMethodName([]byte("test/a")) }); n != 0 {
		t.Errorf("LookupMethodName of a registered name: %v allocations, want 0", n)
	}
}
