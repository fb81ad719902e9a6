// Package web holds the playground's page: templ components for the HTML
// and plain JavaScript and CSS, embedded in the binary. Nothing is fetched
// from a CDN, so the page works offline.
//
// The server renders the shell (header, side panel, composer) and the
// <template> skeletons of the step cards; static/pipeline.js fills the
// cards from the run's Server-Sent Events. Model text only ever reaches
// the page through textContent.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/tools"
)

// Static holds the page's scripts and styles, served under /static/.
//
//go:embed static
var Static embed.FS

// PageData is what the server knows when it renders the page.
type PageData struct {
	// The backend that answers by default, as llm.Info describes it.
	Backend string // "ollama", "openai" or "demo"
	Model   string
	Mode    string
	Demo    bool // the page must say so, always
	// Template is the chat template toolscope renders raw prompts with
	// when the server publishes none (llm.Info.Template); "" otherwise.
	Template string
	// BaseURL is the OpenAI-compatible server's API root
	// (llm.Info.BaseURL); "" for the other backends.
	BaseURL string
	// Fallback is why toolscope chose the demo model when told to choose
	// (--backend auto), and what would give it Ollama; nil when it did not.
	Fallback *Fallback
	Tools    []ToolInfo
	// MCPServers are the servers that tools with a Source of
	// "mcp:<name>" come from, failed ones included.
	MCPServers []MCPServer
	// Settings are the Settings form's controls, in order: the settings a
	// request may change, each described from its row of the settings
	// table (engine.Fields), with the server's value to start from.
	Settings []Control
}

// Control is one setting of the Settings form: a select when it has
// Options or is the Model picker, a text input for text, a number input
// otherwise.
type Control struct {
	Name  string // the setting's name, as the form field
	ID    string // the element's id, "set-" and the flag's name
	Label string
	Title string // what it does: the setting's help
	// Key is the run request's field, and Type how options.js writes the
	// control's value there: "text", "number", "seconds" (as
	// milliseconds) or "tristate" (auto, on or off as left out, true or
	// false).
	Key, Type string
	Value     string // the value it starts with, as the control holds it
	Options   []Option
	// Min, Max and Step bound a number input ("" Max: unbounded); Unit is
	// what it counts in.
	Min, Max, Step, Unit string
	// Picker is the Model select: one option here, the served models
	// filled in by the page from /api/models.
	Picker bool
	// Disabled when the backend offers nothing else: the demo model has
	// one model and one mode.
	Disabled bool
}

// Option is one value a select offers, with its label.
type Option struct{ Value, Label string }

// Audience is whom a page is for, when toolscope asks for tokens. The zero
// value is the operator of a toolscope that asks for none.
type Audience struct {
	// Viewer is read-only: the page follows the operator's runs, and has
	// no composer, Stop, New conversation or settings, nor any MCP
	// server's command line, error or log.
	Viewer bool
	// ShareURL, on an operator's page, is the viewer link that "Share with
	// the class" shows, beside its QR code from /api/share/qr.png.
	ShareURL string
}

type audienceKey struct{}

// WithAudience returns ctx carrying a, for Page to render. The request's
// access decides it, not the data the page shows, so it travels apart
// from PageData, as a request's deadline does.
func WithAudience(ctx context.Context, a Audience) context.Context {
	return context.WithValue(ctx, audienceKey{}, a)
}

func audience(ctx context.Context) Audience {
	a, _ := ctx.Value(audienceKey{}).(Audience)
	return a
}

// forViewers leaves out what only the operator may see of MCP servers:
// where they run and what they wrote to stderr.
func forViewers(servers []MCPServer) []MCPServer {
	out := make([]MCPServer, len(servers))
	for i, m := range servers {
		out[i] = MCPServer{Name: m.Name, Transport: m.Transport, State: m.State, Protocol: m.Protocol}
	}
	return out
}

