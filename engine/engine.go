// Package engine turns run settings into agents, once, for every front end.
//
// [Settings] holds every run setting; [Settings.Validate] reports every bad
// one at once as a [*SettingError], which each front end words its own way
// (a flag, a JSON field, a control on the page). [Settings.Apply] is the
// one decoder of settings sent as JSON: each HTTP entrance, and a rerun
// starting from a run's recorded [Settings.Values], goes through it.
//
// Each setting is declared once, as a row of the settings table ([Fields]:
// name, group, kind, help, the page's label, whether a request may change
// it, choices or bounds, and how it is read and written). Every shape a
// setting takes derives from its row: its flag and TOOLSCOPE_* variable
// (cmd/toolscope), the one decoder of a JSON object of settings
// ([Settings.Apply]), a run's record ([Settings.Values]), the checks of
// [Settings.Validate] and their wording, GET /api/settings and the page's
// Settings form (frontend/server), and the flag table of docs/cli.md.
// Adding a setting is one row in fields plus the code that uses it.
// Validate is pure: it reads no file and asks no server; Start loads what
// the settings name, once.
//
// [Start] builds the [Engine] that a program keeps while it runs: it
// settles the "auto" backend (and remembers why it fell back, as a
// [Fallback]; [Engine.Resettle] checks again, after a pull), connects the
// MCP servers, and then [Engine.Agent] builds an agent for any settings, sharing one backend per distinct backend
// settings so that runs alike share one HTTP client and one cache of what
// Ollama said about the model. The command line, the HTTP server and the
// tests of both all build their agents here.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// autoCheckTimeout bounds the start-up check of Ollama for BackendAuto: a
// missing Ollama is refused at once, a stuck one must not stall start-up.
const autoCheckTimeout = 3 * time.Second

// Engine builds agents from settings. Create it with Start and Close it
// when done. Its methods are safe for concurrent use.
type Engine struct {
	asked    Settings // as Start was given them, defaults filled in: BackendAuto unsettled
	settled  atomic.Pointer[settled]
	resettle sync.Mutex // one Resettle at a time
	hub      *mcp.Hub   // nil without MCP servers
	tools    []tools.Tool
	backends *backendCache
	programs map[string]string // an MCP command's program name → what runs it
	index    *toolIndex        // tool retrieval over every tool
	oauth    mcp.OAuthOptions  // how MCP servers sign in (WithMCPOAuth)
}

// settled is what settling BackendAuto decided: the engine's settings with
// the backend chosen, why it fell back if it did, and the backend itself.
// Resettle replaces it whole, so that a reader sees one decision or the
// next, never half of each.
type settled struct {
	settings Settings
	fallback *Fallback
	own      llm.Backend // the settings', never evicted
}

// now is the engine's settled state, as it stands.
func (e *Engine) now() *settled { return e.settled.Load() }

// Fallback says why BackendAuto chose the demo model.
type Fallback struct {
	Model string // the Ollama model that was wanted
	Cause error  // what Ollama's check said, with what to do
}

// Problem says what Ollama's check found, without the fix that a Cause
// of type *llm.Error words apart.
func (f *Fallback) Problem() string {
	var le *llm.Error
	if errors.As(f.Cause, &le) {
		return le.Problem
	}
	return f.Cause.Error()
}

// Fix is what would make Ollama answer, or nil when the Cause does not
// say.
func (f *Fallback) Fix() *llm.Fix {
	var le *llm.Error
	if errors.As(f.Cause, &le) {
		return le.Fix
	}
	return nil
}

// Reason says what was wrong with Ollama, and the step outside toolscope
// that would fix it; not the advice to use the demo model, taken already.
func (f *Fallback) Reason() string {
	if fix := f.Fix(); fix != nil && fix.Do != "" {
		return f.Problem() + ": " + fix.Do
	}
	return f.Problem()
}

