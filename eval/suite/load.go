package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
	"gopkg.in/yaml.v3"
)

// MaxRepeat is the most runs of one case a suite may ask for.
const MaxRepeat = 1000

// Load reads the suite file at path, YAML or JSON.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a suite from data, YAML or JSON (JSON is YAML), naming file
// in errors. Every problem found is an *Error, all joined; the suite is
// then nil: nothing of a suite runs unless all of it can.
func Parse(file string, data []byte) (*Suite, error) {
	top, err := document(file, data)
	if err != nil {
		return nil, err
	}
	r := &reader{file: file}
	s := r.suite(top)
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return s, nil
}

// shared is what a suite gives every case that does not give its own.
type shared struct {
	settings map[string]json.RawMessage
	repeat   int
	tools    Tools
}

func (r *reader) suite(top *yaml.Node) *Suite {
	f := r.fields(top, "", "name", "description", "settings", "repeat", "tools", "cases")
	s := &Suite{File: r.file}
	if f == nil {
		return s
	}
	if n := f["name"]; n != nil {
		s.Name, _ = r.text(n, "name")
	}
	if n := f["description"]; n != nil {
		s.Description, _ = r.text(n, "description")
	}
	all := shared{repeat: 1}
	if n := f["settings"]; n != nil {
		all.settings = r.settings(n, "settings")
	}
	if n := f["repeat"]; n != nil {
		all.repeat, _ = r.whole(n, "repeat", 1, MaxRepeat)
	}
	if n := f["tools"]; n != nil {
		all.tools = r.tools(n, "tools")
	}
	cases := f["cases"]
	if cases == nil || cases.Kind == yaml.SequenceNode && len(cases.Content) == 0 {
		r.fail(top, "cases", "a suite needs at least one case")
		return s
	}
	seen := map[string]int{}
	r.each(cases, "cases", func(n *yaml.Node, path string) {
		c := r.oneCase(n, path, all)
		if first, twice := seen[c.ID]; twice && c.ID != "" {
			r.fail(n, join(path, "id"), "%q is the id of the case on line %d too", c.ID, first)
		}
		seen[c.ID] = n.Line
		s.Cases = append(s.Cases, c)
	})
	return s
}

func (r *reader) oneCase(n *yaml.Node, path string, all shared) Case {
	// Each case its own map of settings, for a runner that adds to it.
	c := Case{Line: n.Line, Settings: merge(all.settings, nil), Repeat: all.repeat, Tools: all.tools}
	f := r.fields(n, path, "id", "request", "messages", "settings", "repeat", "tools", "expect")
	if f == nil {
		return c
	}
	if id := f["id"]; id != nil {
		c.ID, _ = r.text(id, join(path, "id"))
	} else {
		r.fail(n, join(path, "id"), "every case needs an id, the name its results go by")
	}
	switch request, messages := f["request"], f["messages"]; {
	case request != nil && messages != nil:
		r.fail(messages, join(path, "messages"), "give request or messages, not both")
	case request != nil:
		c.Request, _ = r.text(request, join(path, "request"))
	case messages != nil:
		c.Messages = r.messages(messages, join(path, "messages"))
	default:
		r.fail(n, join(path, "request"), "a case needs a request, or messages")
	}
	if s := f["settings"]; s != nil {
		c.Settings = merge(all.settings, r.settings(s, join(path, "settings")))
	}
	if repeat := f["repeat"]; repeat != nil {
		c.Repeat, _ = r.whole(repeat, join(path, "repeat"), 1, MaxRepeat)
	}
	if t := f["tools"]; t != nil {
		c.Tools = r.tools(t, join(path, "tools"))
	}
	if e := f["expect"]; e != nil {
		c.Expect = r.expect(e, join(path, "expect"), c.Tools)
	} else {
		r.fail(n, join(path, "expect"), "a case needs expectations: calls, no_call, forbidden or answer_contains")
	}
	return c
}

func merge(under, over map[string]json.RawMessage) map[string]json.RawMessage {
	out := maps.Clone(under)
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	maps.Copy(out, over)
	return out
}

func (r *reader) messages(n *yaml.Node, path string) []Message {
	var out []Message
	roles := []string{RoleSystem, RoleUser, RoleAssistant}
	r.each(n, path, func(item *yaml.Node, path string) {
		f := r.fields(item, path, "role", "content")
		if f == nil {
			return
		}
		var m Message
		if role := f["role"]; role == nil {
			r.fail(item, join(path, "role"), "a message needs a role: %s", strings.Join(roles, ", "))
		} else if m.Role, _ = r.text(role, join(path, "role")); !slices.Contains(roles, m.Role) && m.Role != "" {
			r.fail(role, join(path, "role"), "%q is not a role: use %s", m.Role, strings.Join(roles, ", "))
		}
		if content := f["content"]; content != nil {
			m.Content, _ = r.text(content, join(path, "content"))
		} else {
			r.fail(item, join(path, "content"), "a message needs content")
		}
		out = append(out, m)
	})
	if len(out) > 0 && out[len(out)-1].Role != RoleUser {
		r.fail(n, path, "must end with the user's turn, for the model to answer")
	} else if len(out) == 0 && n.Kind == yaml.SequenceNode {
		r.fail(n, path, "must hold at least the user's turn")
	}
	return out
}

// settingKeys are engine's settings by the JSON key a suite writes them
// with (max_rounds, tool_delay_ms).
var settingKeys = func() map[string]engine.Field {
	out := map[string]engine.Field{}
	for _, f := range engine.Fields() {
		out[f.Key()] = f
	}
	return out
}()

