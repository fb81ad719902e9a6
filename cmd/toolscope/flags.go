package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/openai"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/retrieve"
)

// Flag groups, in the order -h lists them.
const (
	groupModel  = "Model"
	groupLoop   = "Loop"
	groupTools  = "Tools"
	groupOutput = "Output"
	groupServer = "Server"
)

var groupOrder = []string{groupModel, groupTools, groupLoop, groupOutput, groupServer}

// envPrefix starts the environment variable each setting flag reads, as in
// TOOLSCOPE_MAX_ROUNDS for --max-rounds.
const envPrefix = "TOOLSCOPE_"

// command is one subcommand's flags: the run settings, and what the
// subcommand adds (output for run, chat and replay, the listener for
// serve).
type command struct {
	fs       *flag.FlagSet
	stderr   io.Writer
	synopsis string
	meta     map[string]flagMeta // by flag name
	order    []string            // flag names as defined, for usage
	settings engine.Settings

	json, showThinking, verbose bool
	modelSet                    bool // --model or $TOOLSCOPE_MODEL was given
	addr                        string
	keepRuns                    int
	pauseTimeout                time.Duration
	dataDir                     string
	noHistory                   bool
	allowHosts                  []string
	auth, noAuth                bool
}

type flagMeta struct {
	group string
	kind  string // what the value is, for usage; "" for a boolean
	env   string
}

// newCommand defines the flags every command that runs the loop shares,
// starting at engine.Defaults.
func newCommand(name, synopsis string, stderr io.Writer) *command {
	c := newBareCommand(name, synopsis, stderr)
	c.settings = engine.Defaults()
	s := &c.settings
	c.withEnv(groupModel, "backend", "name", "model backend: ollama; openai (vLLM, llama-server, LM Studio or any OpenAI-compatible server at --openai-base-url); demo (offline, scripted); or auto (Ollama when it answers and has the model, else demo)", text[string]{&s.Backend})
	c.withEnv(groupModel, "model", "name", "the model: Ollama's name, or the id an OpenAI-compatible server serves (unset there: its only model)", setText{text[string]{&s.Model}, &c.modelSet})
	c.withOllamaHost(groupModel)
	c.withEnv(groupModel, "openai-base-url", "URL", "the OpenAI-compatible server's API root, such as http://127.0.0.1:8000/v1 (vLLM); unset, $OPENAI_BASE_URL", text[string]{&s.OpenAIBaseURL})
	c.withEnv(groupModel, "openai-api-key", "key", "the OpenAI-compatible server's API key, if it was started with one; unset, $OPENAI_API_KEY", text[string]{&s.OpenAIAPIKey})
	c.withEnv(groupModel, "template", "name|file", "the chat template of --backend openai's raw mode: "+strings.Join(openai.Templates(), ", ")+", or a file in Ollama's Go-template format; unset, guessed from the model's name", text[string]{&s.Template})
	c.withEnv(groupModel, "mode", "name", "raw: toolscope renders the prompt and sends it verbatim; chat: the server renders it (Ollama's /api/chat, /v1/chat/completions)", text[llm.Mode]{&s.Mode})
	c.withEnv(groupModel, "demo-delay", "duration", "pause between the demo model's tokens", (*durationValue)(&s.DemoDelay))
	c.withEnv(groupLoop, "dialect", "name", "how the model is told to write tool calls: "+strings.Join(streamparser.DialectNames(), ", "), (*dialectValue)(&s.Dialect))
	c.withEnv(groupLoop, "think", "", "ask for reasoning: true or false; auto lets the model decide (on where it can think)", optionalBool{&s.Think})
	c.withEnv(groupLoop, "max-rounds", "n", fmt.Sprintf("most model replies in one run, %d to %d", engine.MinMaxRounds, engine.MaxMaxRounds), (*intValue)(&s.MaxRounds))
	c.withToolSources()
	c.withEnv(groupTools, "tool-delay", "duration", "how long the built-in stub tools take, at most 1m", (*durationValue)(&s.ToolDelay))
	c.withEnv(groupTools, "tool-timeout", "duration", "longest a tool call may take, MCP ones included; then it fails, and is cancelled on an MCP server too", (*durationValue)(&s.ToolTimeout))
	// Kept so that scripts written for it still run; unlisted, since one
	// timeout now bounds every tool call.
	c.fs.Var((*durationValue)(&s.ToolTimeout), "mcp-timeout", "the old name of --tool-timeout")
	// The OpenAI SDK's own variables, read after the flags are defined so
	// that -h shows no key; $TOOLSCOPE_* and the command line win.
	s.OpenAIBaseURL, s.OpenAIAPIKey = os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")
	return c
}

