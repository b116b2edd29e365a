//go:build linux

package h1

import (
	"net"
	"syscall"
	"unsafe"
)

// peeker checks an idle connection with a non-blocking MSG_PEEK: a server that
// closed it (or sent bytes nobody asked for) makes it unusable.
type peeker struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool // p.check, made once
	n   uintptr
	err syscall.Errno
	buf [1]byte // heap memory (the peeker lives in its conn) for the peeked byte
}

func (p *peeker) init(nc net.Conn) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	p.rc, p.fn = rc, p.check
}

func (p *peeker) check(fd uintptr) bool {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p.buf[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	p.n, p.err = n, errno
	return true
}

// alive reports whether the connection is open with nothing to read.
func (p *peeker) alive() bool {
	if p.rc == nil {
		return true
	}
	if err := p.rc.Read(p.fn); err != nil {
		return false
	}
	return p.err == syscall.EAGAIN // no byte and no end of stream
}