// requestKeys lists the keys a suite may set, for errors.
func requestKeys() string {
	var keys []string
	for _, f := range engine.Fields() {
		if f.Request {
			keys = append(keys, f.Key())
		}
	}
	return strings.Join(keys, ", ")
}

// settings reads request settings, each checked by engine's table as a
// request's would be. Problems that come of how a setting combines with
// the eval's own (a model the backend lacks) are left for the run.
func (r *reader) settings(n *yaml.Node, path string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	if n.Kind != yaml.MappingNode {
		r.fail(n, path, "must be a mapping of settings, not %s", describe(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolve(n.Content[i+1])
		field, known := settingKeys[key.Value]
		if !known {
			r.fail(key, join(path, key.Value), "is not a setting: use %s", requestKeys())
			continue
		}
		raw, err := toJSON(value)
		if err != nil {
			r.fail(value, join(path, key.Value), "%v", err)
			continue
		}
		if _, err := engine.Defaults().Apply(map[string]json.RawMessage{key.Value: raw}); err != nil {
			if problem := problemOf(err, field.Name); problem != "" {
				r.fail(value, join(path, key.Value), "%s", problem)
				continue
			}
		}
		out[key.Value] = raw
	}
	return out
}

// problemOf words what Apply found wrong with the setting itself.
func problemOf(err error, setting engine.Setting) string {
	var problems []string
	for _, e := range flatten(err) {
		var s *engine.SettingError
		if errors.As(e, &s) && s.Setting == setting {
			problems = append(problems, s.Value+" "+s.Problem)
		}
	}
	return strings.Join(problems, "; ")
}

// flatten lists the errors joined in err, however nested.
func flatten(err error) []error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

// stubs are the built-in stub tools by name.
var stubs = func() map[string]tools.Tool {
	out := map[string]tools.Tool{}
	for _, t := range tools.Stubs(0) {
		out[t.Name()] = t
	}
	return out
}()

func (r *reader) tools(n *yaml.Node, path string) Tools {
	var t Tools
	f := r.fields(n, path, "stubs", "mcp", "inline")
	named := map[string]bool{}
	name := func(n *yaml.Node, path, name string) {
		if named[name] {
			r.fail(n, path, "%q is offered twice", name)
		}
		named[name] = true
	}
	if s := f["stubs"]; s != nil {
		r.each(s, join(path, "stubs"), func(item *yaml.Node, path string) {
			stub, ok := r.text(item, path)
			if !ok {
				return
			}
			if _, known := stubs[stub]; !known {
				r.fail(item, path, "%q is not a stub tool: use %s", stub, strings.Join(slices.Sorted(maps.Keys(stubs)), ", "))
				return
			}
			name(item, path, stub)
			t.Stubs = append(t.Stubs, stub)
		})
	}
	if m := f["mcp"]; m != nil {
		r.each(m, join(path, "mcp"), func(item *yaml.Node, path string) {
			flag, ok := r.text(item, path)
			if !ok {
				return
			}
			spec, err := mcp.ParseFlag(flag, "")
			if err != nil {
				r.fail(item, path, "%v", err)
				return
			}
			t.MCP = append(t.MCP, spec)
		})
	}
	if in := f["inline"]; in != nil {
		r.each(in, join(path, "inline"), func(item *yaml.Node, path string) {
			if tool, ok := r.inline(item, path); ok {
				name(item, join(path, "name"), tool.ToolName)
				t.Inline = append(t.Inline, tool)
			}
		})
	}
	return t
}

func (r *reader) inline(n *yaml.Node, path string) (InlineTool, bool) {
	var t InlineTool
	f := r.fields(n, path, "name", "description", "parameters", "result")
	if f == nil {
		return t, false
	}
	ok := true
	if name := f["name"]; name != nil {
		t.ToolName, ok = r.text(name, join(path, "name"))
	} else {
		r.fail(n, join(path, "name"), "an inline tool needs a name")
		ok = false
	}
	if d := f["description"]; d != nil {
		t.ToolDescription, _ = r.text(d, join(path, "description"))
	}
	if p := f["parameters"]; p != nil {
		var err error
		if t.Schema, err = toJSON(p); err != nil {
			r.fail(p, join(path, "parameters"), "%v", err)
			ok = false
		}
	} else {
		r.fail(n, join(path, "parameters"), `an inline tool needs its parameters' JSON Schema; {type: object} takes no arguments`)
		ok = false
	}
	if res := f["result"]; res != nil {
		var err error
		if t.Result, err = toJSON(res); err != nil {
			r.fail(res, join(path, "result"), "%v", err)
		}
	}
	if ok {
		if err := tools.Check(t); err != nil {
			r.fail(n, path, "tool %q: %v", t.ToolName, err)
			return t, false
		}
	}
	return t, ok
}

// Schemas are the parameters schemas of the stub and inline tools, by
// name: what grading checks calls against (grade.Run.Tools). An MCP
// server's are known once it is connected.
func (t Tools) Schemas() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, name := range t.Stubs {
		out[name] = stubs[name].Parameters()
	}
	for _, tool := range t.Inline {
		out[tool.ToolName] = tool.Schema
	}
	return out
}

// offered words the tools a case offers, for errors.
func (t Tools) offered() string {
	names := slices.Sorted(maps.Keys(t.Schemas()))
	if len(names) == 0 {
		return "it offers no tool"
	}
	return fmt.Sprintf("it offers %s", strings.Join(names, ", "))
}
