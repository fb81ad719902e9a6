package engine

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/openai"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/retrieve"
)

// Backends a Settings value may name.
const (
	BackendOllama = "ollama"
	BackendDemo   = "demo" // the scripted offline model
	// BackendOpenAI is any OpenAI-compatible server (vLLM, llama.cpp's
	// llama-server, LM Studio, Ollama's /v1) at OpenAIBaseURL. BackendAuto
	// never chooses it: it must be asked for.
	BackendOpenAI = "openai"
	// BackendAuto is Ollama when it answers and has the model, else the
	// demo model; Start settles it once.
	BackendAuto = "auto"
)

// noDemoChat is why chat mode and the demo model do not go together: chat
// mode hands the messages to Ollama to render, and the demo has no Ollama.
const noDemoChat = "the demo model has no chat mode"

// DefaultModel is the Ollama model run when Settings.Model is empty. With
// BackendOpenAI an empty Model means the one model the server serves.
const DefaultModel = ollama.DefaultModel

// Ranges a Settings value must keep to, and what the page offers.
const (
	MinMaxRounds = 1
	MaxMaxRounds = 50
	MaxToolDelay = time.Minute
)

// Settings are everything that decides how a run goes. The zero value is
// usable: fields where zero means nothing sensible (Backend, Model, Mode,
// MaxRounds, ToolTimeout) fall back to their defaults; ToolDelay and
// DemoDelay mean no pause at zero. Defaults returns what the binary uses.
//
// A new setting is a field here and its row in the settings table
// (fields), from which its flag, variable, request field, checks, its
// place in /api/settings and on the page, and the docs' flag table follow.
type Settings struct {
	Backend    string // BackendOllama, BackendOpenAI, BackendDemo or BackendAuto
	Model      string // the model; see DefaultModel
	OllamaHost string // "" means $OLLAMA_HOST, else 127.0.0.1:11434
	// OpenAIBaseURL is the OpenAI-compatible server's API root, such as
	// http://127.0.0.1:8000/v1; BackendOpenAI needs it. OpenAIAPIKey is
	// its bearer token, "" for none.
	OpenAIBaseURL string
	OpenAIAPIKey  string
	// Template renders BackendOpenAI's raw prompts: a name from
	// openai.Templates or a file in Ollama's template format; "" guesses
	// from the model's name. Other backends ignore it.
	Template  string
	Mode      llm.Mode // llm.ModeRaw or llm.ModeChat
	Dialect   streamparser.Dialect
	Think     *bool // nil lets the model decide
	MaxRounds int   // most model replies in one run
	// ToolDelay is how long the built-in stub tools take, to watch them run.
	ToolDelay time.Duration
	// ToolTimeout bounds every tool call, MCP ones included.
	ToolTimeout time.Duration
	// Elicit is how an MCP server's questions are answered (--elicit);
	// SamplingMaxTokens and SamplingPerCall bound its sampling requests.
	Elicit            agent.ElicitPolicy
	SamplingMaxTokens int
	SamplingPerCall   int
	// DemoDelay is the demo model's pause between tokens.
	DemoDelay time.Duration
	// MCP are MCP servers to take tools from, besides those in the
	// MCPConfig file (Claude Desktop's mcpServers format).
	MCP       []mcp.ServerSpec
	MCPConfig string
	// Roots are the working folders the MCP servers may ask for, absolute
	// paths (see mcp.Root).
	Roots []string
	// Sampling tunes every reply of a run (temperature, top_p, stop
	// strings, seed, a length limit); nil keeps the backend's defaults.
	// It is per request, not a server setting: no flag sets it, a
	// request to the OpenAI-compatible API does, and that front end
	// checks it against OpenAI's ranges. The demo model ignores it.
	Sampling *llm.Sampling
	// ToolsTopK is how many tools tool retrieval offers each run, chosen
	// for the request: 0 offers every tool, ToolsTopKAuto retrieves
	// AutoTopK tools once more than AutoRetrievalAbove are connected.
	ToolsTopK int
	// Retriever ranks the tools for ToolsTopK: retrieve.Lexical (the
	// default, offline), retrieve.Embedding or retrieve.Hybrid.
	Retriever retrieve.Retriever
	// EmbedModel is the Ollama model that embeds tools and requests for
	// the Embedding and Hybrid retrievers; "" means
	// retrieve.DefaultEmbedModel. One per engine: a request cannot change
	// it, since the engine keeps its vectors.
	EmbedModel string
	// OTLPEndpoint is where a server's runs are traced to, an OTLP
	// endpoint's base URL; "" leaves it to $OTEL_EXPORTER_OTLP_ENDPOINT,
	// and with neither nothing is traced. The engine does not read it: a
	// program sets up tracing with package telemetry.
	OTLPEndpoint string
}

