package serverkit

import (
	"strings"
	"testing"
)

func TestWriteStats(t *testing.T) {
	var b strings.Builder
	writeStats(&b)
	line := b.String()
	if !strings.HasPrefix(line, StatsPrefix+" ") || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("stats line %q: want one line starting with %q", line, StatsPrefix)
	}
	for _, field := range []string{"mallocs=", "totalalloc=", "heapalloc=", "heapobjects=", "stackinuse=", "goroutines=", "numgc="} {
		if !strings.Contains(line, " "+field) {
			t.Errorf("stats line %q has no %s", line, field)
		}
	}
}
