package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/engine"
)

var update = flag.Bool("update", false, "rewrite the settings table of docs/cli.md from engine's table")

// The marks around the generated table in docs/cli.md.
const (
	tableStart = "<!-- settings table: generated from engine/fields.go by go test ./cmd/toolscope -run TestDocsSettingsTable -update -->"
	tableEnd   = "<!-- end of the settings table -->"
)

const cliDoc = "../../docs/cli.md"

// TestDocsSettingsTable keeps docs/cli.md's settings table the settings
// table's: it fails when a row was added or changed and the docs were not
// regenerated, and -update regenerates them.
func TestDocsSettingsTable(t *testing.T) {
	doc, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := withSettingsTable(string(doc), settingsTable(engine.Fields()))
	if err != nil {
		t.Fatal(err)
	}
	if want == string(doc) {
		return
	}
	if !*update {
		t.Fatalf("docs/cli.md's settings table is stale: run go test ./cmd/toolscope -run TestDocsSettingsTable -update")
	}
	if err := os.WriteFile(cliDoc, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withSettingsTable returns doc with table between its marks.
func withSettingsTable(doc, table string) (string, error) {
	before, rest, ok := strings.Cut(doc, tableStart)
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok || !ok2 {
		return "", fmt.Errorf("docs/cli.md lacks the marks %q and %q", tableStart, tableEnd)
	}
	return before + tableStart + "\n" + table + tableEnd + after, nil
}

// settingsTable is a Markdown table of each group's settings, as -h lists
// them: flag, variable, the field of a run request (— for the server's
// own), default and help.
func settingsTable(fields []engine.Field) string {
	defaults := engine.Defaults()
	var b strings.Builder
	for _, group := range []engine.Group{engine.GroupModel, engine.GroupTools, engine.GroupLoop, engine.GroupTraces} {
		fmt.Fprintf(&b, "\n**%s**\n\n| flag | variable | request field | default | meaning |\n| --- | --- | --- | --- | --- |\n", group)
		for _, f := range fields {
			if f.Group != group {
				continue
			}
			request, value := "—", "none"
			if f.Request {
				request = code(f.Key())
			}
			if text := f.Text(defaults); text != "" {
				value = code(text)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", code("--"+f.Flag()), code(f.Env()), request, value, strings.ReplaceAll(f.Help, "|", `\|`))
		}
	}
	b.WriteString("\n")
	return b.String()
}

func code(s string) string { return "`" + s + "`" }

// TestDocsRunSettingsExample keeps the example of a run's settings in
// docs/http-api.md true: the keys a run records, in their order, and
// sampling last.
func TestDocsRunSettingsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/http-api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "### A run's settings")
	_, block, _ := strings.Cut(section, "```json\n")
	block, _, _ = strings.Cut(block, "```")
	dec := json.NewDecoder(strings.NewReader(block))
	var keys []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatalf("the example is not a JSON object: %v", err)
	}
	for dec.More() {
		key, _ := dec.Token()
		keys = append(keys, key.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("the example: %v", err)
		}
	}
	var want []string
	for _, v := range engine.Defaults().Values() {
		want = append(want, v.Key)
	}
	want = append(want, engine.KeySampling)
	if !slices.Equal(keys, want) {
		t.Errorf("docs/http-api.md's example of a run's settings has keys\n%v\nwant\n%v", keys, want)
	}
}
