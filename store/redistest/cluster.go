package redistest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// clusterTimeout bounds how long a one-node cluster may take to report its
// state ok once it holds every slot.
const clusterTimeout = 10 * time.Second

// StartCluster starts a redis-server in cluster mode that holds all 16384
// hash slots: a Redis Cluster of one node, which a cluster client (rueidis
// detects one) talks to as to any cluster. Commands and scripts whose keys
// are in different slots fail there as on a real cluster (CROSSSLOT). Restart
// after Stop brings back an empty node without slots: do not use it.
func StartCluster(t testing.TB) *Server {
	t.Helper()
	s := start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	if _, err := s.Do("CLUSTER", "ADDSLOTSRANGE", "0", "16383"); err != nil {
		t.Fatalf("redistest: CLUSTER ADDSLOTSRANGE: %v", err)
	}
	deadline := time.Now().Add(clusterTimeout)
	for {
		info, err := s.Do("CLUSTER", "INFO")
		if err == nil && strings.Contains(fmt.Sprint(info), "cluster_state:ok") {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the one-node cluster is not ok after %v: %v %v", clusterTimeout, info, err)
		}
		// The node updates its state on its own timer (every 100 ms):
		// nothing to block on.
		time.Sleep(20 * time.Millisecond)
	}
}

// KeySlot returns the cluster hash slot of key (CLUSTER KEYSLOT; a server
// from StartCluster).
func (s *Server) KeySlot(key string) (string, error) {
	slot, err := s.Do("CLUSTER", "KEYSLOT", key)
	if err != nil {
		return "", err
	}
	return fmt.Sprint(slot), nil
}
