package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/suite"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/catalogue"
	"github.com/toolscope/toolscope/tools/mcp"
)

// toolbox is the engine of one set of tools: a case's own (stubs, inline
// tools, MCP servers) and its cell's distractors. Cases that offer the
// same tools share it, and with it the MCP servers and the index tool
// retrieval ranks them with.
type toolbox struct {
	engine *engine.Engine
	// schemas are the parameters schemas of every tool offered, by name,
	// which grading checks calls against.
	schemas map[string]json.RawMessage

	mu     sync.Mutex
	agents map[string]*agent.Agent // by the settings' recorded values
}

// agent returns the agent of settings s on the toolbox's tools, built
// once for all the cases that run with s: building one compiles the
// schema of every tool offered, which a catalogue or distractors make
// many. An agent holds no run's state.
func (b *toolbox) agent(s engine.Settings) (*agent.Agent, error) {
	key, err := json.Marshal(s.Values())
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if a, ok := b.agents[string(key)]; ok {
		return a, nil
	}
	a, err := b.engine.AgentWith(s, engine.Toolset{})
	if err != nil {
		return nil, err
	}
	b.agents[string(key)] = a
	return a, nil
}

// toolboxKey tells toolboxes apart: everything that decides which tools
// an engine holds.
type toolboxKey struct {
	Tools       suite.Tools
	Distractors int
	Delay       time.Duration // the stubs'
}

// toolboxes starts each toolbox once, when the first case that needs it
// runs, and closes them all at the end.
type toolboxes struct {
	ctx     context.Context
	base    engine.Settings
	options []engine.Option
	log     io.Writer

	mu    sync.Mutex
	boxes map[string]*toolboxEntry
}

type toolboxEntry struct {
	once sync.Once
	box  *toolbox
	err  error
}

func newToolboxes(ctx context.Context, base engine.Settings, log io.Writer, options []engine.Option) *toolboxes {
	return &toolboxes{ctx: ctx, base: base, options: options, log: log, boxes: map[string]*toolboxEntry{}}
}

// get returns the toolbox of k, starting it if need be. Cases waiting on
// one being started wait for it alone.
func (b *toolboxes) get(k toolboxKey) (*toolbox, error) {
	id, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	entry, ok := b.boxes[string(id)]
	if !ok {
		entry = &toolboxEntry{}
		b.boxes[string(id)] = entry
	}
	b.mu.Unlock()
	entry.once.Do(func() { entry.box, entry.err = b.start(k) })
	return entry.box, entry.err
}

func (b *toolboxes) start(k toolboxKey) (*toolbox, error) {
	offered := offeredTools(k)
	s := b.base
	s.MCP, s.MCPConfig = k.Tools.MCP, ""
	// WithTools with a slice that is empty but not nil offers no
	// built-in tool: a case offers exactly the tools it names.
	e, err := engine.Start(b.ctx, s, b.log, append(slices.Clone(b.options), engine.WithTools(offered...))...)
	if err != nil {
		return nil, err
	}
	// A server that failed would leave its tools out, and the cases
	// would fail as if the model missed them: they are not run at all.
	for _, server := range e.MCPServers() {
		if server.State != mcp.StateReady {
			_ = e.Close()
			return nil, fmt.Errorf("MCP server %s: %s", server.Target, server.Error)
		}
	}
	box := &toolbox{engine: e, schemas: map[string]json.RawMessage{}, agents: map[string]*agent.Agent{}}
	for _, t := range e.Tools() {
		box.schemas[t.Name()] = t.Parameters()
	}
	return box, nil
}

// close stops every toolbox's MCP servers.
func (b *toolboxes) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, entry := range b.boxes {
		entry.once.Do(func() {}) // one never started stays so
		if entry.box != nil {
			_ = entry.box.engine.Close()
		}
	}
}

// offeredTools are the built-in tools of k: the stubs it names, its
// inline tools, and its distractors. Never nil.
func offeredTools(k toolboxKey) []tools.Tool {
	out := []tools.Tool{}
	for _, t := range tools.Stubs(k.Delay) {
		if slices.Contains(k.Tools.Stubs, t.Name()) {
			out = append(out, t)
		}
	}
	for _, t := range k.Tools.Inline {
		out = append(out, t)
	}
	return append(out, distractors(k.Distractors, out)...)
}

// distractorSeed fixes which catalogue tools are drawn, so that two evals
// with the same number of distractors offer the same ones, and a cell of
// 100 holds the 10 of a cell of 10.
const distractorSeed = 18

// distractors draws n tools from the bundled catalogue, none named as a
// tool of offered: the same n tools every time.
func distractors(n int, offered []tools.Tool) []tools.Tool {
	if n <= 0 {
		return nil
	}
	all := catalogue.Tools()
	rand.New(rand.NewPCG(distractorSeed, distractorSeed)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	taken := make(map[string]bool, len(offered))
	for _, t := range offered {
		taken[t.Name()] = true
	}
	out := make([]tools.Tool, 0, n)
	for _, t := range all {
		if len(out) == n {
			break
		}
		if !taken[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}

// maxDistractors is the most distractors a cell may ask for.
func maxDistractors() int { return len(catalogue.Tools()) }
