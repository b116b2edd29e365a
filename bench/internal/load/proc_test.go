package load

import (
	"os"
	"testing"
)

func TestParseStatusKB(t *testing.T) {
	status := []byte("Name:\tsrv\nVmHWM:\t   2048 kB\nVmRSS:\t    1024 kB\n")
	if v, err := parseStatusKB(status, "VmRSS:"); err != nil || v != 1024*1024 {
		t.Errorf("VmRSS = %d, %v; want %d", v, err, 1024*1024)
	}
	if v, err := parseStatusKB(status, "VmHWM:"); err != nil || v != 2048*1024 {
		t.Errorf("VmHWM = %d, %v; want %d", v, err, 2048*1024)
	}
	if _, err := parseStatusKB(status, "VmSwap:"); err == nil {
		t.Error("a missing field gave no error")
	}
}

func TestParseStatCPU(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := []byte("123 (srv (x) y) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0")
	v, err := parseStatCPU(stat)
	if err != nil || v != 3.0 {
		t.Errorf("parseStatCPU = %v, %v; want 3 s (300 ticks)", v, err)
	}
	if _, err := parseStatCPU([]byte("123 (x) S 1")); err == nil {
		t.Error("a short stat line gave no error")
	}
}

func TestProcSelf(t *testing.T) {
	rss, err := procRSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Errorf("procRSS(self) = %d, %v", rss, err)
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		t.Errorf("procCPU(self): %v", err)
	}
}

func TestPercentile(t *testing.T) {
	ns := []int64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if p := percentile(ns, 0.5); p != 5 {
		t.Errorf("p50 = %v, want 5", p)
	}
	if p := percentile(ns, 0.99); p != 10 {
		t.Errorf("p99 = %v, want 10", p)
	}
	if p := percentile(nil, 0.5); p != 0 {
		t.Errorf("p50 of nothing = %v, want 0", p)
	}
}

func TestParseStats(t *testing.T) {
	m, err := parseStats("mallocs=10 totalalloc=20 heapalloc=30 heapobjects=4 stackinuse=8192 goroutines=5 numgc=1")
	if err != nil || m.Mallocs != 10 || m.TotalAlloc != 20 || m.HeapAlloc != 30 || m.StackInuse != 8192 || m.Goroutines != 5 {
		t.Errorf("parseStats = %+v, %v", m, err)
	}
	if _, err := parseStats("mallocs=x"); err == nil {
		t.Error("a bad number gave no error")
	}
}
