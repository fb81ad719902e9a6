package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Registry holds the tools a run may call, in the order they were added.
// It is safe for concurrent use. The zero value is an empty registry.
type Registry struct {
	mu      sync.RWMutex
	entries []entry
	byName  map[string]int // index into entries
}

type entry struct {
	tool   Tool
	params *parameters
}

// NewRegistry returns a registry holding ts, in that order. It fails on the
// first tool that [Registry.Add] would reject.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add appends t to the registry. It compiles t's Parameters schema now, so
// that a broken schema shows up when the tool is added rather than when the
// model first calls it. A tool whose name is already taken, or breaks
// [CheckName], or whose schema breaks [CheckSchemaBounds], is rejected.
func (r *Registry) Add(t Tool) error {
	if t == nil {
		return errors.New("tools: cannot add a nil Tool")
	}
	name := t.Name()
	if name == "" {
		return fmt.Errorf("tools: a tool has an empty name (description %q); give it the name the model should call", summary(t))
	}
	params, err := prepare(t)
	if err != nil {
		return fmt.Errorf("tools: tool %q: %w", name, err)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.byName[name]; ok {
		return fmt.Errorf("tools: two tools are named %q: %q and %q; rename one of them",
			name, summary(r.entries[i].tool), summary(t))
	}
	if r.byName == nil {
		r.byName = make(map[string]int)
	}
	r.byName[name] = len(r.entries)
	r.entries = append(r.entries, entry{tool: t, params: params})
	return nil
}

// Check says why Add would refuse t whatever the registry: its name
// breaks [CheckName], or its schema [CheckSchemaBounds] or the JSON Schema
// rules. The error does not name t, for a caller that says where t comes
// from as well.
func Check(t Tool) error {
	_, err := prepare(t)
	return err
}

// prepare checks t's name and compiles its schema.
func prepare(t Tool) (*parameters, error) {
	if err := CheckName(t.Name()); err != nil {
		return nil, err
	}
	return compile(t.Parameters())
}

// AddAll adds each of ts that Add accepts, and returns why the others were
// left out, joined; nil when all were added. Tools from outside toolscope,
// such as an MCP server's, go in this way: one bad tool loses only itself.
func (r *Registry) AddAll(ts []Tool) error {
	var left []error
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			left = append(left, err)
		}
	}
	return errors.Join(left...)
}

// Lookup returns the tool with the given name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.entry(name)
	return e.tool, ok
}

// Tools returns the tools in the order they were added.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ts := make([]Tool, len(r.entries))
	for i, e := range r.entries {
		ts[i] = e.tool
	}
	return ts
}

// Names returns the tools' names in the order they were added.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.tool.Name()
	}
	return names
}

// Check validates args, which should be a JSON object, against the
// parameters schema of the named tool. Empty args count as {}.
//
// The error is written for the model to read and act on: it names each
// offending argument and says what was expected, for example
//
//	missing required argument "to"; argument "attendees[1]" must be a string, got number
//
// Every problem found is reported, joined with "; ".
func (r *Registry) Check(name string, args json.RawMessage) error {
	e, ok := r.entry(name)
	if !ok {
		names := r.Names()
		if len(names) == 0 {
			return fmt.Errorf("unknown tool %q; no tools are available", name)
		}
		return fmt.Errorf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))
	}
	return e.params.check(name, args)
}

func (r *Registry) entry(name string) (entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i, ok := r.byName[name]
	if !ok {
		return entry{}, false
	}
	return r.entries[i], true
}

// summary identifies a tool for a person reading an error: tools have
// nothing but a name and a description, so it is the description's first
// sentence.
func summary(t Tool) string {
	d := strings.TrimSpace(t.Description())
	if i := strings.IndexAny(d, ".\n"); i >= 0 {
		d = d[:i]
	}
	const limit = 60
	if r := []rune(d); len(r) > limit {
		d = string(r[:limit]) + "…"
	}
	return d
}