// newToolsCommand is a tools subcommand's: the sources of tools and the
// run settings' defaults, without the flags of a model or of the loop,
// since it runs neither.
func newToolsCommand(name, synopsis string, stderr io.Writer) *command {
	c := newBareCommand(name, synopsis, stderr)
	c.settings = engine.Defaults()
	return c.withToolSources()
}

// withOllamaHost adds where Ollama is, in group: the model's, and the
// embedder's of tool retrieval.
func (c *command) withOllamaHost(group string) *command {
	c.withEnv(group, "ollama-host", "address", "Ollama address; unset, $OLLAMA_HOST, else 127.0.0.1:11434", text[string]{&c.settings.OllamaHost})
	return c
}

// withToolSources adds the flags that connect MCP servers' tools.
func (c *command) withToolSources() *command {
	s := &c.settings
	c.add(groupTools, "mcp", "command|URL", "an MCP server: a command to start over stdio, or a streamable HTTP URL (repeatable)", mcpValue{&s.MCP, ""})
	c.add(groupTools, "mcp-sse", "URL", "an MCP server's URL on the older HTTP+SSE transport (repeatable)", mcpValue{&s.MCP, mcp.TransportSSE})
	c.withEnv(groupTools, "mcp-config", "file", "a JSON file of MCP servers in the mcpServers format of Claude Desktop", text[string]{&s.MCPConfig})
	return c
}

// newBareCommand is a command without flags: replay's, which runs no
// model and so takes no settings.
func newBareCommand(name, synopsis string, stderr io.Writer) *command {
	c := &command{
		fs:       flag.NewFlagSet(name, flag.ContinueOnError),
		stderr:   stderr,
		synopsis: synopsis,
		meta:     map[string]flagMeta{},
	}
	c.fs.SetOutput(stderr)
	c.fs.Usage = c.usage
	return c
}

// withOutput adds the flags of commands that print a run: run, chat and
// replay.
func (c *command) withOutput() *command {
	c.add(groupOutput, "json", "", "print the event stream as JSON lines instead", (*boolValue)(&c.json))
	c.add(groupOutput, "show-thinking", "", "print the model's reasoning", (*boolValue)(&c.showThinking))
	c.add(groupOutput, "v", "", "also print the backend, each round's counters, and MCP servers' stderr", (*boolValue)(&c.verbose))
	return c
}

// withRetrieval adds the flags of tool retrieval, for the commands that
// run the loop.
func (c *command) withRetrieval() *command {
	s := &c.settings
	c.withEnv(groupTools, "tools-top-k", "n|auto", fmt.Sprintf("how many tools each run offers, chosen for the request by --retriever: 0 offers every tool; auto offers %d once more than %d tools are connected", engine.AutoTopK, engine.AutoRetrievalAbove), (*topKValue)(&s.ToolsTopK))
	c.withEnv(groupTools, "retriever", "name", "how --tools-top-k ranks the tools: lexical (BM25, offline), embedding (Ollama's /api/embed) or hybrid (both, fused); without the embedding model it falls back to lexical and says why", text[retrieve.Retriever]{&s.Retriever})
	c.withEnv(groupTools, "embed-model", "name", "the Ollama model that embeds for --retriever embedding and hybrid", text[string]{&s.EmbedModel})
	return c
}

