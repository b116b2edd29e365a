package skills_test

import (
	"context"
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// A server publishes skills (here from an fs.FS; Server.AddDir reads a
// directory on disk); a client lists them without fetching any file, loads
// one when it needs it, and reads its other files as they are needed, each
// verified against the entry it listed.
func ExampleServer() {
	ctx := context.Background()
	sk := skills.NewServer(&skills.Options{DirectoryRead: true})
	err := sk.AddFS(fstest.MapFS{
		"git-workflow/SKILL.md":            {Data: []byte("---\nname: git-workflow\ndescription: Branch and commit the team's way\n---\nSee reference/naming.md.\n")},
		"git-workflow/reference/naming.md": {Data: []byte("feature/<ticket>-<slug>\n")},
	}, "")
	if err != nil {
		panic(err)
	}
	srv := mcp.NewServer(protocol.Implementation{Name: "team", Version: "1"}, nil)
	sk.Register(srv)

	c, s := memory.NewPair()
	if _, err := srv.Connect(ctx, s); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, c)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	client := skills.NewClient(cs)
	for entry, err := range client.All(ctx) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s (%d files)\n", entry.Name(), entry.Description(), len(entry.Resources))
		loaded, err := client.Load(ctx, &entry)
		if err != nil {
			panic(err)
		}
		naming, err := loaded.ReadFile(ctx, "skill://git-workflow/reference/naming.md")
		fmt.Printf("%q %v\n", naming, err)
		_, err = loaded.ReadFile(ctx, "skill://git-workflow/unlisted.md")
		fmt.Println(errors.Is(err, skills.ErrVerification))
	}
	// Output:
	// git-workflow: Branch and commit the team's way (2 files)
	// "feature/<ticket>-<slug>\n" <nil>
	// true
}