// Tool retrieval's automatic default: a small model's context fits a
// score of tool descriptions, not a hundred.
const (
	// ToolsTopKAuto is the ToolsTopK that turns retrieval on only when
	// many tools are connected.
	ToolsTopKAuto = -1
	// AutoRetrievalAbove is how many tools ToolsTopKAuto offers whole.
	AutoRetrievalAbove = 20
	// AutoTopK is how many tools ToolsTopKAuto offers past that.
	AutoTopK = 8
)

// Defaults are the settings toolscope starts with: the zero value, with
// the stub tools and the demo model paced so that a person can watch. The
// Model is left empty: which model that means depends on the backend, and
// Start settles it once the backend is known (see withDefaults).
func Defaults() Settings {
	return Settings{ToolDelay: 3 * time.Second, DemoDelay: 30 * time.Millisecond, ToolsTopK: ToolsTopKAuto}.withFixedDefaults()
}

// withDefaults fills in the zero fields that stand for a default,
// the model among them. It is the one place of the rule for an unset
// Model: DefaultModel, but on an OpenAI-compatible server, whose default is
// the one model it serves, which only it knows (Model stays empty).
func (s Settings) withDefaults() Settings {
	s = s.withFixedDefaults()
	if s.Model == "" && s.Backend != BackendOpenAI {
		s.Model = DefaultModel
	}
	return s
}

// withFixedDefaults fills in the zero fields whose default is the same
// whatever the other settings are.
func (s Settings) withFixedDefaults() Settings {
	if s.Backend == "" {
		s.Backend = BackendAuto
	}
	if s.Mode == "" {
		s.Mode = llm.ModeRaw
	}
	if s.MaxRounds == 0 {
		s.MaxRounds = agent.DefaultMaxRounds
	}
	if s.ToolTimeout == 0 {
		s.ToolTimeout = agent.DefaultToolTimeout
	}
	if s.Elicit == "" {
		s.Elicit = agent.ElicitAsk
	}
	if s.SamplingMaxTokens == 0 {
		s.SamplingMaxTokens = agent.DefaultSamplingMaxTokens
	}
	if s.SamplingPerCall == 0 {
		s.SamplingPerCall = agent.DefaultSamplingPerCall
	}
	if s.Retriever == "" {
		s.Retriever = retrieve.Lexical
	}
	if s.EmbedModel == "" {
		s.EmbedModel = retrieve.DefaultEmbedModel
	}
	return s
}

// Setting names one field of Settings in errors. Front ends word it their
// own way: the CLI as a flag, the JSON API as a field, the page as its
// control. It is llm.Setting, so that an llm.Fix and a SettingError name
// settings alike.
type Setting = llm.Setting