// Notice is a short page that says why toolscope refused a request and
// what to do instead.
type Notice struct {
	Title string
	Text  string
	// Link is the address to open instead, if any.
	Link string
	// Command, if any, is what would let the request through next time.
	Command string
}

// Fallback is why the demo model stands in for the Ollama model that
// toolscope was started for, worded for the page.
type Fallback struct {
	Problem string // what Ollama's check found
	Next    string // what to do: the steps outside toolscope, then a restart, or the pull
	// Pull, on the operator's page, is the model the page offers to pull
	// (static/pull.js), when Ollama answers without it; "" when a pull
	// would not help.
	Pull string
	// PullSize is what the pull downloads, as "2.5 GB"; "" when unknown.
	PullSize string
}

// MCPServer describes an MCP server for the side panel.
type MCPServer struct {
	Name, Target, Transport string
	State                   string // "ready", "failed", "closed" or "sign-in"
	Protocol                string // the revision of MCP it speaks, as "2026-07-28"; "" until ready
	Error                   string
	Log                     []string // its last stderr lines
	// SignIn is "needed" or "waiting" when the server asks the user to
	// sign in (OAuth): the panel offers Authorize (static/oauth.js).
	SignIn string
}

// toolGroup is the tools of one source: the built-in ones, or one MCP
// server's.
type toolGroup struct {
	Source string
	Server *MCPServer
	Tools  []ToolInfo
}

// groupTools groups tools by source, built-in first, in the order the
// sources first appear. A server without tools (one that failed) still
// gets a group, so the page can say why.
func groupTools(tools []ToolInfo, servers []MCPServer) []toolGroup {
	var groups []toolGroup
	at := map[string]int{}
	add := func(source string) int {
		i, ok := at[source]
		if !ok {
			i = len(groups)
			at[source] = i
			groups = append(groups, toolGroup{Source: source})
		}
		return i
	}
	add("builtin")
	for _, t := range tools {
		i := add(t.Source)
		groups[i].Tools = append(groups[i].Tools, t)
	}
	for i := range servers {
		g := add("mcp:" + servers[i].Name)
		groups[g].Server = &servers[i]
	}
	if len(groups[0].Tools) == 0 {
		groups = groups[1:]
	}
	return groups
}

// ToolInfo describes a tool for the side panel.
type ToolInfo struct {
	Name        string
	Description string
	Source      string // "builtin" or "mcp:<server>"
	Parameters  string // the JSON Schema, indented
}

// seeds are requests that exercise each built-in tool, offered on the
// empty page. Their dates are relative to today, as people say them, so
// that they never name a day already past; the system prompt gives the
// model today's date to resolve them.
var seeds = []string{
	"Send an email to john@example.com about tomorrow's standup",
	"Schedule a meeting with alice@co.com tomorrow at 10:00",
	"Cancel the standup meeting next Monday",
}

// param is one argument of a tool, as the side panel lists it.
type param struct {
	Name     string
	Type     string
	Required bool
}

// params lists the top-level properties of a JSON Schema object in the
// order the schema gives them, which is the order its author meant them
// to be read. A schema that is not an object with properties lists
// nothing: the panel still shows the schema itself.
func params(schema string) []param {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"` // a string, or a list of them
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil {
		return nil
	}
	var list []param
	for _, name := range tools.PropertyOrder(json.RawMessage(schema)) {
		list = append(list, param{Name: name, Type: typeName(s.Properties[name].Type), Required: slices.Contains(s.Required, name)})
	}
	return list
}

func (p param) title() string {
	if p.Required {
		return p.Name + " (required)"
	}
	return p.Name + " (optional)"
}

// typeName reads a schema's "type", which may be a list such as
// ["string", "null"].
func typeName(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		var names []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				names = append(names, s)
			}
		}
		return strings.Join(names, "|")
	}
	return ""
}

// countOf is n with its noun, as in "1 line" and "3 lines".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