// withServer adds serve's flags.
func (c *command) withServer() *command {
	c.withRetrieval()
	c.addr, c.keepRuns = "127.0.0.1:8000", 100
	c.add(groupOutput, "v", "", "log more, such as MCP servers' stderr", (*boolValue)(&c.verbose))
	c.withEnv(groupServer, "addr", "host:port", "address to listen on", text[string]{&c.addr})
	c.withEnv(groupServer, "keep-runs", "n", "finished runs kept, in memory and in the history, for the Runs panel and /api/runs; the oldest go first", (*intValue)(&c.keepRuns))
	c.withEnv(groupServer, "data-dir", "dir", "where the history of runs is kept, across restarts; unset, the user's data directory ($XDG_DATA_HOME/toolscope or ~/.local/share/toolscope on Linux)", text[string]{&c.dataDir})
	c.add(groupServer, "no-history", "", "keep runs in memory only: they go when toolscope stops", (*boolValue)(&c.noHistory))
	c.pauseTimeout = runs.DefaultPauseTimeout
	c.withEnv(groupServer, "pause-timeout", "duration", "how long a run in step mode waits at a pause for someone to continue it; then it is stopped, and frees its place among --max-live-runs", (*durationValue)(&c.pauseTimeout))
	c.withEnv(groupServer, "allow-host", "name", "a host name, such as mylaptop.local, that browsers may open toolscope by, besides localhost and IP addresses (repeatable, or comma-separated)", hostsValue{&c.allowHosts})
	// No environment variables: turning the token on or off is a choice
	// for each start, not one to leave in a shell profile.
	c.add(groupServer, "no-auth", "", "beyond loopback, let anyone who reaches the address start runs and call tools without a token: only on a network you trust", (*boolValue)(&c.noAuth))
	c.add(groupServer, "auth", "", "ask for a token on loopback too, as behind a tunnel or a reverse proxy", (*boolValue)(&c.auth))
	return c
}

// access is who may use a server listening on addr: tokens when it is
// reachable from other machines (or --auth says so) unless --no-auth.
func (c *command) access(addr net.Addr) server.Access {
	a := server.Access{AllowHosts: c.allowHosts, ShareHosts: server.ReachableAt(addr)}
	if c.auth || server.Exposed(addr) && !c.noAuth {
		a.Tokens = server.NewTokens()
	}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		for _, name := range c.allowHosts {
			a.ShareHosts = append(a.ShareHosts, net.JoinHostPort(name, strconv.Itoa(tcp.Port)))
		}
	}
	return a
}

func (c *command) add(group, name, kind, usage string, v flag.Value) {
	c.fs.Var(v, name, usage)
	c.meta[name] = flagMeta{group: group, kind: kind}
	c.order = append(c.order, name)
}

// withEnv adds a flag that TOOLSCOPE_<NAME> sets when the command line
// does not.
func (c *command) withEnv(group, name, kind, usage string, v flag.Value) {
	c.add(group, name, kind, usage, v)
	c.meta[name] = flagMeta{group: group, kind: kind, env: envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))}
}

// parse reads the environment, then the arguments as parseArgs does.
func (c *command) parse(args []string, want operands) (positional []string, code int, ok bool) {
	if err := c.readEnv(); err != nil {
		fmt.Fprintf(c.stderr, "toolscope %s: %v\n", c.fs.Name(), err)
		return nil, exitUsage, false
	}
	positional, code, ok = parseArgs(c.fs, args, want, c.stderr)
	if ok && c.settings.Backend == engine.BackendOpenAI && !c.modelSet {
		// Ollama's default model means nothing to another server: leave
		// the choice to it, which works when it serves one model.
		c.settings.Model = ""
	}
	return positional, code, ok
}

