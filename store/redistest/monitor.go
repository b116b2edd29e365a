package redistest

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Monitor records every command the server runs (MONITOR), those that Lua
// scripts run included. It stops when the test ends.
type Monitor struct {
	s    *Server
	mu   sync.Mutex
	cmds []Command
	err  error
	seen chan struct{} // signalled after each command recorded
}

// Command is one command the server ran: its words, and whether a Lua
// script ran it (then it ran within the script command recorded last before
// it: a script runs alone, and MONITOR shows its command first).
type Command struct {
	Lua  bool
	Args []string
}

// Monitor starts recording the server's commands.
func (s *Server) Monitor() *Monitor {
	s.t.Helper()
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		s.t.Fatalf("redistest: %v", err)
	}
	r := bufio.NewReader(c)
	_ = c.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := c.Write(command([]string{"MONITOR"})); err != nil {
		s.t.Fatalf("redistest: MONITOR: %v", err)
	}
	if _, err := readReply(r); err != nil {
		s.t.Fatalf("redistest: MONITOR: %v", err)
	}
	_ = c.SetDeadline(time.Time{})
	m := &Monitor{s: s, seen: make(chan struct{}, 1)}
	done := make(chan struct{})
	s.t.Cleanup(func() { c.Close(); <-done })
	go func() { // owned by the test: ends when the cleanup closes c
		defer close(done)
		for {
			line, err := readReply(r)
			if err != nil {
				return
			}
			cmd, err := parseMonitorLine(fmt.Sprint(line))
			m.mu.Lock()
			if err != nil && m.err == nil {
				m.err = err
			}
			if err == nil {
				m.cmds = append(m.cmds, cmd)
			}
			m.mu.Unlock()
			select {
			case m.seen <- struct{}{}:
			default:
			}
		}
	}()
	return m
}

// Sync waits until every command the server ran before the call is
// recorded, and returns them all, from the start.
func (m *Monitor) Sync() ([]Command, error) {
	marker := "redistest-sync-" + rand.Text()
	if _, err := m.s.Do("ECHO", marker); err != nil {
		return nil, err
	}
	timeout := time.NewTimer(replyTimeout)
	defer timeout.Stop()
	for {
		m.mu.Lock()
		cmds, err := m.cmds, m.err
		m.mu.Unlock()
		if err != nil {
			return nil, err
		}
		for i := len(cmds) - 1; i >= 0; i-- {
			if c := cmds[i]; len(c.Args) == 2 && strings.EqualFold(c.Args[0], "ECHO") && c.Args[1] == marker {
				return cmds[:i:i], nil
			}
		}
		select {
		case <-m.seen:
		case <-timeout.C:
			return nil, errors.New("redistest: MONITOR did not show the sync marker")
		}
	}
}

// parseMonitorLine reads a MONITOR line: `<time> [<db> <client>|lua] "word" ...`,
// each word quoted with C-like escapes.
func parseMonitorLine(line string) (Command, error) {
	var cmd Command
	open := strings.IndexByte(line, '[')
	end := strings.IndexByte(line, ']')
	if open < 0 || end < open {
		return cmd, fmt.Errorf("redistest: MONITOR line %q", line)
	}
	cmd.Lua = strings.HasSuffix(line[open:end], " lua")
	rest := line[end+1:]
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return cmd, nil
		}
		word, n, err := unquote(rest)
		if err != nil {
			return cmd, fmt.Errorf("redistest: MONITOR line %q: %w", line, err)
		}
		cmd.Args = append(cmd.Args, word)
		rest = rest[n:]
	}
}

// unquote reads the quoted word at the start of s, with the escapes Redis
// writes (\\ \" \n \r \t \a \b \xHH), and returns it and its length in s.
func unquote(s string) (string, int, error) {
	if s == "" || s[0] != '"' {
		return "", 0, errors.New("a word is not quoted")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, errors.New("an escape at the end")
			}
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'x':
				if i+2 >= len(s) {
					return "", 0, errors.New("a short \\x escape")
				}
				v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
				if err != nil {
					return "", 0, err
				}
				b.WriteByte(byte(v))
				i += 2
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("an unterminated word")
}
