package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/streamparser"
)

// engineFlags are the flags of every command that runs the loop.
type engineFlags struct {
	backend, model, host, mode string
	dialect                    string
	maxRounds                  int
	toolDelay, toolTimeout     time.Duration
	demoDelay                  time.Duration
	think                      optionalBool
	showThinking, json         bool
	verbose                    bool
	toolFlags
	// backends are shared by every copy of the flags (serve makes one per
	// run), so that runs with the same settings share one HTTP client and
	// one cache of what Ollama said about the model.
	backends *backendCache
}

func newFlagSet(name, synopsis string, stderr io.Writer, f *engineFlags) *flag.FlagSet {
	f.backends = &backendCache{byKey: map[string]llm.Backend{}}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: toolscope %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.backend, "backend", "ollama", "model backend: ollama; demo (offline, scripted); or auto (Ollama when it answers and has the model, else demo)")
	fs.StringVar(&f.model, "model", "qwen3:4b", "Ollama model")
	fs.StringVar(&f.host, "ollama-host", "", "Ollama address (default $OLLAMA_HOST, else 127.0.0.1:11434)")
	fs.StringVar(&f.mode, "mode", llm.ModeRaw, "raw: toolscope renders the prompt and sends it verbatim; chat: Ollama's /api/chat renders it")
	fs.StringVar(&f.dialect, "dialect", streamparser.Hermes.String(), "how the model is told to write tool calls: "+strings.Join(streamparser.DialectNames(), ", "))
	fs.IntVar(&f.maxRounds, "max-rounds", agent.DefaultMaxRounds, "most model replies in one run")
	fs.DurationVar(&f.toolDelay, "tool-delay", 3*time.Second, "how long the stub tools take")
	fs.DurationVar(&f.toolTimeout, "tool-timeout", agent.DefaultToolTimeout, "longest a tool may run before its call fails")
	fs.DurationVar(&f.demoDelay, "demo-delay", 30*time.Millisecond, "pause between the demo model's tokens")
	fs.Var(&f.think, "think", "ask for reasoning (default: on where the model can think)")
	fs.BoolVar(&f.showThinking, "show-thinking", false, "print the model's reasoning")
	fs.BoolVar(&f.json, "json", false, "print the event stream as JSON lines instead")
	fs.BoolVar(&f.verbose, "v", false, "also print the backend and each round's counters")
	f.toolFlags.register(fs)
	return fs
}

// parseArgs reads flags and positional arguments in any order, as in
// `toolscope run "request" --json`, and checks that there are n non-empty
// positional arguments. When ok is false the command ends with code;
// parseArgs has said why.
func parseArgs(fs *flag.FlagSet, args []string, n int, stderr io.Writer) (positional []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if len(positional) != n || slices.Contains(positional, "") {
		fmt.Fprintf(stderr, "toolscope %s: wrong arguments\n", fs.Name())
		fs.Usage()
		return nil, exitUsage, false
	}
	return positional, exitOK, true
}

// setUp settles --backend auto and connects the MCP servers. The caller
// must call f.close when it is done. When ok is false the command ends
// with code; setUp has said why.
func (f *engineFlags) setUp(ctx context.Context, stderr io.Writer) (code int, ok bool) {
	if f.verbose {
		slog.SetLogLoggerLevel(slog.LevelDebug) // MCP servers' stderr, among others
	}
	f.resolveAuto(ctx, stderr)
	if err := f.connect(ctx, stderr); err != nil {
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
		return exitError, false
	}
	return exitOK, true
}

// setUpAgent is setUp, then the agent the flags describe.
func (f *engineFlags) setUpAgent(ctx context.Context, stderr io.Writer) (a *agent.Agent, code int, ok bool) {
	if code, ok := f.setUp(ctx, stderr); !ok {
		return nil, code, false
	}
	a, err := f.newAgent()
	if err != nil { // a flag's value is wrong
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
		return nil, exitUsage, false
	}
	return a, exitOK, true
}

func (f *engineFlags) newAgent() (*agent.Agent, error) {
	backend, err := f.newBackend()
	if err != nil {
		return nil, err
	}
	dialect, err := streamparser.ParseDialect(f.dialect)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{
		Backend:     backend,
		Tools:       f.tools(f.toolDelay),
		MaxRounds:   f.maxRounds,
		ToolTimeout: f.toolTimeout,
		Think:       f.think.value,
		Dialect:     dialect,
	}), nil
}

// resolveAuto settles --backend auto once, at start-up: Ollama when it
// answers and has the model, else the demo model, saying why on log.
func (f *engineFlags) resolveAuto(ctx context.Context, log io.Writer) {
	if f.backend != "auto" {
		return
	}
	f.backend = "ollama"
	b, err := ollama.New(ollama.Config{Host: f.host, Model: f.model, Mode: f.mode})
	if err != nil {
		return // newBackend reports it
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := b.Check(ctx); err != nil {
		fmt.Fprintf(log, "%v\n(No Ollama yet? Get it from https://ollama.com/download, then run 'ollama pull %s'.)\nStarting with the offline demo model instead.\n", err, f.model)
		f.backend = "demo"
	}
}

func (f *engineFlags) newBackend() (llm.Backend, error) {
	key := fmt.Sprint(f.backend, "|", f.host, "|", f.model, "|", f.mode, "|", f.demoDelay)
	return f.backends.get(key, func() (llm.Backend, error) {
		switch f.backend {
		case "ollama":
			return ollama.New(ollama.Config{Host: f.host, Model: f.model, Mode: f.mode})
		case "demo":
			return demo.New(demo.Config{TokenDelay: f.demoDelay}), nil
		}
		return nil, fmt.Errorf("unknown backend %q: use ollama, demo or auto", f.backend)
	})
}

// backendCache keeps one backend per distinct set of settings.
type backendCache struct {
	mu    sync.Mutex
	byKey map[string]llm.Backend
}

func (c *backendCache) get(key string, build func() (llm.Backend, error)) (llm.Backend, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.byKey[key]; ok {
		return b, nil
	}
	b, err := build()
	if err == nil {
		c.byKey[key] = b
	}
	return b, err
}

// optionalBool is a boolean flag that remembers whether it was set.
type optionalBool struct{ value *bool }

func (b *optionalBool) String() string {
	if b == nil || b.value == nil {
		return "auto"
	}
	return strconv.FormatBool(*b.value)
}

func (b *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.value = &v
	return nil
}

func (b *optionalBool) IsBoolFlag() bool { return true }