// The settings, named as the JSON API's fields where it has one.
const (
	SettingBackend                   = llm.SettingBackend
	SettingModel                     = llm.SettingModel
	SettingMode                      = llm.SettingMode
	SettingThink                     = llm.SettingThink
	SettingOllamaHost        Setting = "ollama_host"
	SettingOpenAIBaseURL             = openai.SettingBaseURL
	SettingOpenAIAPIKey              = openai.SettingAPIKey
	SettingTemplate                  = openai.SettingTemplate
	SettingDialect           Setting = "dialect"
	SettingMaxRounds         Setting = "max_rounds"
	SettingToolDelay         Setting = "tool_delay"
	SettingToolTimeout       Setting = "tool_timeout"
	SettingDemoDelay         Setting = "demo_delay"
	SettingToolsTopK         Setting = "tools_top_k"
	SettingRetriever         Setting = "retriever"
	SettingEmbedModel        Setting = "embed_model"
	SettingMCPConfig         Setting = "mcp_config"
	SettingOTLPEndpoint      Setting = "otlp_endpoint"
	SettingElicit            Setting = "elicit"
	SettingSamplingMaxTokens Setting = "sampling_max_tokens"
	SettingSamplingPerCall   Setting = "sampling_per_call"
)

// SettingError is a setting whose value cannot be used.
type SettingError struct {
	Setting Setting
	// Key is the JSON field at fault, when the error is about a JSON
	// object (Settings.Apply): then Value is as JSON writes it and a
	// duration's Problem counts milliseconds.
	Key     string
	Value   string // as a person would write it: names quoted, durations as "1m30s"
	Problem string // e.g. "must be from 1 to 50"
}

func (e *SettingError) Error() string {
	name := string(e.Setting)
	if e.Key != "" {
		name = e.Key
	}
	return name + " " + e.Value + " " + e.Problem
}

// SettingErrors sorts err, as Validate, Apply or Start return it, into
// the settings it finds fault with, in order, and whatever else went
// wrong (nil when nothing else did). It looks into errors joined within
// joined errors too, so that a front end may join its own checks to these.
func SettingErrors(err error) (bad []*SettingError, other error) {
	var rest []error
	var walk func(error)
	walk = func(err error) {
		var se *SettingError
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		} else if errors.As(err, &se) {
			bad = append(bad, se)
		} else if err != nil {
			rest = append(rest, err)
		}
	}
	walk(err)
	return bad, errors.Join(rest...)
}

// Validate reports every setting that cannot be used, each as a
// *SettingError, joined with errors.Join; nil when all are fine. Fields
// left zero stand for their defaults, as in Start.
func (s Settings) Validate() error {
	return s.withDefaults().ValidateAsWritten()
}

// ValidateAsWritten is Validate without the defaults, for settings that
// start from Defaults and were then written over, as the command line's
// are: there a zero MaxRounds or ToolTimeout is what a person wrote, out
// of range, not a wish for the default. It reads no file and asks no
// server: Start loads what the settings name, once.
func (s Settings) ValidateAsWritten() error {
	return errors.Join(s.problems(flagWords)...)
}

// problems lists each setting that cannot be used, in w's words.
func (s Settings) problems(w words) []error {
	var errs []error
	for _, f := range fields {
		if e := f.problem(s, w); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// checkTemplate reads BackendOpenAI's template file, which Validate does
// not: a file is read once, at Start, not on every check of a request.
func (s Settings) checkTemplate() error {
	if s.Backend != BackendOpenAI || s.Template == "" {
		return nil
	}
	if _, err := openai.LoadTemplate(s.Template); err != nil {
		return &SettingError{Setting: SettingTemplate, Value: strconv.Quote(s.Template),
			Problem: "is neither " + either(openai.Templates()) + " nor a template file in Ollama's format: " + errors.Unwrap(err).Error()}
	}
	return nil
}

// either lists choices as a person would: "a, b or c".
func either[S ~string](choices []S) string {
	names := make([]string, len(choices))
	for i, c := range choices {
		names[i] = string(c)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// seconds writes a whole number of seconds as people do, "60s", where
// Duration.String says "1m0s".
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}
