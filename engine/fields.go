package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/openai"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools/retrieve"
)

// Group gathers settings in help and on the page.
type Group string

// The groups, in the order help lists them.
const (
	GroupModel Group = "Model"
	GroupTools Group = "Tools"
	GroupLoop  Group = "Loop"
	// GroupTraces are where a server's runs go as OpenTelemetry traces.
	GroupTraces Group = "Traces"
)

// Field is one setting, declared once in [Fields]. Every shape a setting
// takes is derived from its row: the flag --kebab-name, the environment
// variable TOOLSCOPE_SNAKE_NAME, the request field (Key), the page's
// control, the docs' flag table, its checks and its wording in errors.
//
// Adding a setting is a field of [Settings], a row in fields, and the code
// that uses the value.
type Field struct {
	Name  Setting // snake_case, as the JSON API and errors name it
	Group Group
	Kind  string // what the value is, for help: "name", "n", "duration" …
	Help  string
	// Label is the page's name for the setting: a setting a request may
	// change that has one is a control of the page's Settings form.
	Label string
	// Request: one request may change it for its run. The others are the
	// server's: a request that sends them is refused.
	Request bool
	// Secret values are never shown: not in help, a run's settings or
	// the page.
	Secret bool
	// Choices are the values it takes, the default first where there is
	// one; nil when any value of its kind is allowed.
	Choices []string
	// Min and Max bound a number or a duration (Max 0: unbounded).
	Min, Max int64
	value    codec
	// check words what is wrong with the value in s, "" when it is fine,
	// beyond Choices and the bounds.
	check func(s Settings) string
}