// String is the fallback as the log tells it.
func (f *Fallback) String() string {
	if fix := f.Fix(); fix != nil && fix.Setting == llm.SettingModel {
		// Ollama answered: the reason says how to pull the model.
		return f.Reason() + "\nStarting with the offline demo model instead."
	}
	return fmt.Sprintf("%s\n(No Ollama yet? Get it from https://ollama.com/download, then run 'ollama pull %s'.)\nStarting with the offline demo model instead.", f.Reason(), f.Model)
}

// Option changes how Start builds an Engine.
type Option func(*Engine)

// WithTools offers ts to the model instead of the built-in stub tools
// (MCP tools are still added). Tests use it to hold a run while a tool
// runs; a program may use it to offer its own tools.
func WithTools(ts ...tools.Tool) Option {
	return func(e *Engine) { e.tools = ts }
}

// WithProgram runs path for an MCP server whose command is the bare
// program name, as in "toolscope mcp calculator": a program that serves
// MCP itself need not be on PATH, and the servers it starts are the same
// build as the program, whatever stands first on PATH.
func WithProgram(name, path string) Option {
	return func(e *Engine) {
		if e.programs == nil {
			e.programs = map[string]string{}
		}
		e.programs[name] = path
	}
}

// Start checks s, settles BackendAuto, and connects the MCP servers,
// saying on log which are ready and which failed. A failed MCP server is
// reported, not fatal; a bad setting (a *SettingError) or an unreadable
// MCP config file is. The servers live until Close or until ctx ends. A
// nil log discards what Start says.
func Start(ctx context.Context, s Settings, log io.Writer, opts ...Option) (*Engine, error) {
	if log == nil {
		log = io.Discard
	}
	s = s.withDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := s.checkTemplate(); err != nil {
		return nil, err
	}
	specs := s.MCP
	if s.MCPConfig != "" {
		more, err := mcp.LoadConfig(s.MCPConfig)
		if err != nil {
			return nil, err
		}
		specs = append(specs[:len(specs):len(specs)], more...)
	}
	e := &Engine{asked: s, backends: newBackendCache(maxBackends)}
	for _, o := range opts {
		o(e)
	}
	if _, err := tools.NewRegistry(e.tools...); err != nil {
		return nil, fmt.Errorf("the tools given to WithTools: %w", err)
	}
	st, err := settle(ctx, s)
	if err != nil {
		return nil, err
	}
	if st.fallback != nil {
		fmt.Fprintln(log, st.fallback)
		if s.Mode == llm.ModeChat {
			fmt.Fprintln(log, "Chat mode does not apply: "+noDemoChat+"; it reads the raw prompt.")
		}
	}
	e.settled.Store(st)
	if len(specs) > 0 {
		e.hub, _ = mcp.Connect(ctx, e.resolve(specs), mcp.Options{Timeout: s.ToolTimeout, OAuth: e.oauth, Roots: s.Roots})
		e.reportMCP(log)
	}
	e.index = newToolIndex(s)
	e.follow()
	return e, nil
}

// resolve returns specs with the programs of WithProgram in place.
func (e *Engine) resolve(specs []mcp.ServerSpec) []mcp.ServerSpec {
	out := slices.Clone(specs) // specs may be the caller's Settings.MCP
	for i, spec := range out {
		if path, ok := e.programs[spec.Command]; ok && spec.URL == "" {
			out[i] = spec.RunBy(path)
		}
	}
	return out
}

// settle settles BackendAuto in s, if s asks for it, and builds the
// backend of the settings that result. The demo model reads the raw prompt
// only, so a fallback from chat mode is in raw mode.
func settle(ctx context.Context, s Settings) (*settled, error) {
	st := &settled{settings: s}
	if s.Backend == BackendAuto {
		st.settings.Backend, st.fallback = settleAuto(ctx, s)
		if st.fallback != nil && s.Mode == llm.ModeChat {
			st.settings.Mode = llm.ModeRaw
		}
	}
	own, err := newBackend(keyOf(st.settings))
	if err != nil {
		return nil, err
	}
	st.own = own
	return st, nil
}

