//go:build !unix

package mcpkit

// descriptorLimit returns 0: no descriptor limit is known on this system.
func descriptorLimit() uint64 { return 0 }