// fields is the table. A row's order is its order in help, on the page and
// in a run's settings.
var fields = []Field{
	{Name: SettingBackend, Group: GroupModel, Kind: "name", Request: true,
		Choices: []string{BackendOllama, BackendDemo, BackendAuto, BackendOpenAI},
		Help:    "model backend: ollama; openai (vLLM, llama-server, LM Studio or any OpenAI-compatible server at --openai-base-url); demo (offline, scripted); or auto (Ollama when it answers and has the model, else demo)",
		value:   text[string](func(s *Settings) *string { return &s.Backend })},
	{Name: SettingModel, Label: "Model", Group: GroupModel, Kind: "name", Request: true,
		Help:  "the model: Ollama's name (unset, " + DefaultModel + "), or the id an OpenAI-compatible server serves (unset there: its only model)",
		value: text[string](func(s *Settings) *string { return &s.Model })},
	{Name: SettingOllamaHost, Group: GroupModel, Kind: "address",
		Help:  "Ollama address; unset, $OLLAMA_HOST, else 127.0.0.1:11434",
		value: text[string](func(s *Settings) *string { return &s.OllamaHost }), check: checkOllamaHost},
	{Name: SettingOpenAIBaseURL, Group: GroupModel, Kind: "URL",
		Help:  "the OpenAI-compatible server's API root, such as http://127.0.0.1:8000/v1 (vLLM); unset, $OPENAI_BASE_URL",
		value: text[string](func(s *Settings) *string { return &s.OpenAIBaseURL }), check: checkOpenAIBaseURL},
	{Name: SettingOpenAIAPIKey, Group: GroupModel, Kind: "key", Secret: true,
		Help:  "the OpenAI-compatible server's API key, if it was started with one; unset, $OPENAI_API_KEY",
		value: text[string](func(s *Settings) *string { return &s.OpenAIAPIKey })},
	{Name: SettingTemplate, Group: GroupModel, Kind: "name|file",
		Help:  "the chat template of --backend openai's raw mode: " + strings.Join(openai.Templates(), ", ") + ", or a file in Ollama's Go-template format; unset, guessed from the model's name",
		value: text[string](func(s *Settings) *string { return &s.Template })},
	{Name: SettingMode, Label: "Mode", Group: GroupModel, Kind: "name", Request: true,
		Choices: []string{string(llm.ModeRaw), string(llm.ModeChat)},
		Help:    "raw: toolscope renders the prompt and sends it verbatim; chat: the server renders it (Ollama's /api/chat, /v1/chat/completions)",
		value:   text[llm.Mode](func(s *Settings) *llm.Mode { return &s.Mode }), check: checkMode},
	{Name: SettingDemoDelay, Group: GroupModel, Kind: "duration",
		Help:  "pause between the demo model's tokens",
		value: duration(func(s *Settings) *time.Duration { return &s.DemoDelay })},
	{Name: SettingDialect, Label: "Call format", Group: GroupLoop, Kind: "name", Request: true,
		Choices: streamparser.DialectNames(),
		Help:    "how the model is told to write tool calls: " + strings.Join(streamparser.DialectNames(), ", "),
		value:   dialect(func(s *Settings) *streamparser.Dialect { return &s.Dialect })},
	{Name: SettingThink, Label: "Thinking", Group: GroupLoop, Request: true,
		Help:  "ask for reasoning: true or false; auto lets the model decide (on where it can think)",
		value: optionalBool(func(s *Settings) **bool { return &s.Think })},
	{Name: SettingMaxRounds, Label: "Max rounds", Group: GroupLoop, Kind: "n", Request: true, Min: MinMaxRounds, Max: MaxMaxRounds,
		Help:  fmt.Sprintf("most model replies in one run, %d to %d", MinMaxRounds, MaxMaxRounds),
		value: number(func(s *Settings) *int { return &s.MaxRounds })},
	{Name: SettingMCPConfig, Group: GroupTools, Kind: "file",
		Help:  "a JSON file of MCP servers in the mcpServers format of Claude Desktop",
		value: text[string](func(s *Settings) *string { return &s.MCPConfig })},
	{Name: SettingToolDelay, Label: "Tool delay", Group: GroupTools, Kind: "duration", Request: true, Max: int64(MaxToolDelay),
		Help:  "how long the built-in stub tools take, at most 1m",
		value: duration(func(s *Settings) *time.Duration { return &s.ToolDelay })},
	{Name: SettingToolTimeout, Group: GroupTools, Kind: "duration", Min: 1,
		Help:  "longest a tool call may take, MCP ones included; then it fails, and is cancelled on an MCP server too",
		value: duration(func(s *Settings) *time.Duration { return &s.ToolTimeout })},
	{Name: SettingElicit, Group: GroupTools, Kind: "name",
		Choices: []string{string(agent.ElicitAsk), string(agent.ElicitDecline), string(agent.ElicitDefaults)},
		Help:    "how an MCP server's questions while its tool runs (elicitation) are answered: ask the person (serve's page, chat's prompt; run, with nobody to ask, declines); decline; or defaults (accept a form filled with its schema's defaults, declining one with a required field that has none; for scripts and CI)",
		value:   text[agent.ElicitPolicy](func(s *Settings) *agent.ElicitPolicy { return &s.Elicit })},
	{Name: SettingSamplingMaxTokens, Group: GroupTools, Kind: "n", Min: 1,
		Help:  "most tokens the model writes for one sampling request of an MCP server (its maxTokens is capped to it)",
		value: number(func(s *Settings) *int { return &s.SamplingMaxTokens })},
	{Name: SettingSamplingPerCall, Group: GroupTools, Kind: "n", Min: 1,
		Help:  "most sampling requests an MCP server may make during one tool call; past it the server gets an error that says so",
		value: number(func(s *Settings) *int { return &s.SamplingPerCall })},
	{Name: SettingToolsTopK, Label: "Tools offered", Group: GroupTools, Kind: "n|auto", Request: true, Min: ToolsTopKAuto,
		Help:  fmt.Sprintf("how many tools each run offers, chosen for the request by --retriever: 0 offers every tool; auto offers %d once more than %d tools are connected", AutoTopK, AutoRetrievalAbove),
		value: topK(func(s *Settings) *int { return &s.ToolsTopK })},
	{Name: SettingRetriever, Label: "Tool ranking", Group: GroupTools, Kind: "name", Request: true,
		Choices: names(retrieve.Retrievers()),
		Help:    "how --tools-top-k ranks the tools: lexical (BM25, offline), embedding (Ollama's /api/embed) or hybrid (both, fused); without the embedding model it falls back to lexical and says why",
		value:   text[retrieve.Retriever](func(s *Settings) *retrieve.Retriever { return &s.Retriever })},
	{Name: SettingEmbedModel, Group: GroupTools, Kind: "name",
		Help:  "the Ollama model that embeds for --retriever embedding and hybrid",
		value: text[string](func(s *Settings) *string { return &s.EmbedModel }), check: checkEmbedModel},
	{Name: SettingOTLPEndpoint, Group: GroupTraces, Kind: "URL",
		Help:  "send each run's spans (OpenTelemetry GenAI conventions) to this OTLP endpoint, such as http://127.0.0.1:4318 (Jaeger, Langfuse, Phoenix, a Collector); unset, $OTEL_EXPORTER_OTLP_ENDPOINT, and with neither no traces; the other $OTEL_* variables apply (docs/observability.md)",
		value: text[string](func(s *Settings) *string { return &s.OTLPEndpoint }), check: checkOTLPEndpoint},
}

