package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Roots are the working folders a user names (--root): each server is
// told of them when it asks (roots/list), as file:// URIs, so that a
// filesystem server, say, works there and nowhere else. A server is only
// told that toolscope has roots when there are some: without them it
// declares no roots capability, and a server falls back on its own
// configuration.

// Root checks that dir is a directory and returns its absolute, cleaned
// path, which Options.Roots takes. Symbolic links are kept as written: a
// server resolves them as the user would. Its errors say what is wrong
// with dir without naming it, as the flag that gave it names it.
func Root(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("a root must name a directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	var pathErr *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errors.New("no such directory")
	case errors.As(err, &pathErr):
		return "", fmt.Errorf("cannot be read: %w", pathErr.Err)
	case err != nil:
		return "", fmt.Errorf("cannot be read: %w", err)
	case !info.IsDir():
		return "", errors.New("is not a directory")
	}
	return abs, nil
}

// rootURI is the file:// URI of an absolute path, as roots/list answers it.
func rootURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// rootsCapability is the roots capability a client declares: with
// listChanged, as the roots may change while a session lasts, and none
// at all without roots.
func rootsCapability(dirs []string) *sdk.RootCapabilities {
	if len(dirs) == 0 {
		return nil
	}
	return &sdk.RootCapabilities{ListChanged: true}
}

// addRoots gives client the roots to answer roots/list with, each named
// after its folder.
func addRoots(client *sdk.Client, dirs []string) {
	roots := make([]*sdk.Root, len(dirs))
	for i, dir := range dirs {
		roots[i] = &sdk.Root{URI: rootURI(dir), Name: filepath.Base(dir)}
	}
	client.AddRoots(roots...)
}
