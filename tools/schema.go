package tools

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// parameters is a tool's compiled argument schema. The source is kept so
// that problems can be explained in the schema author's own words and
// property order, which the compiled form loses.
type parameters struct {
	source json.RawMessage
	schema *jsonschema.Schema
}

// schemaURL names a tool's schema inside the compiler made for it.
const schemaURL = "toolscope:parameters"

func compile(source json.RawMessage) (*parameters, error) {
	if len(bytes.TrimSpace(source)) == 0 {
		return nil, errors.New(`no parameters schema; use {"type": "object"} for a tool that takes no arguments`)
	}
	if err := CheckSchemaBounds(source); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(source))
	if err != nil {
		return nil, fmt.Errorf("parameters schema is not valid JSON: %w", err)
	}
	if obj, ok := doc.(map[string]any); !ok || obj["type"] != "object" {
		return nil, errors.New(`parameters schema must have "type": "object", since arguments are a JSON object`)
	}

	// One compiler per tool: a failed compile leaves its resource behind in
	// the compiler, and a fresh one costs microseconds.
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // draft 2020-12 would otherwise treat "format" as a mere note
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("parameters schema: %w", err)
	}
	schema, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("invalid parameters schema: %s", schemaProblems(err))
	}
	return &parameters{source: bytes.Clone(source), schema: schema}, nil
}

// noLoader keeps schemas self-contained: following a $ref to a file or a
// URL would let a tool's schema (one from an MCP server, say) read the
// local disk or reach the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("tool schemas must be self-contained; move the referenced schema under $defs")
}

// schemaProblems flattens the library's multi-line report on a schema that
// breaks the JSON Schema rules into one line per problem.
func schemaProblems(err error) string {
	var invalid *jsonschema.SchemaValidationError
	if !errors.As(err, &invalid) {
		return err.Error()
	}
	var verr *jsonschema.ValidationError
	if !errors.As(invalid.Err, &verr) {
		return err.Error()
	}
	var lines []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			lines = append(lines, e.Error()) // a leaf prints as one line
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(verr)
	return strings.Join(lines, "; ")
}

// check validates args and explains every problem found in one error.
func (p *parameters) check(tool string, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON (%v); write them as one JSON object", err)
	}
	var verr *jsonschema.ValidationError
	if err := p.schema.Validate(inst); !errors.As(err, &verr) {
		return err // nil: the arguments are valid
	}

	e := explainer{tool: tool, schema: p.source, args: inst}
	problems := e.explain(verr)
	// The library walks objects in map order; sorting by path makes the
	// message the same on every run.
	slices.SortStableFunc(problems, func(a, b problem) int { return comparePaths(a.path, b.path) })
	texts := make([]string, 0, len(problems))
	for _, pr := range problems {
		if !slices.Contains(texts, pr.text) {
			texts = append(texts, pr.text)
		}
	}
	return errors.New(strings.Join(texts, "; "))
}

// comparePaths orders instance locations, array indices by number.
func comparePaths(a, b []string) int {
	for i := range min(len(a), len(b)) {
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
		} else if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
