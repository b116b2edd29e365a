package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
)

// scenariosSkills are the client scenarios of the Skills extension (SEP-2640,
// suite 0.2.0-alpha.12). The client behaves as a host would: it builds its
// registry from skills/list and fetches nothing more (no-prefetch); asked to
// load a skill, it reads SKILL.md, verifies it against the entry and, only if
// it verifies, reads the supporting files (the verify-* scenarios serve a
// SKILL.md that must be refused, and watch for the supporting file's read).
var scenariosSkills = map[string]scenario{
	"sep-2640-client-no-prefetch":        {play: ignoreContext(listSkills)},
	"sep-2640-client-verify-digest":      {play: ignoreContext(loadSkills)},
	"sep-2640-client-verify-size":        {play: ignoreContext(loadSkills)},
	"sep-2640-client-verify-frontmatter": {play: ignoreContext(loadSkills)},
}

func init() {
	for name, sc := range scenariosSkills {
		scenarios[name] = sc
	}
}

// listSkills lists every skill, fetching none of their files.
func listSkills(ctx context.Context, cs *mcp.ClientSession) error {
	_, err := registry(ctx, cs)
	return err
}

// registry returns every skill the server lists.
func registry(ctx context.Context, cs *mcp.ClientSession) ([]skills.Skill, error) {
	c := skills.NewClient(cs)
	var all []skills.Skill
	for s, err := range c.All(ctx) {
		if err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	return all, nil
}

// loadSkills loads every listed skill and reads the files of those that
// verify. A skill that fails verification is refused, which is the host's
// correct behaviour rather than an error of the client.
func loadSkills(ctx context.Context, cs *mcp.ClientSession) error {
	all, err := registry(ctx, cs)
	if err != nil {
		return err
	}
	c := skills.NewClient(cs)
	for i := range all {
		l, err := c.Load(ctx, &all[i])
		if errors.Is(err, skills.ErrVerification) {
			slog.Info("refused a skill that failed verification", "uri", all[i].URI, "error", err)
			continue
		}
		if err != nil {
			return err
		}
		for _, r := range l.Entry.Resources {
			if r.URI == l.Entry.URI {
				continue
			}
			if _, err := l.ReadFile(ctx, r.URI); err != nil {
				return fmt.Errorf("reading %s: %w", r.URI, err)
			}
		}
	}
	return nil
}
