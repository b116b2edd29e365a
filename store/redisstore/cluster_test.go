package redisstore_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// TestOnRedisCluster runs the stores on a Redis Cluster (one node that holds
// every slot; rueidis in cluster mode): the contracts of the event store, the
// task store and the change feed, and replicas sharing sessions, streams and
// a relay. MONITOR records every command the node runs, those of Lua scripts
// included, and then:
//
//   - every key a script touches is one it declared in KEYS (a script that
//     builds key names itself is refused by stores that lock declared keys,
//     and routed blind on a cluster);
//   - the keys of one command, or of one script, share one slot;
//   - every key naming a session (its record, streams, stream index, claims)
//     is in that session's slot.
func TestOnRedisCluster(t *testing.T) {
	srv := redistest.StartCluster(t)
	mon := srv.Monitor()
	if !redisstore.IsCluster(open(t, srv)) {
		t.Fatal("rueidis does not see a cluster")
	}
	namespaces := 0
	redis := func(testing.TB) clients { // a key prefix of its own for each test
		namespaces++
		prefix := fmt.Sprintf("c%d:", namespaces)
		return func(t testing.TB) *redisstore.Client { return openPrefixed(t, srv, prefix) }
	}
	t.Run("EventStore", func(t *testing.T) { eventStoreContract(t, redis) })
	t.Run("TaskStore", func(t *testing.T) { taskStoreContract(t, redis) })
	t.Run("ChangeFeed", func(t *testing.T) { changeFeedContract(t, redis) })
	t.Run("GetStreamAcrossReplicas", func(t *testing.T) { getStreamAcrossReplicas(t, redis(t)) })
	t.Run("PostStreamTailedOnAnotherReplica", func(t *testing.T) { postStreamTailedOnAnotherReplica(t, redis(t)) })
	t.Run("IDsNotReusedWhenASessionIsRestored", func(t *testing.T) { idsNotReusedWhenASessionIsRestored(t, redis(t)) })

	cmds, err := mon.Sync()
	if err != nil {
		t.Fatal(err)
	}
	checkClusterKeys(t, srv, cmds)
}

// sessionRecordKey matches the key of a session's record and captures the
// session id.
var sessionRecordKey = regexp.MustCompile(`^c\d+:\{([A-Z2-7]{26})\}:s$`)

// checkClusterKeys checks the keys of the commands a cluster node ran (see
// TestOnRedisCluster).
func checkClusterKeys(t *testing.T, srv *redistest.Server, cmds []redistest.Command) {
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	slots := map[string]string{}
	slotOf := func(key string) string {
		if s, ok := slots[key]; ok {
			return s
		}
		s, err := conn.Do("CLUSTER", "KEYSLOT", key)
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %q: %v", key, err)
		}
		slots[key] = fmt.Sprint(s)
		return slots[key]
	}
	keysOf := func(args []string) []string {
		switch strings.ToUpper(args[0]) {
		case "PUBLISH", "SUBSCRIBE", "UNSUBSCRIBE", "PING", "ECHO", "HELLO", "CLIENT", "CLUSTER", "COMMAND", "INFO", "SCRIPT", "READONLY":
			return nil
		}
		reply, err := conn.Do(append([]string{"COMMAND", "GETKEYS"}, args...)...)
		if err != nil {
			return nil // "no key arguments"
		}
		var keys []string
		for _, k := range reply.([]any) {
			keys = append(keys, k.(string))
		}
		return keys
	}
	sameSlot := func(what string, keys []string) {
		for _, k := range keys[1:] {
			if slotOf(k) != slotOf(keys[0]) {
				t.Errorf("%s: keys %q in different slots", what, keys)
				return
			}
		}
	}
	var declared map[string]bool // the KEYS of the script running, if one is
	var script string
	seen := map[string]bool{}
	scripts, inScripts := 0, 0
	for _, c := range cmds {
		if len(c.Args) == 0 {
			continue
		}
		if c.Lua {
			if declared == nil {
				t.Fatalf("a Lua command with no script before it: %q", c.Args)
			}
			for _, k := range keysOf(c.Args) {
				seen[k] = true
				inScripts++
				if !declared[k] {
					t.Errorf("a script touched %q without declaring it: %s in %s", k, c.Args[0], script)
				}
			}
			continue
		}
		declared = nil
		name := strings.ToUpper(c.Args[0])
		if name == "EVAL" || name == "EVALSHA" {
			n, err := strconv.Atoi(c.Args[2])
			if err != nil || 3+n > len(c.Args) {
				t.Fatalf("%q", c.Args)
			}
			keys := c.Args[3 : 3+n]
			declared, script = map[string]bool{}, c.Args[1]
			if name == "EVAL" {
				script = firstLine(script)
			}
			for _, k := range keys {
				declared[k] = true
				seen[k] = true
			}
			scripts++
			if len(keys) > 0 {
				sameSlot(name, keys)
			}
			continue
		}
		keys := keysOf(c.Args)
		for _, k := range keys {
			seen[k] = true
		}
		if len(keys) > 1 {
			sameSlot(name, keys)
		}
	}
	sessions := map[string]bool{}
	for k := range seen {
		if m := sessionRecordKey.FindStringSubmatch(k); m != nil {
			sessions[m[1]] = true
		}
	}
	if scripts < 100 || inScripts < 100 || len(sessions) < 3 {
		t.Fatalf("MONITOR saw %d scripts touching %d keys and %d sessions; the tests ran too little", scripts, inScripts, len(sessions))
	}
	perSession := 0
	for k := range seen {
		for sid := range sessions {
			if strings.Contains(k, sid) {
				perSession++
				if slotOf(k) != slotOf("{"+sid+"}") {
					t.Errorf("key %q of session %s is not in the session's slot", k, sid)
				}
			}
		}
	}
	t.Logf("%d commands, %d scripts touching %d keys; %d sessions with %d keys", len(cmds), scripts, inScripts, len(sessions), perSession)
}

// firstLine is the first line of a script, to name it.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