// Fields returns the settings, in the order help lists them.
func Fields() []Field { return slices.Clone(fields) }

// FieldNamed finds a setting by its name.
func FieldNamed(name Setting) (Field, bool) {
	i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return fields[i], true
}

// Flag is the command line's name of the setting, as in max-rounds.
func (f Field) Flag() string { return strings.ReplaceAll(string(f.Name), "_", "-") }

// Env is the environment variable that sets it, as in TOOLSCOPE_MAX_ROUNDS.
func (f Field) Env() string { return "TOOLSCOPE_" + strings.ToUpper(string(f.Name)) }

// Key is the JSON field of requests and of a run's settings: the name, and
// for a duration the name with _ms, since JSON carries it as milliseconds.
func (f Field) Key() string { return string(f.Name) + f.value.keySuffix() }

// Text is the setting's value in s as a flag writes it: "3s", "auto".
func (f Field) Text(s Settings) string { return f.value.text(&s) }

// Parse sets the setting in s from text written as a flag or an
// environment variable writes it.
func (f Field) Parse(s *Settings, text string) error { return f.value.parse(s, text) }

// Bounds are Min and Max in the unit of the setting's JSON (Key):
// milliseconds for a duration. Max 0 is unbounded.
func (f Field) Bounds() (low, high int64) {
	if _, ok := f.value.(duration); ok {
		ms := int64(time.Millisecond)
		return (f.Min + ms - 1) / ms, f.Max / ms // rounded inward
	}
	return f.Min, f.Max
}

// IsNumber says whether the value is a number, as a duration is: one that
// Min and Max bound.
func (f Field) IsNumber() bool { _, ok := f.value.number(&Settings{}); return ok }

// IsBool says whether the flag may be given without a value, as --think.
func (f Field) IsBool() bool { _, ok := f.value.(optionalBool); return ok }

// JSON is the setting's value in s as JSON carries it.
func (f Field) JSON(s Settings) any { return f.value.json(&s) }

// Words are how an error writes a setting: as a flag does (tool_delay 3s),
// or as JSON does (tool_delay_ms 3000), for errors about a JSON object.
type words int

const (
	flagWords words = iota
	jsonWords
)

// problem is what is wrong with the setting's value in s, nil when
// nothing is.
func (f Field) problem(s Settings, w words) *SettingError {
	problem := ""
	switch n, ok := f.value.number(&s); {
	case f.Choices != nil && !slices.Contains(f.Choices, f.Text(s)):
		problem = "is unknown: use " + either(f.Choices)
	case ok && (n < f.Min || f.Max != 0 && n > f.Max):
		problem = f.bounds(w)
	case f.check != nil:
		problem = f.check(s)
	}
	if problem == "" {
		return nil
	}
	return f.error(f.written(s, w), problem, w)
}

