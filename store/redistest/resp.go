package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// A minimal RESP2 client, enough for what tests do to the server itself
// (CONFIG SET, CLUSTER ADDSLOTSRANGE, SUBSCRIBE), so that this package needs
// no Redis client library.

// replyTimeout bounds waiting for one reply of Do.
const replyTimeout = 5 * time.Second

// Do sends one command to the server on a new connection and returns its
// reply (see Conn.Do).
func (s *Server) Do(args ...string) (any, error) {
	c, err := s.Dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(args...)
}

// Conn is a connection to the server, for tests that send many commands.
type Conn struct {
	c net.Conn
	r *bufio.Reader
}

// Dial opens a connection to the server. Close it when done.
func (s *Server) Dial() (*Conn, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	return &Conn{c: c, r: bufio.NewReader(c)}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Do sends one command and returns its reply: a string for a simple or bulk
// string or an integer (in decimal), a []any for an array, nil for a nil
// reply, and an error for an error reply.
func (c *Conn) Do(args ...string) (any, error) {
	_ = c.c.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := c.c.Write(command(args)); err != nil {
		return nil, fmt.Errorf("redistest: %s: %w", args[0], err)
	}
	return readReply(c.r)
}

// Expired returns the names of the keys that expire from now on, in order
// (keyspace notifications of database 0, turned on here). The subscription
// ends with the test.
func (s *Server) Expired() <-chan string {
	s.t.Helper()
	if _, err := s.Do("CONFIG", "SET", "notify-keyspace-events", "Ex"); err != nil {
		s.t.Fatalf("redistest: turning keyspace notifications on: %v", err)
	}
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		s.t.Fatalf("redistest: %v", err)
	}
	r := bufio.NewReader(c)
	_ = c.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := c.Write(command([]string{"SUBSCRIBE", "__keyevent@0__:expired"})); err != nil {
		s.t.Fatalf("redistest: SUBSCRIBE: %v", err)
	}
	if _, err := readReply(r); err != nil { // the confirmation: from now on, nothing is missed
		s.t.Fatalf("redistest: SUBSCRIBE: %v", err)
	}
	_ = c.SetDeadline(time.Time{})
	keys := make(chan string, 64)
	done := make(chan struct{})
	s.t.Cleanup(func() { c.Close(); <-done })
	go func() { // owned by the test: ends when the cleanup closes c
		defer close(done)
		defer close(keys)
		for {
			m, err := readReply(r)
			if err != nil {
				return
			}
			if a, ok := m.([]any); ok && len(a) == 3 && a[0] == "message" {
				if k, ok := a[2].(string); ok {
					keys <- k
				}
			}
		}
	}()
	return keys
}

// command encodes a command as a RESP array of bulk strings.
func command(args []string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"+a+"\r\n"...)
	}
	return b
}

// readReply reads one RESP2 reply.
func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("redistest: empty reply line")
	}
	switch body := line[1:]; line[0] {
	case '+', ':':
		return body, nil
	case '-':
		return nil, errors.New(body)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = readReply(r); err != nil {
				return nil, err
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("redistest: unexpected reply %q", line)
}
