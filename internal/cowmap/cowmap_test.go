package cowmap

import (
	"fmt"
	"sync"
	"testing"
)

// TestAddLoad: an added entry is in the next loaded map; a map loaded before
// the Add is left as it was.
func TestAddLoad(t *testing.T) {
	c := New[string, int](4)
	if m := c.Load(); m != nil {
		t.Fatalf("new map = %v, want nil", m)
	}
	c.Add("a", 1)
	before := c.Load()
	c.Add("b", 2)
	after := c.Load()
	if len(before) != 1 || before["a"] != 1 {
		t.Errorf("the map loaded before the second Add changed: %v", before)
	}
	if len(after) != 2 || after["a"] != 1 || after["b"] != 2 {
		t.Errorf("map = %v, want a:1 b:2", after)
	}
	c.Add("a", 3)
	if m := c.Load(); len(m) != 2 || m["a"] != 3 {
		t.Errorf("after replacing a: %v", m)
	}
}

// TestBound: the map never holds more than its bound; the Add that finds it
// full starts over with its own entry alone.
func TestBound(t *testing.T) {
	const max = 8
	c := New[int, int](max)
	for i := range 3*max + 1 {
		c.Add(i, i)
		m := c.Load()
		if len(m) > max {
			t.Fatalf("%d entries after %d adds, bound %d", len(m), i+1, max)
		}
		if m[i] != i {
			t.Fatalf("entry %d missing right after its Add", i)
		}
		if want := i%max + 1; len(m) != want {
			t.Fatalf("%d entries after %d adds, want %d (starting over when full)", len(m), i+1, want)
		}
	}
	one := New[int, int](0)
	one.Add(1, 1)
	one.Add(2, 2)
	if m := one.Load(); len(m) != 1 || m[2] != 2 {
		t.Errorf("bound 0 keeps %v, want only the last entry", m)
	}
}

// TestConcurrent adds and looks up from several goroutines (run under
// -race): a lookup finds either nothing or the value added for its key, and
// no loaded map exceeds the bound.
func TestConcurrent(t *testing.T) {
	const max = 16
	c := New[string, string](max)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprintf("k%d", (g*7+i)%40)
				if v, ok := c.Load()[k]; ok && v != "v"+k {
					errs <- fmt.Errorf("%s = %q", k, v)
					return
				}
				c.Add(k, "v"+k)
				if n := len(c.Load()); n > max {
					errs <- fmt.Errorf("%d entries, bound %d", n, max)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestLookupAllocatesNothing: looking a []byte key up in the loaded map,
// m[string(b)], allocates nothing, found or not.
func TestLookupAllocatesNothing(t *testing.T) {
	c := New[string, *int](4)
	v := 1
	c.Add("present", &v)
	hit, miss := []byte("present"), []byte("absent")
	var found *int
	allocs := testing.AllocsPerRun(1000, func() {
		found = c.Load()[string(hit)]
		if c.Load()[string(miss)] != nil {
			found = nil
		}
	})
	if allocs != 0 || found != &v {
		t.Errorf("lookup: %v allocations, found %v", allocs, found)
	}
}

// BenchmarkLookup is a reader's cost: load the map and index it with a
// converted []byte key.
func BenchmarkLookup(b *testing.B) {
	c := New[string, int](64)
	for i := range 64 {
		c.Add(fmt.Sprintf(`{"name":"client-%d","version":"1.0.0"}`, i), i)
	}
	key := []byte(`{"name":"client-42","version":"1.0.0"}`)
	b.ReportAllocs()
	for b.Loop() {
		if c.Load()[string(key)] != 42 {
			b.Fatal("not found")
		}
	}
}

// BenchmarkAdd is a writer's cost on a map of 32 entries: a copy with one more.
func BenchmarkAdd(b *testing.B) {
	c := New[int, int](64)
	for i := range 32 {
		c.Add(i, i)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Add(32, 32) // replaces the key: the map stays at 33 entries
	}
}
