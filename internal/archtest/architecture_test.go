// Package archtest holds the test that keeps docs/architecture.md true to
// the code: its package map names every package `go list ./...` finds and
// no other, every package sits on one of its layers, and no import runs
// sideways or back up a layer, nor breaks a rule the page states in words,
// and every source file it names is there. It has no code of its own.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's directory, seen from this package's.
const root = "../.."

// pkg is what `go list -json` says of a package that the checks need.
// Paths are relative to the module ("agent", "llm/ollama"); imports of
// packages outside the module keep their full path.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Module     struct{ Path string }
}

func TestArchitectureDocIsTrue(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := goList(t)
	for _, problem := range check(string(doc), pkgs) {
		t.Error(problem)
	}
	for _, problem := range fileProblems(string(doc), repoFiles(t)) {
		t.Error(problem)
	}
}

func TestFileProblemsNameAFileGone(t *testing.T) {
	files := map[string]bool{"agent/agent.go": true, "agent": true, "agent.go": true}
	doc := "`agent/agent.go`, `agent.go`, `agent/gone.go`, `sse.go`, `Settings.With`"
	want := []string{
		"docs/architecture.md names `agent/gone.go`, which is not in the repository",
		"docs/architecture.md names `sse.go`, which is not in the repository",
	}
	if got := fileProblems(doc, files); !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestChecksCatchAWrongDoc breaks the real page in the ways it can go
// stale, and expects each to be named: a check that passes whatever the
// page says would prove nothing.
func TestChecksCatchAWrongDoc(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, pkgs := string(raw), goList(t)
	breaks := []struct {
		name  string
		edits []string // old, new, old, new, … applied in turn
		want  string
	}{
		{"a package's row gone", []string{"| `runs` |", "| `runz` |"},
			"the package map in docs/architecture.md lacks `runs`"},
		{"a row for a package that is gone", []string{"| `runs` |", "| `tools/gone` | x | y |\n| `runs` |"},
			"the package map names `tools/gone`, which `go list ./...` does not find"},
		{"a package on no line", []string{"| `agent`, ", "| "},
			"`agent` is on no line of the layers"},
		{"a package on the line of a package that imports it",
			[]string{"`tools/retrieve`, ", "", "| `agent`, ", "| `agent`, `tools/retrieve`, "},
			"`agent` imports `tools/retrieve`, on its own line of the layers or one above (agent/event.go)"},
	}
	for _, b := range breaks {
		t.Run(b.name, func(t *testing.T) {
			broken := doc
			for i := 0; i < len(b.edits); i += 2 {
				if !strings.Contains(broken, b.edits[i]) {
					t.Fatalf("docs/architecture.md no longer holds %q: update this test's break", b.edits[i])
				}
				broken = strings.Replace(broken, b.edits[i], b.edits[i+1], 1)
			}
			problems := check(broken, pkgs)
			if !slices.Contains(problems, b.want) {
				t.Errorf("want %q among the problems, got:\n%s", b.want, strings.Join(problems, "\n"))
			}
		})
	}
}

// TestImportRulesCatchAWrongImport gives the rules that are not lines of
// the layers an import each that breaks them.
func TestImportRulesCatchAWrongImport(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: "frontend/web", Imports: []string{"llm/demo"}},
		{ImportPath: "runs", Imports: []string{"tools/toolstest"}},
		{ImportPath: "agent", Imports: []string{"github.com/ollama/ollama/api"}},
		{ImportPath: "engine", Imports: []string{"llm/demo", "llm/ollama"}},
	}
	problems := append(importerProblems(pkgs), outsideProblems(pkgs)...)
	want := []string{
		"`frontend/web` imports `llm/demo`, which only `engine` may import outside tests ()",
		"`runs` imports `tools/toolstest`, which only tests may import ()",
		"`agent` imports `github.com/ollama/ollama/api`, which only `llm/ollama`, `llm/template`, `llm/ollama/ollamatest`, `tools/retrieve` may import outside tests ()",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// check lists every way doc is untrue to pkgs.
func check(doc string, pkgs []pkg) []string {
	var problems []string
	problems = append(problems, mapProblems(doc, pkgs)...)
	layers, layerErrs := readLayers(doc, pkgs)
	problems = append(problems, layerErrs...)
	problems = append(problems, importProblems(layers, pkgs)...)
	problems = append(problems, importerProblems(pkgs)...)
	problems = append(problems, outsideProblems(pkgs)...)
	return problems
}

// mapProblems compares the first column of the section "The package map"
// with the packages that exist.
func mapProblems(doc string, pkgs []pkg) []string {
	var problems []string
	named := map[string]bool{}
	for _, row := range table(doc, "## The package map") {
		for _, name := range codeSpans(row[0]) {
			named[name] = true
		}
	}
	for _, p := range pkgs {
		if !named[p.ImportPath] {
			problems = append(problems, fmt.Sprintf("the package map in docs/architecture.md lacks `%s`", p.ImportPath))
		}
		delete(named, p.ImportPath)
	}
	for _, name := range sortedKeys(named) {
		problems = append(problems, fmt.Sprintf("the package map names `%s`, which `go list ./...` does not find", name))
	}
	return problems
}

// readLayers reads the table of the section "The layers": its rows from
// the top line down, each naming its packages in its second column. A
// package's layer is its row's index counted from the bottom, so that a
// package may import those of lower numbers only.
func readLayers(doc string, pkgs []pkg) (map[string]int, []string) {
	var problems []string
	rows := table(doc, "## The layers")
	layer := map[string]int{}
	for i, row := range rows {
		if len(row) < 2 {
			problems = append(problems, fmt.Sprintf("the layers' row %q has no packages column", strings.Join(row, " | ")))
			continue
		}
		for _, name := range codeSpans(row[1]) {
			if _, twice := layer[name]; twice {
				problems = append(problems, fmt.Sprintf("`%s` is on two lines of the layers", name))
			}
			layer[name] = len(rows) - 1 - i
		}
	}
	known := map[string]bool{}
	for _, p := range pkgs {
		known[p.ImportPath] = true
		if _, ok := layer[p.ImportPath]; !ok {
			problems = append(problems, fmt.Sprintf("`%s` is on no line of the layers", p.ImportPath))
		}
	}
	for _, name := range sortedKeys(layer) {
		if !known[name] {
			problems = append(problems, fmt.Sprintf("the layers name `%s`, which `go list ./...` does not find", name))
		}
	}
	return layer, problems
}

// importProblems names each import (tests' aside: they may reach
// further) of a package on its own line of the layers or above.
func importProblems(layer map[string]int, pkgs []pkg) []string {
	var problems []string
	for _, p := range pkgs {
		from, placed := layer[p.ImportPath]
		for _, imp := range p.Imports {
			to, ours := layer[imp]
			if placed && ours && to >= from {
				problems = append(problems, fmt.Sprintf("`%s` imports `%s`, on its own line of the layers or one above (%s)",
					p.ImportPath, imp, filesImporting(p, imp)))
			}
		}
	}
	return problems
}

// importers are the rules of "The layers" that the lines cannot say: who
// may import a package (outside tests). A test helper is imported by tests
// and other test helpers only; engine is the only package that knows every
// backend, and others know Ollama's, for what the page says and to pull a
// model; the page
// (frontend/web) gets its view of the settings from the server, not engine.
var importers = map[string][]string{
	"llm/demo":                    {"engine"},
	"llm/ollama":                  {"engine", "frontend/server", "cmd/toolscope"},
	"llm/openai":                  {"engine"},
	"engine":                      {"cmd/toolscope", "cmd/load", "frontend/server", "eval/suite", "eval/runner"},
	"mcpserver":                   {"cmd/toolscope", "scripts/conformance/server"},
	"internal/nettest":            {},
	"llm/ollama/ollamatest":       {},
	"llm/llmtest":                 {"llm/ollama/ollamatest", "llm/openai/openaitest"},
	"llm/openai/openaitest":       {},
	"tools/toolstest":             {},
	"tools/retrieve/retrievetest": {},
	"tools/mcp/askstest":          {},
	"tools/mcp/oauthtest":         {},
}

func importerProblems(pkgs []pkg) []string {
	var problems []string
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if allowed, ruled := importers[imp]; ruled && !slices.Contains(allowed, p.ImportPath) {
				problems = append(problems, fmt.Sprintf("`%s` imports `%s`, which %s (%s)",
					p.ImportPath, imp, whoMay(allowed), filesImporting(p, imp)))
			}
		}
	}
	return problems
}