// parseArgs reads flags and positional arguments in any order, as in
// `toolscope run "request" --json`, and checks them against want. When ok
// is false the command ends with code; parseArgs has said why, in one
// line: -h alone prints the usage.
func parseArgs(fs *flag.FlagSet, args []string, want operands, stderr io.Writer) (positional []string, code int, ok bool) {
	// The flag package would print its own wording and the whole usage.
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				usage()
				return nil, exitOK, false
			}
			fmt.Fprintf(stderr, "toolscope %s: %s\n", fs.Name(), flagProblem(fs, err))
			return nil, exitUsage, false
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if problem := want.check(positional); problem != "" {
		fmt.Fprintf(stderr, "toolscope %s %s\n", fs.Name(), problem)
		return nil, exitUsage, false
	}
	return positional, exitOK, true
}

// readEnv sets each flag from its environment variable; flags on the
// command line, parsed later, win.
func (c *command) readEnv() error {
	var errs []error
	c.fs.VisitAll(func(f *flag.Flag) {
		env := c.meta[f.Name].env
		if v := os.Getenv(env); env != "" && v != "" {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("$%s: %v", env, err))
			}
		}
	})
	return errors.Join(errs...)
}

// start builds the engine the flags describe. When ok is false the
// command ends with code; start has said why. The caller closes the engine.
func (c *command) start(ctx context.Context) (e *engine.Engine, code int, ok bool) {
	if c.verbose {
		slog.SetLogLoggerLevel(slog.LevelDebug) // MCP servers' stderr, among others
	}
	if err := c.check(); err != nil {
		return nil, c.report(err), false
	}
	e, err := engine.Start(ctx, c.settings, c.stderr, selfAsMCP()...)
	if err != nil {
		return nil, c.report(err), false
	}
	return e, exitOK, true
}

// check reports every value the command line gave that cannot be used, as
// *engine.SettingError values: the settings as written (see
// engine.Settings.ValidateAsWritten), and the command's own.
func (c *command) check() error {
	var errs []error
	if err := c.settings.ValidateAsWritten(); err != nil {
		errs = unjoin(err)
	}
	if c.keepRuns < 0 {
		errs = append(errs, &engine.SettingError{Setting: "keep_runs", Value: strconv.Itoa(c.keepRuns), Problem: "must be 0 or more"})
	}
	return errors.Join(errs...)
}

// selfAsMCP has "toolscope" in an MCP command (--mcp "toolscope mcp
// calculator") run this very binary: set-ups such as ./start.sh build it
// where PATH does not look, and an older toolscope on PATH may lack a
// server this one documents.
func selfAsMCP() []engine.Option {
	self, err := os.Executable()
	if err != nil {
		return nil // then PATH decides, as for any other program
	}
	return []engine.Option{engine.WithProgram("toolscope", self)}
}

// report says what err is, naming bad settings as flags, and returns the
// exit code: usage for bad settings.
func (c *command) report(err error) int {
	var bad []*engine.SettingError
	for _, e := range unjoin(err) {
		var se *engine.SettingError
		if !errors.As(e, &se) {
			fmt.Fprintf(c.stderr, "toolscope: %v\n", err)
			return exitError
		}
		bad = append(bad, se)
	}
	for _, se := range bad {
		fmt.Fprintf(c.stderr, "toolscope %s: --%s %s %s\n", c.fs.Name(), strings.ReplaceAll(string(se.Setting), "_", "-"), se.Value, se.Problem)
	}
	return exitUsage
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// usage lists the flags by group, each with its default and the
// environment variable it reads.
func (c *command) usage() {
	w := c.stderr
	fmt.Fprintf(w, "Usage: toolscope %s %s\n", c.fs.Name(), c.synopsis)
	for _, group := range groupOrder {
		var lines []string
		for _, name := range c.order {
			if m := c.meta[name]; m.group == group {
				lines = append(lines, flagHelp(c.fs.Lookup(name), m))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s:\n%s", group, strings.Join(lines, ""))
		}
	}
}

// flagHelp is one flag's entry in usage, in the shape flag.PrintDefaults
// gives it, with its environment variable.
func flagHelp(f *flag.Flag, m flagMeta) string {
	var b strings.Builder
	dashes := "--"
	if len(f.Name) == 1 {
		dashes = "-"
	}
	b.WriteString("  " + dashes + f.Name)
	if m.kind != "" {
		b.WriteString(" " + m.kind)
	}
	b.WriteString("\n    \t" + f.Usage)
	var notes []string
	if f.DefValue != "" && f.DefValue != "0s" && f.DefValue != "false" {
		notes = append(notes, "default "+f.DefValue)
	}
	if m.env != "" {
		notes = append(notes, "$"+m.env)
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, "; ") + ")")
	}
	b.WriteString("\n")
	return b.String()
}

