// Package safefile writes files without following planted symlinks: the new
// contents go to a temporary file created exclusively (O_EXCL, a random name)
// in the destination's directory, synced, and renamed over the destination,
// so that a reader sees the old file or the new one, never half of one, and a
// symlink planted where a temporary file or a file of the program's own would
// go is never written through.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Replace replaces the contents of the file at path with data, atomically.
// When path is a symlink (a configuration kept in a dotfiles repository), the
// file it points to is replaced and the link stays a link. The new file keeps
// the old one's permissions, or has perm when there was none. A dangling
// symlink at path is refused: writing would create a file wherever it points.
func Replace(path string, data []byte, perm fs.FileMode) error {
	target, err := filepath.EvalSymlinks(path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: a symlink to a missing file: not written through", path)
		}
		target = path
	default:
		return err
	}
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
	}
	return write(target, data, perm)
}

// WriteOwn writes data to path as a file of the program's own (a backup, a
// state file, a token): a symlink or anything else at path is replaced
// itself, never written through. The file has permissions perm.
func WriteOwn(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm)
}

// ReadOwn reads a file the program wrote with WriteOwn, refusing a symlink
// (planted in its place, it would make the program read what it points to).
func ReadOwn(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (a symlink?): not read", path)
	}
	return os.ReadFile(path)
}

// write puts data at path through a temporary file in path's directory.
func write(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp") // O_EXCL, a random name
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil { // the rename itself, on disk
		_ = d.Sync()
		d.Close()
	}
	return nil
}
