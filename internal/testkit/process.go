package testkit

import "time"

// waitDelay bounds how long exec.Cmd.Wait waits for a killed command's output pipes,
// which a grandchild may still hold.
const waitDelay = 5 * time.Second
