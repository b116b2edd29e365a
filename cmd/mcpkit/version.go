package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// buildVersion is what the binary knows of its own build, from debug.ReadBuildInfo.
type buildVersion struct {
	module   string // the main module's version: a tag, a pseudo-version, or "(devel)"
	revision string // the VCS revision, when built with VCS information
	time     string // the revision's commit time (RFC 3339)
	modified bool   // the work tree had uncommitted changes
	goVer    string // the Go toolchain that built it
}

// readBuildVersion reads the running binary's build information.
func readBuildVersion() buildVersion {
	info, _ := debug.ReadBuildInfo()
	return buildVersionOf(info)
}

// buildVersionOf extracts the version from info; nil (a binary built without
// module support) gives "(devel)".
func buildVersionOf(info *debug.BuildInfo) buildVersion {
	v := buildVersion{module: "(devel)", goVer: runtime.Version()}
	if info == nil {
		return v
	}
	if info.Main.Version != "" {
		v.module = info.Main.Version
	}
	if info.GoVersion != "" {
		v.goVer = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.revision = s.Value
		case "vcs.time":
			v.time = s.Value
		case "vcs.modified":
			v.modified = s.Value == "true"
		}
	}
	return v
}

// String is the text of --version and `mcpkit version`: the module version, the
// revision when known, and the toolchain.
func (v buildVersion) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpkit %s\n", v.module)
	if v.revision != "" {
		fmt.Fprintf(&b, "revision %s", v.revision)
		var notes []string
		if v.time != "" {
			notes = append(notes, v.time)
		}
		if v.modified {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "built with %s for %s/%s\n", v.goVer, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// clientVersion is the version the CLI's client reports to servers (clientInfo):
// the module version of the build, as --version prints it.
func clientVersion() string { return readBuildVersion().module }

// newVersionCmd returns `mcpkit version`, which prints what --version prints.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcpkit's version, VCS revision and Go toolchain",
		Long: `Print mcpkit's module version (a release tag, a pseudo-version, or "(devel)" for a build
without version information), the VCS revision it was built from (with its time, and
"modified" when the work tree had uncommitted changes) when the build recorded one, and
the Go toolchain. The same module version is what the client commands report to servers.`,
		Example: `  mcpkit version
  mcpkit --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), readBuildVersion())
			return err
		},
	}
}
