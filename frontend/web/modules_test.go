package web

import (
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// importRE finds a module's static imports of the page's other modules.
var importRE = regexp.MustCompile(`(?m)^import [^;]* from '\./([a-z]+\.js)';`)

// The page's modules import one another without a cycle: a cycle makes
// what a module sees at load depend on which of the two loaded first.
func TestPageModulesHaveNoImportCycle(t *testing.T) {
	imports := map[string][]string{}
	paths, err := fs.Glob(Static, "static/*.js")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no modules found: %v", err)
	}
	for _, path := range paths {
		src, err := fs.ReadFile(Static, path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(path, "static/")
		for _, m := range importRE.FindAllStringSubmatch(string(src), -1) {
			imports[name] = append(imports[name], m[1])
		}
	}
	if cycle := findCycle(imports); cycle != nil {
		t.Errorf("the modules import one another in a circle: %s", strings.Join(cycle, " → "))
	}
}

// findCycle returns a path of imports that comes back to its start, or nil.
func findCycle(imports map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(m string) []string {
		switch state[m] {
		case open:
			return append(slices.Clone(path[slices.Index(path, m):]), m)
		case done:
			return nil
		}
		state[m] = open
		path = append(path, m)
		for _, next := range imports[m] {
			if cycle := visit(next); cycle != nil {
				return cycle
			}
		}
		path = path[:len(path)-1]
		state[m] = done
		return nil
	}
	for _, m := range slices.Sorted(maps.Keys(imports)) {
		if cycle := visit(m); cycle != nil {
			return cycle
		}
	}
	return nil
}