// error is a SettingError about the setting, named as w names it.
func (f Field) error(value, problem string, w words) *SettingError {
	e := &SettingError{Setting: f.Name, Value: value, Problem: problem}
	if w == jsonWords {
		e.Key = f.Key()
	}
	return e
}

// written is the value as a person would write it in an error: names
// quoted, numbers and durations bare; in JSON words, as JSON writes it.
func (f Field) written(s Settings, w words) string {
	if w == jsonWords {
		raw, _ := json.Marshal(f.JSON(s)) // a string, a number, a bool or null
		return string(raw)
	}
	text := f.Text(s)
	if f.Kind == "name" || f.Kind == "address" || f.Kind == "URL" || f.Kind == "file" || f.Kind == "name|file" {
		return strconv.Quote(text)
	}
	return text
}

// bounds words Min and Max; a duration's in seconds, or in JSON words in
// the milliseconds JSON carries.
func (f Field) bounds(w words) string {
	show := func(n int64) string {
		_, isDuration := f.value.(duration)
		switch {
		case isDuration && w == jsonWords:
			return strconv.FormatInt(time.Duration(n).Milliseconds(), 10)
		case isDuration && n != 0:
			return seconds(time.Duration(n))
		}
		return strconv.FormatInt(n, 10)
	}
	switch {
	case f.Name == SettingToolsTopK:
		return "must be 0 (every tool), a number of tools, or -1 (auto)"
	case f.Max != 0:
		return fmt.Sprintf("must be from %s to %s", show(f.Min), show(f.Max))
	case f.Min == 1:
		return "must be more than 0"
	}
	return "must not be negative"
}

// Cross-field and I/O-free checks that a row's Choices and bounds cannot say.

func checkMode(s Settings) string {
	if s.Backend == BackendDemo && s.Mode == llm.ModeChat {
		return "is not available: " + noDemoChat
	}
	return ""
}

func checkOllamaHost(s Settings) string {
	if s.Backend == BackendDemo || s.Backend == BackendOpenAI {
		return ""
	}
	// New does no I/O: it only reads the address.
	if _, err := ollama.New(ollama.Config{Host: s.OllamaHost}); err != nil {
		return "is not an address: " + err.Error()
	}
	return ""
}

func checkOpenAIBaseURL(s Settings) string {
	switch {
	case s.Backend != BackendOpenAI:
		return ""
	case s.OpenAIBaseURL == "":
		return "is needed by backend openai: give the server's API root, such as http://127.0.0.1:8000/v1"
	}
	if _, err := openai.ParseBaseURL(s.OpenAIBaseURL); err != nil {
		return "is not an http or https URL such as http://127.0.0.1:8000/v1"
	}
	return ""
}

func checkOTLPEndpoint(s Settings) string {
	if s.OTLPEndpoint == "" {
		return ""
	}
	u, err := url.Parse(s.OTLPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "is not an http or https URL such as http://127.0.0.1:4318"
	}
	return ""
}

func checkEmbedModel(s Settings) string {
	if s.EmbedModel == "" {
		return "must name an Ollama embedding model, such as " + retrieve.DefaultEmbedModel
	}
	return ""
}

// codec reads and writes one field of Settings in each shape a setting
// takes.
type codec interface {
	text(s *Settings) string
	parse(s *Settings, text string) error
	json(s *Settings) any
	decode(s *Settings, raw json.RawMessage) error
	keySuffix() string
	// number is the value as a number for Min and Max; false when it is
	// not one.
	number(s *Settings) (int64, bool)
}

// The codecs, one per kind of field, each the accessor of its field.
type (
	text[T ~string] func(*Settings) *T
	number          func(*Settings) *int
	// topK is a number of tools, or "auto" for ToolsTopKAuto.
	topK func(*Settings) *int
	// duration is written as Go writes durations ("3s"), and carried in
	// JSON as whole milliseconds.
	duration func(*Settings) *time.Duration
	dialect  func(*Settings) *streamparser.Dialect
	// optionalBool is true, false or "auto" (nil: the model decides).
	optionalBool func(*Settings) **bool
)

