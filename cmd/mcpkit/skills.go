package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// skillsExample is skills' --help Example section (TestHelpExamplesRun runs it
// against the demo server, which serves no skills: show and pull have theirs).
const skillsExample = `  mcpkit skills list -- mcpkit serve
  mcpkit skills list --json --url http://127.0.0.1:8080/mcp`

// newSkillsCmd returns `mcpkit skills`: the server's skills (SEP-2640).
func newSkillsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "skills",
		Short:   "List, show and pull the server's skills (the io.modelcontextprotocol/skills extension)",
		Example: skillsExample,
	}
	list := clientCmd(g, "list", "List the server's skills (fetching none of their files)", "  mcpkit skills list -- mcpkit serve", 0,
		func(ctx context.Context, cs *mcp.ClientSession, _ []string) error { return listSkills(ctx, g, cs) })
	show := clientCmd(g, "show SKILL_URI", "Show a skill's entry: its frontmatter and files with their sizes and digests",
		"  mcpkit skills show skill://pdf-processing/SKILL.md --url http://127.0.0.1:8080/mcp", 1,
		func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return showSkill(ctx, g, cs, args[0])
		})
	pull := clientCmd(g, "pull SKILL_URI DIR", "Fetch a skill's files into DIR, each verified against the skill's entry",
		"  mcpkit skills pull skill://pdf-processing/SKILL.md ./pdf-processing --url http://127.0.0.1:8080/mcp", 2,
		func(ctx context.Context, cs *mcp.ClientSession, args []string) error {
			return pullSkill(ctx, cs, args[0], args[1])
		})
	pull.Long = "Fetch every file of the skill whose SKILL.md is at SKILL_URI into DIR (created if missing; files already there are " +
		"not overwritten). Each file is checked against the skill's entry (size, sha256 digest, and SKILL.md's frontmatter) before " +
		"anything is written; a file that does not match fails the pull. Files are written inside DIR only, never through a " +
		"symbolic link. A dynamic skill, which publishes no digests, is refused."
	cmd.AddCommand(list, show, pull)
	return cmd
}

// listSkills prints every skill: URI, name, file count and description.
func listSkills(ctx context.Context, g *globalFlags, cs *mcp.ClientSession) error {
	c := skills.NewClient(cs)
	if !c.Supported() {
		fmt.Fprintf(os.Stderr, "mcpkit: %s does not declare %s: no skills\n", capture.TermSafe(serverName(cs)), skills.Extension)
		if g.json {
			return printJSON([]skills.Skill{})
		}
		return nil
	}
	all := []skills.Skill{}
	for s, err := range c.All(ctx) {
		if err != nil {
			return err
		}
		all = append(all, s)
	}
	if g.json {
		return printJSON(all)
	}
	for _, s := range all {
		files := "dynamic"
		if !s.Dynamic {
			files = strconv.Itoa(len(s.Resources)) + " files"
		}
		fmt.Printf("%s  %s (%s) — %s\n", capture.TermSafe(s.URI), capture.TermSafe(s.Name()), files, capture.TermSafe(s.Description()))
	}
	return nil
}

// showSkill prints a skill's entry.
func showSkill(ctx context.Context, g *globalFlags, cs *mcp.ClientSession, uri string) error {
	e, err := skills.NewClient(cs).Get(ctx, uri)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e)
	}
	fmt.Println(capture.TermSafe(e.URI))
	for k, v := range e.Frontmatter {
		fmt.Printf("  %s: %s\n", capture.TermSafe(k), capture.TermSafe(fmt.Sprint(v)))
	}
	if e.Dynamic {
		fmt.Println("  files: dynamic (generated; no digests)")
		return nil
	}
	for _, r := range e.Resources {
		fmt.Printf("  %s  %d bytes  %s\n", capture.TermSafe(r.URI), r.Size, capture.TermSafe(r.Digest))
	}
	return nil
}

// pullSkill fetches the skill at uri into dir, every file verified before any
// is written.
func pullSkill(ctx context.Context, cs *mcp.ClientSession, uri, dir string) error {
	c := skills.NewClient(cs)
	e, err := c.Get(ctx, uri)
	if err != nil {
		return err
	}
	if e.Dynamic {
		return fmt.Errorf("%s is a dynamic skill: it publishes no digests, so its files cannot be verified", capture.TermSafe(uri))
	}
	l, err := c.Load(ctx, e)
	if err != nil {
		return err
	}
	root := strings.TrimSuffix(e.URI, skills.SkillFile)
	files := map[string][]byte{}
	for _, r := range e.Resources {
		rel, err := skillRelPath(root, r.URI)
		if err != nil {
			return err
		}
		data := l.SkillMD
		if r.URI != e.URI {
			if data, err = l.ReadFile(ctx, r.URI); err != nil {
				return err
			}
		}
		files[rel] = data
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer out.Close()
	// SKILL.md goes last: a pull that fails half way leaves no loadable skill.
	rels := slices.Sorted(maps.Keys(files))
	slices.SortStableFunc(rels, func(a, b string) int {
		return cmp.Compare(boolInt(a == skills.SkillFile), boolInt(b == skills.SkillFile))
	})
	for _, rel := range rels {
		data := files[rel]
		if err := writeNew(out, rel, data); err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(dir, rel), err)
		}
	}
	fmt.Printf("pulled %s (%d files, verified) into %s\n", capture.TermSafe(e.URI), len(files), dir)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// skillRelPath returns the local path of the file at uri within the skill
// whose directory URI (with a trailing /) is root: its segments unescaped,
// refusing empty, ".", ".." and segments holding a separator or NUL.
func skillRelPath(root, uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, root)
	if !ok || rest == "" {
		return "", fmt.Errorf("%s is not within the skill", capture.TermSafe(uri))
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil || u == "" || u == "." || u == ".." || strings.ContainsAny(u, "/\\\x00") || filepath.IsAbs(u) || filepath.VolumeName(u) != "" {
			return "", fmt.Errorf("%s: unsafe file path", capture.TermSafe(uri))
		}
		segs[i] = u
	}
	return filepath.Join(segs...), nil
}

// writeNew writes a new file at rel in root: parents are made inside root
// (os.Root refuses a path, or a symbolic link, that leads out of it), and the
// file itself is created exclusively, so a symbolic link planted at its name
// is not followed but fails the write.
func writeNew(root *os.Root, rel string, data []byte) error {
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errors.New("it already exists (pull into an empty directory)")
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
