package redistest_test

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/store/redistest"
)

// ping sends PING in RESP and reports whether the server answered PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return &net.AddrError{Err: "unexpected reply " + line, Addr: addr}
	}
	return nil
}

// TestStartStopRestart checks that the server answers once Start returns, is
// gone after Stop, and answers again on the same address after Restart.
func TestStartStopRestart(t *testing.T) {
	s := redistest.Start(t)
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") || s.URL() != "redis://"+s.Addr()+"/0" {
		t.Fatalf("address %q, URL %q", s.Addr(), s.URL())
	}
	if err := ping(s.Addr()); err != nil {
		t.Fatalf("after Start: %v", err)
	}
	s.Stop()
	if err := ping(s.Addr()); err == nil {
		t.Fatal("the server still answers after Stop")
	}
	s.Stop() // stopping twice is harmless
	s.Restart()
	if err := ping(s.Addr()); err != nil {
		t.Fatalf("after Restart: %v", err)
	}
	v, err := redistest.Version()
	if err != nil || !strings.Contains(v, "v=") {
		t.Fatalf("Version = %q, %v", v, err)
	}
	t.Logf("tested with %s", v)
}

// TestDoAndExpired: Do returns each kind of reply, and Expired reports a
// key when Redis expires it.
func TestDoAndExpired(t *testing.T) {
	s := redistest.Start(t)
	expired := s.Expired()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "v\r\nwith a line break", "PX", "20"}, "OK"},
		{[]string{"GET", "k"}, "v\r\nwith a line break"},
		{[]string{"RPUSH", "l", "a", "b"}, "2"},
		{[]string{"LRANGE", "l", "0", "-1"}, "[a b]"},
		{[]string{"GET", "missing"}, "<nil>"},
	} {
		got, err := s.Do(tc.args...)
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("Do(%q) = %v, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	if _, err := s.Do("NOSUCHCOMMAND"); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("an unknown command: %v", err)
	}
	select {
	case k := <-expired:
		if k != "k" {
			t.Errorf("expired %q, want k", k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no expiry reported within 10 s")
	}
}

// TestStartCluster: a one-node cluster holds every slot, answers commands,
// and refuses a command whose keys are in two slots.
func TestStartCluster(t *testing.T) {
	s := redistest.StartCluster(t)
	if _, err := s.Do("SET", "{a}1", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Do("MGET", "{a}1", "{a}2"); err != nil {
		t.Errorf("two keys of one slot: %v", err)
	}
	if _, err := s.Do("MGET", "a", "b"); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Errorf("two keys of two slots: %v; want CROSSSLOT", err)
	}
	a, err1 := s.KeySlot("x{a}y")
	b, err2 := s.KeySlot("a")
	if err1 != nil || err2 != nil || a != b || a != "15495" {
		t.Errorf("KeySlot: %s %v, %s %v; want 15495 for both", a, err1, b, err2)
	}
}

// TestMonitor: the commands a script runs are recorded as Lua's, right after
// the script's own command, and quoted words come back as they were sent.
func TestMonitor(t *testing.T) {
	s := redistest.Start(t)
	m := s.Monitor()
	odd := "a \"quoted\"\\ word\n\x01\xff"
	if _, err := s.Do("EVAL", "redis.call('SET', KEYS[1], ARGV[1]) return 1", "1", "k", odd); err != nil {
		t.Fatal(err)
	}
	cmds, err := m.Sync()
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", cmds)
	want := fmt.Sprintf("%+v", []redistest.Command{
		{Args: []string{"EVAL", "redis.call('SET', KEYS[1], ARGV[1]) return 1", "1", "k", odd}},
		{Lua: true, Args: []string{"SET", "k", odd}},
	})
	if got != want {
		t.Errorf("recorded %s\nwant     %s", got, want)
	}
}