// Resettle checks Ollama again after BackendAuto fell back to the demo
// model, as after the model was pulled: when Ollama now answers and has
// the model, it becomes the engine's backend and the Fallback is gone.
// Agents built from then on run on it; runs already going keep the demo
// model they were built with, and finish on it. Resettle returns the
// fallback in force when it is done: nil once Ollama serves the model, or
// when there was none; else the newest reason, which it keeps.
func (e *Engine) Resettle(ctx context.Context) *Fallback {
	e.resettle.Lock()
	defer e.resettle.Unlock()
	if e.now().fallback == nil {
		return nil
	}
	next, err := settle(ctx, e.asked)
	if err != nil {
		return e.now().fallback // Start built this very backend: not seen
	}
	e.settled.Store(next)
	return next.fallback
}

// settleAuto chooses Ollama when it answers and has the model, else the
// demo model, and then says why.
func settleAuto(ctx context.Context, s Settings) (string, *Fallback) {
	b, err := ollama.New(ollama.Config{Host: s.OllamaHost, Model: s.Model, Mode: s.Mode})
	if err != nil {
		return BackendOllama, nil // Validate read the address; Agent reports anything else
	}
	ctx, cancel := context.WithTimeout(ctx, autoCheckTimeout)
	defer cancel()
	if _, err := b.Check(ctx); err != nil {
		return BackendDemo, &Fallback{Model: s.Model, Cause: err}
	}
	return BackendOllama, nil
}

func (e *Engine) reportMCP(log io.Writer) {
	for _, s := range e.hub.Servers() {
		switch s.State {
		case mcp.StateReady:
			fmt.Fprintf(log, "mcp: %s - %s\n", s.Name, strings.Join(s.Tools, ", "))
		case mcp.StateSignIn:
			fmt.Fprintf(log, "mcp: %s waits for a sign-in: %s\n", s.Target, s.Error)
		default:
			fmt.Fprintf(log, "mcp: %s failed: %s\n", s.Target, s.Error)
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(log, "mcp: %s: %s\n", s.Name, w)
		}
	}
	if _, err := e.registry(0); err != nil {
		fmt.Fprintf(log, "mcp: tools left out: %v\n", err)
	}
}

// Close stops the MCP servers, waiting until their processes are gone.
func (e *Engine) Close() error {
	if e.hub == nil {
		return nil
	}
	return e.hub.Close()
}

// Settings are the settings Start was given, with defaults filled in and
// BackendAuto settled.
func (e *Engine) Settings() Settings { return e.now().settings }

// Fallback says why BackendAuto chose the demo model; nil when it did not.
func (e *Engine) Fallback() *Fallback { return e.now().fallback }

// Backend is the backend of the engine's own settings, for health checks
// and model lists. Start built it, so that a setting no backend can use
// is Start's error.
func (e *Engine) Backend() llm.Backend { return e.now().own }

// Tools lists the tools a run with the engine's settings may call.
func (e *Engine) Tools() []tools.Tool {
	r, _ := e.registry(e.asked.ToolDelay) // Start reported what is left out
	return r.Tools()
}

// MCPServers describes the MCP servers, failed ones included; nil when
// there are none.
func (e *Engine) MCPServers() []mcp.ServerInfo {
	if e.hub == nil {
		return nil
	}
	return e.hub.Servers()
}

// MCP is the hub of the MCP servers, for their resources and prompts;
// nil when there are none.
func (e *Engine) MCP() *mcp.Hub { return e.hub }

// Agent builds the agent that s describes. BackendAuto in s means the
// backend Start settled on. Its error joins *SettingError values when s
// is not valid.
func (e *Engine) Agent(s Settings) (*agent.Agent, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return e.AgentWith(s, Toolset{})
}

