package upstream

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestHostFiles: the places each host keeps its file, per system.
func TestHostFiles(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	cases := []struct {
		goos string
		vars map[string]string
		want []string
	}{
		{"linux", map[string]string{"HOME": "/h"}, []string{
			"/h/.config/Claude/claude_desktop_config.json", "/h/.config/Code/User/mcp.json", "/h/.config/Code/User/settings.json",
			"/h/.config/Code - Insiders/User/mcp.json", "/h/.config/Code - Insiders/User/settings.json",
			"/h/.cursor/mcp.json", "/h/.codeium/windsurf/mcp_config.json"}},
		{"linux", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, []string{
			"/x/Claude/claude_desktop_config.json", "/x/Code/User/mcp.json", "/x/Code/User/settings.json",
			"/x/Code - Insiders/User/mcp.json", "/x/Code - Insiders/User/settings.json",
			"/h/.cursor/mcp.json", "/h/.codeium/windsurf/mcp_config.json"}},
		{"darwin", map[string]string{"HOME": "/Users/u"}, []string{
			"/Users/u/Library/Application Support/Claude/claude_desktop_config.json",
			"/Users/u/Library/Application Support/Code/User/mcp.json", "/Users/u/Library/Application Support/Code/User/settings.json",
			"/Users/u/Library/Application Support/Code - Insiders/User/mcp.json", "/Users/u/Library/Application Support/Code - Insiders/User/settings.json",
			"/Users/u/.cursor/mcp.json", "/Users/u/.codeium/windsurf/mcp_config.json"}},
		{"windows", map[string]string{"USERPROFILE": "/U", "APPDATA": "/U/AppData/Roaming"}, []string{
			"/U/AppData/Roaming/Claude/claude_desktop_config.json",
			"/U/AppData/Roaming/Code/User/mcp.json", "/U/AppData/Roaming/Code/User/settings.json",
			"/U/AppData/Roaming/Code - Insiders/User/mcp.json", "/U/AppData/Roaming/Code - Insiders/User/settings.json",
			"/U/.cursor/mcp.json", "/U/.codeium/windsurf/mcp_config.json"}},
	}
	for _, c := range cases {
		var got []string
		for _, f := range HostFiles(c.goos, env(c.vars)) {
			got = append(got, filepath.ToSlash(f.Path))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %v:\n got %q\nwant %q", c.goos, c.vars, got, c.want)
		}
	}
}
