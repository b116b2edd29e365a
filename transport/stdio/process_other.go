//go:build !unix

package stdio

import (
	"errors"
	"os"
	"os/exec"
)

// useProcessGroup does nothing on systems without POSIX process groups; only the
// child itself is signalled there.
func useProcessGroup(*exec.Cmd) bool { return false }

// terminate stops the process: without SIGTERM there is no gentler request than
// closing its input, which Close has already done.
func terminate(p *os.Process, _ bool) error { return kill(p, false) }

// kill stops the process for good.
func kill(p *os.Process, _ bool) error {
	err := p.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// killGroupLeftovers does nothing without process groups.
func killGroupLeftovers(int) {}
