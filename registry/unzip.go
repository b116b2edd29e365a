package registry

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// unzip unpacks the archive at file into dir, a new empty directory: only
// regular files and directories, each inside dir, maxBytes bytes and
// maxFiles members at most (an archive's members may share their compressed
// bytes: the sum of what is written is bounded, not each). Executable members
// stay executable.
func unzip(file, dir string, maxBytes int64, maxFiles int) error {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer zr.Close()
	if len(zr.File) > maxFiles {
		return fmt.Errorf("bundle: %d members, more than %d", len(zr.File), maxFiles)
	}
	budget := maxBytes
	for _, f := range zr.File {
		name := f.Name
		clean := path.Clean("/" + name)[1:]
		if name == "" || strings.Contains(name, `\`) || path.IsAbs(name) || clean == "" || clean != strings.TrimSuffix(name, "/") || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("bundle: member %q: not a plain relative path", name)
		}
		target := filepath.Join(dir, filepath.FromSlash(clean))
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		case !mode.IsRegular():
			return fmt.Errorf("bundle: member %q: a %v, not a regular file", name, mode.Type())
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		perm := os.FileMode(0o644)
		if mode&0o111 != 0 {
			perm = 0o755
		}
		n, err := extract(f, target, perm, budget)
		if err != nil {
			return err
		}
		budget -= n
	}
	return nil
}

// extract writes one member to target, at most budget bytes.
func extract(f *zip.File, target string, perm os.FileMode, budget int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("bundle: member %q: %w", f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, fmt.Errorf("bundle: member %q: %w", f.Name, err)
	}
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = errors.New("unpacks to more than the size allowed")
	}
	if err != nil {
		return n, fmt.Errorf("bundle: member %q: %w", f.Name, err)
	}
	return n, nil
}
