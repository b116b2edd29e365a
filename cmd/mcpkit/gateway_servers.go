package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/upstream"
)

// printServers prints the servers' states as a table, then the last error and
// stderr lines of each one that is neither ready nor disabled: what
// `mcpkit gateway --list` and the /servers command of `mcpkit host` show (the
// gateway's /status endpoint has the same as JSON).
func printServers(w io.Writer, servers []gateway.ServerStatus) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTRANSPORT\tTOOLS\tRESTARTS\tPROTOCOL")
	for _, s := range servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", s.Name, s.State, s.Transport, s.Tools, s.Restarts, s.ProtocolVersion)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range servers {
		if s.State == upstream.StateReady.String() || s.State == upstream.StateDisabled.String() {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s\n", s.Name, s.LastError)
		for _, line := range s.Stderr {
			fmt.Fprintf(w, "  | %s\n", line)
		}
	}
	return nil
}

// hostStatuses returns the states of `mcpkit host`'s servers (those of
// --config and of --server) as their supervisor sees them, with the number of
// tools each offered the model last.
func hostStatuses(sup *upstream.Supervisor, src *host.SessionSource) []gateway.ServerStatus {
	counts := src.ToolCounts()
	var out []gateway.ServerStatus
	for _, st := range sup.Statuses() {
		s := gateway.ServerStatusOf(st)
		s.Tools = counts[st.Name]
		out = append(out, s)
	}
	return out
}
