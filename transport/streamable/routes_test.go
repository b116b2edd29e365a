package streamable

import (
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// TestRouteTable routes, finds and takes requests in every order, with more in
// flight than the first slot holds, and checks that the table stays consistent.
func TestRouteTable(t *testing.T) {
	streams := make([]*stream, 6)
	for i := range streams {
		streams[i] = &stream{}
	}
	var rt routeTable
	want := map[int64]*stream{}
	check := func() {
		t.Helper()
		if rt.len() != len(want) {
			t.Fatalf("len %d, want %d", rt.len(), len(want))
		}
		for i := range int64(len(streams)) {
			if got := rt.get(jsonrpc.Int64ID(i)); got != want[i] {
				t.Fatalf("get(%d) = %p, want %p", i, got, want[i])
			}
		}
	}
	for i, st := range streams {
		rt.set(jsonrpc.Int64ID(int64(i)), st)
		want[int64(i)] = st
		check()
	}
	for _, i := range []int64{0, 3, 5, 1} { // the first slot, the middle, the last added, the refilled first
		if got := rt.take(jsonrpc.Int64ID(i)); got != want[i] {
			t.Fatalf("take(%d) = %p, want %p", i, got, want[i])
		}
		delete(want, i)
		check()
	}
	if rt.take(jsonrpc.Int64ID(0)) != nil || rt.take(jsonrpc.StringID("2")) != nil {
		t.Fatal("take of an id not routed returned a stream")
	}
	rt.set(jsonrpc.Int64ID(0), streams[0])
	want[0] = streams[0]
	check()
	rt.clear()
	clear(want)
	check()
	rt.set(jsonrpc.Int64ID(4), streams[4])
	want[4] = streams[4]
	check()
	if n := testing.AllocsPerRun(100, func() {
		var one routeTable
		one.set(jsonrpc.Int64ID(1), streams[1])
		if one.take(jsonrpc.Int64ID(1)) != streams[1] {
			t.Fatal("lost the route")
		}
	}); n != 0 {
		t.Errorf("one route at a time: %v allocations, want 0", n)
	}
}
