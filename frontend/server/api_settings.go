package server

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/web"
)

// settingView is one setting in GET /api/settings: its row of the settings
// table (engine.Fields) and the server's value.
type settingView struct {
	Name    string   `json:"name"`
	Key     string   `json:"key"` // the field of requests and of a run's settings
	Flag    string   `json:"flag"`
	Env     string   `json:"env"`
	Group   string   `json:"group"`
	Kind    string   `json:"kind,omitempty"` // "" for true, false or auto
	Label   string   `json:"label,omitempty"`
	Help    string   `json:"help"`
	Request bool     `json:"request"` // a run request may change it
	Secret  bool     `json:"secret,omitempty"`
	Choices []string `json:"choices,omitempty"`
	// Min and Max bound a number, in the unit of its Key (milliseconds for
	// a duration); no max is unbounded.
	Min *int64 `json:"min,omitempty"`
	Max *int64 `json:"max,omitempty"`
	// Value is the server's, as the Key carries it; a Secret's is left out.
	Value json.RawMessage `json:"value,omitempty"`
}

// listSettings answers GET /api/settings: every setting, in the table's order.
func (s *Server) listSettings(c *fiber.Ctx) error {
	current := s.cfg.Engine.Settings()
	var out []settingView
	for _, f := range engine.Fields() {
		out = append(out, viewOf(f, current))
	}
	return writeJSON(c, fiber.StatusOK, out)
}

func viewOf(f engine.Field, current engine.Settings) settingView {
	v := settingView{
		Name: string(f.Name), Key: f.Key(), Flag: f.Flag(), Env: f.Env(), Group: string(f.Group),
		Kind: f.Kind, Label: f.Label, Help: f.Help, Request: f.Request, Secret: f.Secret, Choices: f.Choices,
	}
	if f.IsNumber() {
		low, high := f.Bounds()
		v.Min = &low
		if high != 0 {
			v.Max = &high
		}
	}
	if !f.Secret {
		v.Value, _ = json.Marshal(f.JSON(current)) // a string, number, bool or null
	}
	return v
}

// formControls are the page's Settings form: the settings a request may
// change that the page labels, each from its row, starting at current.
// model is the model the backend runs, which current may leave unnamed.
func formControls(current engine.Settings, model string, demo bool) []web.Control {
	var controls []web.Control
	for _, f := range engine.Fields() {
		if f.Request && f.Label != "" {
			controls = append(controls, control(f, current, model, demo))
		}
	}
	return controls
}

// control is one setting's control: a select of its choices, of auto, on
// and off for a boolean the model may decide, or of a few numbers for a
// number that may be auto; a number input for another number or a
// duration (in seconds); the model picker for the model; a text input for
// any other text.
func control(f engine.Field, current engine.Settings, model string, demo bool) web.Control {
	c := web.Control{
		Name: string(f.Name), ID: "set-" + f.Flag(), Label: f.Label, Title: f.Help, Key: f.Key(), Type: "text",
		Value: f.Text(current),
		// The demo model has one model and one mode: its Model group offers nothing else.
		Disabled: demo && f.Group == engine.GroupModel,
	}
	low, high := f.Bounds()
	switch {
	case f.Name == engine.SettingModel:
		c.Picker, c.Value = true, model
	case f.Choices != nil:
		for _, choice := range f.Choices {
			c.Options = append(c.Options, web.Option{Value: choice, Label: choiceLabel(choice)})
		}
	case f.IsBool():
		c.Type, c.Value = "tristate", map[string]string{"true": "on", "false": "off"}[c.Value]
		if c.Value == "" {
			c.Value = "auto"
		}
		c.Options = []web.Option{{Value: "auto", Label: "model decides"}, {Value: "on", Label: "on"}, {Value: "off", Label: "off"}}
	case f.Name == engine.SettingToolsTopK:
		c.Type, c.Value = "number", strconv.Itoa(current.ToolsTopK)
		c.Options = topKOptions(current.ToolsTopK)
	case f.Kind == "duration":
		seconds := func(ms int64) string {
			return strconv.FormatFloat((time.Duration(ms) * time.Millisecond).Seconds(), 'f', -1, 64)
		}
		c.Type, c.Unit, c.Step = "seconds", "s", "any"
		c.Value, c.Min = seconds(f.JSON(current).(int64)), seconds(low)
		if high != 0 {
			c.Max = seconds(high)
		}
	case f.IsNumber():
		c.Type, c.Step = "number", "1"
		c.Min = strconv.FormatInt(low, 10)
		if high != 0 {
			c.Max = strconv.FormatInt(high, 10)
		}
	}
	return c
}

// choiceLabels word the choices whose names say little on the page.
var choiceLabels = map[string]string{"raw": "raw prompt", "chat": "chat messages"}

func choiceLabel(choice string) string {
	if label, ok := choiceLabels[choice]; ok {
		return label
	}
	return choice
}

// topKOptions are what "Tools offered" offers: automatic, every tool, a
// few, and the server's own setting when it is none of those.
func topKOptions(current int) []web.Option {
	ks := []int{engine.ToolsTopKAuto, 0, 3, 5, 8, 12}
	if !slices.Contains(ks, current) {
		ks = append(ks, current)
		slices.Sort(ks)
	}
	var options []web.Option
	for _, k := range ks {
		label := strconv.Itoa(k)
		switch k {
		case engine.ToolsTopKAuto:
			label = "auto" // the select's title says what it means
		case 0:
			label = "all"
		}
		options = append(options, web.Option{Value: strconv.Itoa(k), Label: label})
	}
	return options
}