// outside are the modules "The layers" says only some packages import:
// Ollama's (llm/ollama and its packages, and tools/retrieve's embedder)
// and the OpenAI SDK (llm/openai alone).
var outside = map[string][]string{
	"github.com/ollama/ollama":       {"llm/ollama", "llm/template", "llm/ollama/ollamatest", "tools/retrieve"},
	"github.com/openai/openai-go/v3": {"llm/openai"},
}

func outsideProblems(pkgs []pkg) []string {
	var problems []string
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			for module, allowed := range outside {
				if (imp == module || strings.HasPrefix(imp, module+"/")) && !slices.Contains(allowed, p.ImportPath) {
					problems = append(problems, fmt.Sprintf("`%s` imports `%s`, which %s (%s)",
						p.ImportPath, imp, whoMay(allowed), filesImporting(p, imp)))
				}
			}
		}
	}
	return problems
}

// sourceFile matches a code span that names a source file, alone
// ("api.go") or with its directory ("agent/agent.go").
var sourceFile = regexp.MustCompile("`([\\w./-]+\\.(?:go|js|templ|css))`")

// fileProblems names each source file doc mentions that files (paths from
// the module's root, and the files' names alone) lacks: a file renamed or
// removed since the page was written.
func fileProblems(doc string, files map[string]bool) []string {
	var problems []string
	for _, m := range sourceFile.FindAllStringSubmatch(doc, -1) {
		if !files[m[1]] {
			problems = append(problems, fmt.Sprintf("docs/architecture.md names `%s`, which is not in the repository", m[1]))
		}
	}
	return problems
}

