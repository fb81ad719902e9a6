package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/engine"
)

// Matrix is what an eval varies: every combination of its axes is a
// [Cell], and every case runs in each. An axis left empty takes the
// case's own setting.
type Matrix struct {
	Models     []string
	Dialects   []string
	Modes      []string
	ToolsTopK  []string // a number of tools, or "auto"
	Retrievers []string
	// Distractors are numbers of extra tools, drawn from the bundled
	// catalogue, offered besides a case's own.
	Distractors []int
}

// Cell is one combination of the matrix's axes.
type Cell struct {
	Index int
	// Settings are the axes' values by the settings' JSON keys, in the
	// matrix's order; they go over each case's settings.
	Settings []Setting
	// Distractors is how many catalogue tools are added.
	Distractors int
	// byDistractors: the matrix varies the distractors, so the cell's
	// name says how many, 0 too.
	byDistractors bool
}

// Setting is one axis's value in a cell.
type Setting struct {
	Key   string
	Value string // as given: "auto"

	json json.RawMessage // as a request carries it: -1
}

// String names the cell as the summary table does: "model=a dialect=hermes
// distractors=10"; "(suite settings)" for the one cell of an empty matrix.
func (c Cell) String() string {
	var parts []string
	for _, s := range c.Settings {
		parts = append(parts, s.Key+"="+s.Value)
	}
	if c.byDistractors {
		parts = append(parts, "distractors="+strconv.Itoa(c.Distractors))
	}
	if len(parts) == 0 {
		return "(suite settings)"
	}
	return strings.Join(parts, " ")
}

// MarshalJSON writes the cell as an object of its axes' values, as the
// --json lines give it: {"dialect": "hermes", "distractors": 10}.
func (c Cell) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(c.Settings)+1)
	for _, s := range c.Settings {
		m[s.Key] = s.Value
	}
	if c.byDistractors {
		m["distractors"] = c.Distractors
	}
	return json.Marshal(m)
}

// values is the cell's settings as a request's JSON object.
func (c Cell) values() map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(c.Settings))
	for _, s := range c.Settings {
		m[s.Key] = s.json
	}
	return m
}

// asJSON reads text as the setting's flag takes it ("auto", "hermes",
// "5") and writes it as a request's JSON carries it, by the settings
// table.
func asJSON(key engine.Setting, text string) (json.RawMessage, error) {
	f, _ := engine.FieldNamed(key)
	var s engine.Settings
	if err := f.Parse(&s, text); err != nil {
		return nil, &engine.SettingError{Setting: key, Value: strconv.Quote(text), Problem: err.Error()}
	}
	return json.Marshal(f.JSON(s))
}

// axis is one setting the matrix varies.
type axis struct {
	key    engine.Setting
	values []string
}

func (m Matrix) axes() []axis {
	return []axis{
		{engine.SettingModel, m.Models},
		{engine.SettingDialect, m.Dialects},
		{engine.SettingMode, m.Modes},
		{engine.SettingToolsTopK, m.ToolsTopK},
		{engine.SettingRetriever, m.Retrievers},
	}
}

// Cells returns every combination of the axes, the first axis varying
// slowest, each value checked by applying it over base as a request's
// settings would be: a value the table refuses is an *engine.SettingError,
// all joined, and no cell is returned.
func (m Matrix) Cells(base engine.Settings) ([]Cell, error) {
	var errs []error
	cells := []Cell{{}}
	for _, a := range m.axes() {
		values := make([]Setting, 0, len(a.values))
		for _, text := range a.values {
			raw, err := asJSON(a.key, text)
			if err == nil {
				_, err = base.Apply(map[string]json.RawMessage{string(a.key): raw})
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			values = append(values, Setting{Key: string(a.key), Value: text, json: raw})
		}
		cells = multiply(cells, len(values), func(c *Cell, i int) {
			c.Settings = append(c.Settings[:len(c.Settings):len(c.Settings)], values[i])
		})
	}
	for _, n := range m.Distractors {
		if n < 0 || n > maxDistractors() {
			errs = append(errs, &engine.SettingError{Setting: "distractors", Value: strconv.Itoa(n),
				Problem: fmt.Sprintf("must be from 0 to %d, the tools of the catalogue", maxDistractors())})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cells = multiply(cells, len(m.Distractors), func(c *Cell, i int) {
		c.Distractors, c.byDistractors = m.Distractors[i], true
	})
	for i := range cells {
		cells[i].Index = i
	}
	return cells, nil
}

// multiply makes n cells of each cell, set to the axis's i-th value; an
// empty axis leaves the cells as they are.
func multiply(cells []Cell, n int, set func(c *Cell, i int)) []Cell {
	if n == 0 {
		return cells
	}
	out := make([]Cell, 0, len(cells)*n)
	for _, c := range cells {
		for i := range n {
			next := c
			set(&next, i)
			out = append(out, next)
		}
	}
	return out
}