func (t text[T]) text(s *Settings) string { return string(*t(s)) }
func (t text[T]) parse(s *Settings, v string) error {
	*t(s) = T(v)
	return nil
}
func (t text[T]) json(s *Settings) any { return string(*t(s)) }
func (t text[T]) decode(s *Settings, raw json.RawMessage) error {
	// A pointer, since null would leave a string "" unnoticed: a request
	// with "model": null would run the default model, not the server's.
	var v *string
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return errors.New("must be a string")
	}
	*t(s) = T(*v)
	return nil
}
func (text[T]) keySuffix() string                 { return "" }
func (text[T]) number(*Settings) (int64, bool)    { return 0, false }
func (n number) text(s *Settings) string          { return strconv.Itoa(*n(s)) }
func (n number) json(s *Settings) any             { return *n(s) }
func (number) keySuffix() string                  { return "" }
func (n number) number(s *Settings) (int64, bool) { return int64(*n(s)), true }
func (n number) parse(s *Settings, v string) error {
	i, err := strconv.Atoi(v)
	if err != nil {
		return errors.New("not a whole number")
	}
	*n(s) = i
	return nil
}
func (n number) decode(s *Settings, raw json.RawMessage) error {
	return decodeInt(raw, n(s))
}

func (k topK) text(s *Settings) string {
	if *k(s) == ToolsTopKAuto {
		return "auto"
	}
	return strconv.Itoa(*k(s))
}
func (k topK) parse(s *Settings, v string) error {
	if v == "auto" {
		*k(s) = ToolsTopKAuto
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return errors.New("not auto, 0 or a number of tools")
	}
	*k(s) = n
	return nil
}
func (k topK) json(s *Settings) any                          { return *k(s) }
func (k topK) decode(s *Settings, raw json.RawMessage) error { return decodeInt(raw, k(s)) }
func (topK) keySuffix() string                               { return "" }
func (k topK) number(s *Settings) (int64, bool)              { return int64(*k(s)), true }

func (d duration) text(s *Settings) string { return d(s).String() }
func (d duration) parse(s *Settings, v string) error {
	t, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("not a duration such as 500ms, 3s or 1m")
	}
	*d(s) = t
	return nil
}
func (d duration) json(s *Settings) any { return d(s).Milliseconds() }
func (d duration) decode(s *Settings, raw json.RawMessage) error {
	var ms int64
	if err := decodeInt(raw, &ms); err != nil {
		return err
	}
	// Checked before it becomes a Duration, which would overflow.
	if ms > int64(time.Duration(1<<63-1)/time.Millisecond) || ms < -int64(time.Duration(1<<63-1)/time.Millisecond) {
		return errOutOfRange
	}
	*d(s) = time.Duration(ms) * time.Millisecond
	return nil
}
func (duration) keySuffix() string                  { return "_ms" }
func (d duration) number(s *Settings) (int64, bool) { return int64(*d(s)), true }

func (d dialect) text(s *Settings) string { return d(s).String() }
func (d dialect) parse(s *Settings, v string) error {
	parsed, err := streamparser.ParseDialect(v)
	if err != nil {
		return errors.New("is unknown: use " + either(streamparser.DialectNames()))
	}
	*d(s) = parsed
	return nil
}
func (d dialect) json(s *Settings) any { return d(s).String() }
func (d dialect) decode(s *Settings, raw json.RawMessage) error {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return errors.New("must be a string")
	}
	return d.parse(s, v)
}
func (dialect) keySuffix() string              { return "" }
func (dialect) number(*Settings) (int64, bool) { return 0, false }

func (b optionalBool) text(s *Settings) string {
	if *b(s) == nil {
		return "auto"
	}
	return strconv.FormatBool(**b(s))
}
func (b optionalBool) parse(s *Settings, v string) error {
	if v == "auto" {
		*b(s) = nil
		return nil
	}
	t, err := strconv.ParseBool(v)
	if err != nil {
		return errors.New("not true, false or auto")
	}
	*b(s) = &t
	return nil
}
func (b optionalBool) json(s *Settings) any {
	if *b(s) == nil {
		return nil
	}
	return **b(s)
}