// repoFiles lists the module's files, each by its path from the root and
// by its name alone.
func repoFiles(t *testing.T) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = true
		files[d.Name()] = true
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// table returns the cells of the first Markdown table after heading, its
// header and rule rows left out.
func table(doc, heading string) [][]string {
	_, section, found := strings.Cut(doc, "\n"+heading+"\n")
	if !found {
		return nil
	}
	var rows [][]string
	started := false
	for line := range strings.Lines(section) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		return nil
	}
	return rows[2:]
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// codeSpans returns the text of cell's code spans: the package names.
func codeSpans(cell string) []string {
	var names []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		names = append(names, m[1])
	}
	return names
}

// goList lists the module's packages, with their imports relative to the
// module as the page writes them.
func goList(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		module := p.Module.Path + "/"
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		for i, imp := range p.Imports {
			p.Imports[i] = strings.TrimPrefix(imp, module)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// filesImporting names the files of p that import imp (module-relative
// imp), for a problem to point at.
func filesImporting(p pkg, imp string) string {
	var files []string
	for _, name := range p.GoFiles {
		path := filepath.Join(p.Dir, name)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if got, _ := strconv.Unquote(spec.Path.Value); got == imp || got == p.Module.Path+"/"+imp {
				files = append(files, filepath.ToSlash(filepath.Join(p.ImportPath, name)))
				break
			}
		}
	}
	return strings.Join(files, ", ")
}

// whoMay words who may import a package besides tests.
func whoMay(names []string) string {
	if len(names) == 0 {
		return "only tests may import"
	}
	return "only `" + strings.Join(names, "`, `") + "` may import outside tests"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