// Flag values bound to the fields of engine.Settings.
type (
	text[T ~string] struct{ p *T }
	// setText is a text flag that remembers it was given.
	setText struct {
		text[string]
		set *bool
	}
	intValue int
	// floatValue is a number such as 2 or 0.5.
	floatValue float64
	// topKValue is a number of tools, or "auto" for engine.ToolsTopKAuto.
	topKValue     int
	boolValue     bool
	durationValue time.Duration
	dialectValue  streamparser.Dialect
	// optionalBool is a boolean flag that remembers whether it was set.
	optionalBool struct{ value **bool }
	mcpValue     struct {
		specs     *[]mcp.ServerSpec
		transport string
	}
	// hostsValue adds host names, several at once when separated by
	// commas, as $TOOLSCOPE_ALLOW_HOST gives them.
	hostsValue struct{ names *[]string }
)

func (v text[T]) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}
func (v text[T]) Set(s string) error { *v.p = T(s); return nil }

func (v setText) Set(s string) error { *v.set = true; return v.text.Set(s) }

func (v *intValue) String() string { return strconv.Itoa(int(*v)) }
func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	*v = intValue(n)
	return nil
}

func (v *floatValue) String() string { return strconv.FormatFloat(float64(*v), 'g', -1, 64) }
func (v *floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	*v = floatValue(f)
	return nil
}

func (v *topKValue) String() string {
	if *v == engine.ToolsTopKAuto {
		return "auto"
	}
	return strconv.Itoa(int(*v))
}
func (v *topKValue) Set(s string) error {
	if s == "auto" {
		*v = engine.ToolsTopKAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return errors.New("not auto, 0 or a number of tools")
	}
	*v = topKValue(n)
	return nil
}

func (v *boolValue) String() string { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not true or false")
	}
	*v = boolValue(b)
	return nil
}
func (v *boolValue) IsBoolFlag() bool { return true }

func (v *durationValue) String() string { return time.Duration(*v).String() }
func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration such as 500ms, 3s or 1m")
	}
	*v = durationValue(d)
	return nil
}

func (v *dialectValue) String() string { return streamparser.Dialect(*v).String() }
func (v *dialectValue) Set(s string) error {
	d, err := engine.ParseDialect(s)
	if err != nil {
		var se *engine.SettingError
		errors.As(err, &se)
		return errors.New("it " + se.Problem)
	}
	*v = dialectValue(d)
	return nil
}

func (v optionalBool) String() string {
	if v.value == nil || *v.value == nil {
		return "auto"
	}
	return strconv.FormatBool(**v.value)
}

// Set takes a boolean, or "auto" to let the model decide.
func (v optionalBool) Set(s string) error {
	if s == "auto" {
		*v.value = nil
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not true, false or auto")
	}
	*v.value = &b
	return nil
}
func (v optionalBool) IsBoolFlag() bool { return true }

func (v mcpValue) String() string { return "" }
func (v mcpValue) Set(s string) error {
	spec, err := mcp.ParseFlag(s, v.transport)
	if err != nil {
		return err
	}
	*v.specs = append(*v.specs, spec)
	return nil
}

func (v hostsValue) String() string {
	if v.names == nil {
		return ""
	}
	return strings.Join(*v.names, ",")
}
func (v hostsValue) Set(s string) error {
	for name := range strings.SplitSeq(s, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || strings.ContainsAny(name, ":/ ") {
			return fmt.Errorf("%q is not a host name such as mylaptop.local (no scheme, port or path)", name)
		}
		*v.names = append(*v.names, name)
	}
	return nil
}
