package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolscope/toolscope/engine"
)

// Every HTTP entrance that starts a run (POST /api/runs, a rerun, POST
// /api/query, /v1/chat/completions) reads a request's settings one way:
// its body's setting keys go to engine.Settings.Apply, which decodes and
// checks them once for the run; the entrance reads only its own fields.

// spelling names settings the way an entrance's requests do, where that
// is not their engine.Field.Key: /api/query calls tools_top_k "k".
type spelling map[string]string

// querySpelling is /api/query's, MCP_from_scratch's names.
var querySpelling = spelling{"tools_top_k": "k"}

// name is how the entrance spells the setting whose key is key.
func (sp spelling) name(key string) string {
	if name, ok := sp[key]; ok {
		return name
	}
	return key
}

// keys maps each setting's name, as the entrance spells it, to its key.
// The server's own settings are among them, so that a request sending
// one is told it cannot, not that the field is unknown.
func (sp spelling) keys() map[string]string {
	out := map[string]string{}
	for _, f := range engine.Fields() {
		out[sp.name(f.Key())] = f.Key()
	}
	return out
}

// decodeRequest reads body, one JSON object: the entrance's own fields
// into own, strictly as decodeStrict does (what and example word its
// errors), and returns the settings it sends by their keys, for
// applySettings.
func decodeRequest(body []byte, own any, what, example string, sp spelling) (map[string]json.RawMessage, error) {
	var object map[string]json.RawMessage
	if json.Unmarshal(body, &object) != nil {
		// Not one JSON object: decodeStrict says what it is instead.
		return nil, decodeStrict(body, own, what, example)
	}
	keys := sp.keys()
	settings := map[string]json.RawMessage{}
	for name, raw := range object {
		if key, ok := keys[name]; ok {
			settings[key] = raw
			delete(object, name)
			continue
		}
		for spelled := range keys {
			if strings.EqualFold(name, spelled) {
				return nil, fmt.Errorf("the body is not a valid %s: field %q is spelled %q", what, name, spelled)
			}
		}
	}
	rest, _ := json.Marshal(object) // raw JSON values, read already
	return settings, decodeStrict(rest, own, what, example)
}

// applySettings applies a request's settings to base, the one check of
// them for the run. Its error says what is wrong with the request: the
// entrance's own problems first, then each setting's, named as the
// request spells it.
func applySettings(base engine.Settings, settings map[string]json.RawMessage, sp spelling, problems ...string) (engine.Settings, error) {
	s, err := base.Apply(settings)
	if problems = append(problems, sp.problems(err)...); len(problems) > 0 {
		return base, errors.New(strings.Join(problems, "; "))
	}
	return s, nil
}

// problems words each of Settings.Apply's errors in err.
func (sp spelling) problems(err error) []string {
	bad, other := engine.SettingErrors(err)
	var out []string
	for _, se := range bad {
		out = append(out, fmt.Sprintf("%q %s %s", sp.name(se.Key), se.Value, se.Problem)) // Apply's errors have a Key
	}
	if other != nil {
		out = append(out, other.Error())
	}
	return out
}