// decode takes true, false, or null for auto.
func (b optionalBool) decode(s *Settings, raw json.RawMessage) error {
	var v *bool
	if err := json.Unmarshal(raw, &v); err != nil {
		return errors.New("must be true, false or null (the model decides)")
	}
	*b(s) = v
	return nil
}
func (optionalBool) keySuffix() string              { return "" }
func (optionalBool) number(*Settings) (int64, bool) { return 0, false }

// errOutOfRange is a number too large for its setting to hold: Apply
// words it as the setting's bounds.
var errOutOfRange = errors.New("is out of range")

// decodeInt reads a whole JSON number into n.
func decodeInt[N int | int64](raw json.RawMessage, n *N) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	// Into any, since a json.Number would take the string "3" too.
	var v any
	_ = dec.Decode(&v) // a value that is not JSON is not a json.Number either
	num, ok := v.(json.Number)
	if !ok {
		return errors.New("must be a whole number")
	}
	i, err := strconv.ParseInt(num.String(), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && int64(N(i)) != i:
		return errOutOfRange
	case err != nil:
		return errors.New("must be a whole number")
	}
	*n = N(i)
	return nil
}

func names[S ~string](values []S) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// Apply returns s with the settings that values name, a JSON object's
// fields by Key, and checks the result as written. Keys that name no
// setting are the caller's own, left alone; so is a setting sent as null
// (but thinking, where null lets the model decide) or as "", which keep
// s's. Every value that cannot be read, that only the server may set
// (Field.Request false), or that Validate refuses is a
// *SettingError in JSON's words (its Key, its value as JSON writes it, a
// duration's bounds in milliseconds), all joined; the settings returned
// are then s unchanged. It is the one check of a request's settings: an
// agent built from them does not check them again.
// The command line, each HTTP entrance and a rerun all take this one path.
func (s Settings) Apply(values map[string]json.RawMessage) (Settings, error) {
	out := s
	var errs []error
	for _, f := range fields {
		raw, ok := values[f.Key()]
		if !ok || unset(f, raw) {
			continue
		}
		switch err := f.value.decode(&out, raw); {
		case !f.Request:
			errs = append(errs, f.error(string(raw), "is the server's setting: a request cannot change it (start toolscope with --"+f.Flag()+")", jsonWords))
		case errors.Is(err, errOutOfRange):
			errs = append(errs, f.error(string(raw), f.bounds(jsonWords), jsonWords))
		case err != nil:
			errs = append(errs, f.error(string(raw), err.Error(), jsonWords))
		}
	}
	if len(errs) == 0 {
		errs = out.problems(jsonWords)
	}
	if err := errors.Join(errs...); err != nil {
		return s, err
	}
	return out, nil
}

// unset says a request's raw value for f stands for "keep the server's":
// null, or "" for a setting written as text.
func unset(f Field, raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "null":
		return !f.IsBool()
	case `""`:
		_, isNumber := f.value.number(&Settings{})
		return !isNumber
	}
	return false
}

// Values are settings as a run records them: those a request may change
// (Field.Request), as the run settled them, by Key, in the table's order.
// The server's own settings (addresses, files, timeouts) are left out: a
// viewer of the run may read its record, and only the operator may read
// the server's.
type Values []Value

// Value is one setting's Key and its value as JSON carries it.
type Value struct {
	Key   string
	Value any
}

// Values returns the settings of s that a run records.
func (s Settings) Values() Values {
	var out Values
	for _, f := range fields {
		if f.Request {
			out = append(out, Value{Key: f.Key(), Value: f.JSON(s)})
		}
	}
	return out
}

// MarshalJSON writes the values as one JSON object, in order.
func (vs Values) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(v.Key)
		value, err := json.Marshal(v.Value)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
