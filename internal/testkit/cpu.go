package testkit

import "testing"

// LoopCPU runs body for every iteration of b.Loop and reports, besides the
// wall time, the process's CPU time per iteration ("cpu-ns/op", see
// ProcessCPU; not reported where it cannot be read): the figure to trust on a
// machine that other work keeps busy. Work the body starts on other goroutines
// (an in-process server's) counts too.
func LoopCPU(b *testing.B, body func()) {
	b.Helper()
	cpu0 := ProcessCPU()
	for b.Loop() {
		body()
	}
	if cpu := ProcessCPU() - cpu0; cpu > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
