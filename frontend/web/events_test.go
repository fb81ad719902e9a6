package web

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite static/events.js from package agent")

// eventsModule is the generated module, and agentDir the package whose
// constants it names.
const (
	eventsModule = "static/events.js"
	agentDir     = "../../agent"
)

// TestEventsModuleIsCurrent checks that static/events.js names the event
// types and finish reasons that package agent defines, so that the page's
// scripts use the Go names and not string literals of their own. Run with
// -update to write it anew after a change to agent.Type or agent.Reason.
func TestEventsModuleIsCurrent(t *testing.T) {
	types, err := agentConstants(agentDir, "Type")
	if err != nil {
		t.Fatal(err)
	}
	reasons, err := agentConstants(agentDir, "Reason")
	if err != nil {
		t.Fatal(err)
	}
	want := eventsJS(types, reasons)
	if *update {
		if err := os.WriteFile(eventsModule, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(eventsModule)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date with agent.Type and agent.Reason: run go test ./frontend/web -run TestEventsModuleIsCurrent -update\nwant:\n%s", eventsModule, want)
	}
}

// TestScriptsNameEventsThroughTheModule checks that no script but
// events.js quotes an event type: a literal would not follow a rename in
// package agent. Only the names of more than one word are looked for, as
// "error" or "token" are words the scripts also use for other things.
func TestScriptsNameEventsThroughTheModule(t *testing.T) {
	types, err := agentConstants(agentDir, "Type")
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := fs.Glob(Static, "static/*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range scripts {
		if path == eventsModule {
			continue
		}
		src, err := fs.ReadFile(Static, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range types {
			if !strings.Contains(c.Value, "_") {
				continue
			}
			for _, quote := range []string{"'", `"`, "`"} {
				if bytes.Contains(src, []byte(quote+c.Value+quote)) {
					t.Errorf("%s quotes the event type %s: use EventType.%s from events.js", path, c.Value, c.Name)
				}
			}
		}
	}
}

// TestAgentConstantsReadsEveryKind checks the reader on a package of its
// own making: grouped and single constants, trailing and doc comments,
// and constants of other types left out.
func TestAgentConstantsReadsEveryKind(t *testing.T) {
	dir := t.TempDir()
	src := `package agent

type Type string

const (
	A Type = "a" // the first
	B Type = "b"
	Other  = "x"
)

// C comes alone.
const C Type = "c"

const D string = "d"
`
	if err := os.WriteFile(dir+"/event.go", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := agentConstants(dir, "Type")
	if err != nil {
		t.Fatal(err)
	}
	want := []constant{{"A", "a", "the first"}, {"B", "b", ""}, {"C", "c", "C comes alone."}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("agentConstants = %v, want %v", got, want)
	}
}

// A constant is one of package agent's named strings, with its comment.
type constant struct {
	Name, Value, Doc string
}

// agentConstants reads, from the Go source in dir (tests left out), the
// string constants declared with the named type, in source order.
func agentConstants(dir, typeName string) ([]constant, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []constant
	for _, entry := range entries {
		name := entry.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, dir+"/"+name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		consts, err := fileConstants(file, typeName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, consts...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no constants of type %s in %s", typeName, dir)
	}
	return out, nil
}

func fileConstants(file *ast.File, typeName string) ([]constant, error) {
	var out []constant
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != typeName {
				continue
			}
			for i, name := range vs.Names {
				var lit *ast.BasicLit
				if i < len(vs.Values) {
					lit, _ = vs.Values[i].(*ast.BasicLit)
				}
				if lit == nil || lit.Kind != token.STRING {
					return nil, fmt.Errorf("%s is not a string literal: the generator reads only those", name.Name)
				}
				value, err := strconv.Unquote(lit.Value)
				if err != nil {
					return nil, err
				}
				out = append(out, constant{Name: name.Name, Value: value, Doc: specDoc(gen, vs)})
			}
		}
	}
	return out, nil
}

// specDoc is a constant's comment: the one on its line, or the one above
// it, or above its declaration when it is declared alone.
func specDoc(gen *ast.GenDecl, vs *ast.ValueSpec) string {
	for _, c := range []*ast.CommentGroup{vs.Comment, vs.Doc} {
		if c != nil {
			return strings.TrimSpace(c.Text())
		}
	}
	if !gen.Lparen.IsValid() && gen.Doc != nil {
		return strings.TrimSpace(gen.Doc.Text())
	}
	return ""
}

// eventsJS writes the module: one frozen object per Go type, keyed by the
// Go names, and a JSDoc type for the values of each.
func eventsJS(types, reasons []constant) []byte {
	var b bytes.Buffer
	b.WriteString(`// events.js: the names of a run's events and of the ways a run finishes,
// as package agent defines them (agent.Type, agent.Reason), keyed by their
// Go names. The page's scripts use these, not string literals of their own.
//
// Code generated by TestEventsModuleIsCurrent in frontend/web from package
// agent; DO NOT EDIT. go test ./frontend/web -run TestEventsModuleIsCurrent -update
// writes it anew.
`)
	writeObject(&b, "EventType", "EventTypeName", "names an event of a run: its SSE event name and its JSON \"type\" (agent.Type).", types)
	writeObject(&b, "Reason", "ReasonName", "is how a run finished: the \"reason\" of a run_finished event (agent.Reason).", reasons)
	return b.Bytes()
}

func writeObject(b *bytes.Buffer, name, typedef, doc string, consts []constant) {
	fmt.Fprintf(b, "\n/** %s %s */\nexport const %s = Object.freeze({\n", name, doc, name)
	for _, c := range consts {
		if c.Doc != "" {
			lines := strings.Split(c.Doc, "\n")
			if len(lines) == 1 {
				fmt.Fprintf(b, "  /** %s */\n", lines[0])
			} else {
				b.WriteString("  /**\n")
				for _, line := range lines {
					fmt.Fprintf(b, "   * %s\n", line)
				}
				b.WriteString("   */\n")
			}
		}
		fmt.Fprintf(b, "  %s: %s,\n", c.Name, jsString(c.Value))
	}
	fmt.Fprintf(b, "});\n\n/** @typedef {typeof %s[keyof typeof %s]} %s */\n", name, name, typedef)
}

// jsString quotes s as the page's scripts quote strings.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
