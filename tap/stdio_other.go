//go:build !unix

package tap

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"time"
)

// ownProcessGroup does nothing here: signals reach the server alone.
func ownProcessGroup(cmd *exec.Cmd) bool { return false }

func signalGroup(p *os.Process, group bool, sig os.Signal) error { return p.Signal(sig) }

func terminateGroup(p *os.Process, group bool) error { return p.Kill() }

func killGroup(p *os.Process, group bool) error { return p.Kill() }

func signalNumber(ps *os.ProcessState) int { return 0 }

func exitSignal(ps *os.ProcessState) string { return "" }

func signalName(sig os.Signal) string { return sig.String() }

func pollableInput(in io.Reader) io.Reader { return in }

func interruptRead(in io.Reader) bool {
	f, ok := in.(interface{ SetReadDeadline(time.Time) error })
	return ok && f.SetReadDeadline(time.Now()) == nil
}

// NotifySignals arranges for Ctrl-C to be delivered on the returned channel (to be
// forwarded to the server) instead of ending the tap; stop undoes it.
func NotifySignals() (signals <-chan os.Signal, stop func()) {
	c := make(chan os.Signal, 8)
	signal.Notify(c, os.Interrupt)
	return c, func() { signal.Stop(c) }
}
