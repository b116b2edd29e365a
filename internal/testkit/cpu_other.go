//go:build !unix

package testkit

import "time"

// ProcessCPU returns 0: the process's CPU time is read on unix systems only.
func ProcessCPU() time.Duration { return 0 }