// Toolset says which tools an agent of [Engine.AgentWith] offers; the zero
// value is the engine's own, as [Engine.Agent] offers them.
type Toolset struct {
	// Caller, when not nil, are tools the caller runs itself: they are
	// offered in place of the engine's, and the agent returns their calls
	// (agent.Config.ReturnCalls). Empty but not nil offers no tools.
	Caller []tools.Tool
	// NoBuiltin leaves out the built-in tools (the stubs, or WithTools's),
	// keeping the MCP servers'.
	NoBuiltin bool
}

// AgentWith is Agent with the tools of ts, for settings checked already:
// the engine's own, or those [Settings.Apply] returned, which it does not
// check again, so that a request's settings are checked once per run. A
// Caller tool whose schema does not compile is an error that names it.
//
// The agent's runs record s in their RunStarted events, as [Settings.Values]
// with defaults filled in and BackendAuto settled, and the sampling if any.
func (e *Engine) AgentWith(s Settings, ts Toolset) (*agent.Agent, error) {
	s = s.withDefaults()
	st := e.now() // one decision for the whole agent, whatever Resettle does meanwhile
	if s.Backend == BackendAuto {
		s.Backend = st.settings.Backend
	}
	backend, err := e.backendOf(st, s)
	if err != nil {
		return nil, err
	}
	var registry *tools.Registry
	var sel agent.Selector
	switch {
	case ts.Caller != nil:
		if registry, err = tools.NewRegistry(ts.Caller...); err != nil {
			return nil, err
		}
	case ts.NoBuiltin:
		registry, _ = e.registryOf(nil) // Start reported what is left out
	default:
		registry, _ = e.registry(s.ToolDelay)
		// Only the engine's whole tool set is indexed; an API client
		// choosing tools has chosen already.
		sel = e.selectorFor(s)
	}
	return agent.New(agent.Config{
		Backend:     backend,
		Tools:       registry,
		MaxRounds:   s.MaxRounds,
		ToolTimeout: s.ToolTimeout,
		Think:       s.Think,
		Options:     s.Sampling,
		Dialect:     s.Dialect,
		ReturnCalls: ts.Caller != nil,
		Selector:    sel,
		Asks:        agent.Asks{Elicit: s.Elicit, SamplingMaxTokens: s.SamplingMaxTokens, SamplingPerCall: s.SamplingPerCall},
		Settings:    s.record(),
	}), nil
}

// KeySampling is the field of a run's recorded settings that holds its
// sampling (llm.Sampling), when a request asked for one.
const KeySampling = "sampling"

// record is what a run's RunStarted says it ran with: its Values, and the
// request's sampling when it has one.
func (s Settings) record() json.RawMessage {
	values := s.Values()
	if s.Sampling != nil {
		values = append(values, Value{Key: KeySampling, Value: s.Sampling})
	}
	raw, _ := json.Marshal(values) // strings, numbers, booleans and an llm.Sampling
	return raw
}

// registry gathers the built-in tools and the MCP servers' current ones,
// and says which MCP tools were left out, such as one named like a
// built-in tool: the built-in one is what the page and the docs describe.
func (e *Engine) registry(delay time.Duration) (*tools.Registry, error) {
	builtin := e.tools
	if builtin == nil {
		builtin = tools.Stubs(delay)
	}
	return e.registryOf(builtin)
}

// registryOf is registry with builtin as the built-in tools.
func (e *Engine) registryOf(builtin []tools.Tool) (*tools.Registry, error) {
	r, err := tools.NewRegistry(builtin...)
	if err != nil {
		panic(err) // the stubs are fixed and valid, and Start checked WithTools's
	}
	if e.hub == nil {
		return r, nil
	}
	return r, r.AddAll(e.hub.Tools())
}

// backend is the backend s describes: the engine's own, or one the cache
// shares between runs alike.
func (e *Engine) backend(s Settings) (llm.Backend, error) { return e.backendOf(e.now(), s) }

// backendOf is backend for the settled state st.
func (e *Engine) backendOf(st *settled, s Settings) (llm.Backend, error) {
	if k := keyOf(s); k != keyOf(st.settings) {
		return e.backends.get(k)
	}
	return st.own, nil
}
