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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools/mcp"
)

// Flag groups, in the order -h lists them: the settings' groups, from
// engine's table, then the commands' own.
const (
	groupModel  = string(engine.GroupModel)
	groupLoop   = string(engine.GroupLoop)
	groupTools  = string(engine.GroupTools)
	groupTraces = string(engine.GroupTraces)
	groupOutput = "Output"
	groupServer = "Server"
)

var groupOrder = []string{groupModel, groupTools, groupLoop, groupOutput, groupServer, groupTraces}

// envPrefix starts the environment variable of a command's own flag, as
// engine.Field.Env does a setting's: TOOLSCOPE_KEEP_RUNS for --keep-runs.
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

// newCommand defines the flags of the commands that run the loop: every
// setting of engine's table, and the sources of tools, starting at
// engine.Defaults.
func newCommand(name, synopsis string, stderr io.Writer, except ...engine.Setting) *command {
	c := newBareCommand(name, synopsis, stderr)
	c.settings = engine.Defaults()
	c.withToolSources()
	for _, f := range engine.Fields() {
		if !slices.Contains(except, f.Name) {
			c.withSetting(string(f.Group), f)
		}
	}
	// Kept so that scripts written for it still run; unlisted, since one
	// timeout now bounds every tool call.
	c.alias("mcp-timeout", engine.SettingToolTimeout)
	// The OpenAI SDK's own variables, read after the flags are defined so
	// that -h shows no key; $TOOLSCOPE_* and the command line win.
	c.settings.OpenAIBaseURL, c.settings.OpenAIAPIKey = os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")
	return c
}

// newToolsCommand is a tools subcommand's: the sources of tools and the
// settings named, in that order, all under Tools; no flags of a model or
// of the loop, since it runs neither.
func newToolsCommand(name, synopsis string, stderr io.Writer, settings ...engine.Setting) *command {
	c := newBareCommand(name, synopsis, stderr)
	c.settings = engine.Defaults()
	c.withToolSources()
	for _, name := range settings {
		f, _ := engine.FieldNamed(name)
		c.withSetting(groupTools, f)
	}
	return c
}

// withToolSources adds the flags that connect MCP servers' tools besides
// --mcp-config, which is a setting: they add to a list, one server each.
func (c *command) withToolSources() {
	s := &c.settings
	c.add(groupTools, "mcp", "command|URL", "an MCP server: a command to start over stdio, or a streamable HTTP URL (repeatable)", mcpValue{&s.MCP, ""})
	c.add(groupTools, "mcp-sse", "URL", "an MCP server's URL on the older HTTP+SSE transport (repeatable)", mcpValue{&s.MCP, mcp.TransportSSE})
	c.add(groupTools, "root", "dir", "a working folder the MCP servers may ask for (roots/list), such as the project a filesystem server should work in (repeatable)", rootsValue{&s.Roots})
}

// withSetting adds the flag of one setting of engine's table, listed under
// group: its name, variable, kind and help are the row's.
func (c *command) withSetting(group string, f engine.Field) {
	c.fs.Var(settingValue{f, &c.settings}, f.Flag(), f.Help)
	c.meta[f.Flag()] = flagMeta{group: group, kind: f.Kind, env: f.Env()}
	c.order = append(c.order, f.Flag())
}

// alias adds an unlisted old name for a setting's flag.
func (c *command) alias(old string, name engine.Setting) {
	f, _ := engine.FieldNamed(name)
	c.fs.Var(settingValue{f, &c.settings}, old, "the old name of --"+f.Flag())
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

// withServer adds serve's flags.
func (c *command) withServer() *command {
	c.addr, c.keepRuns = "127.0.0.1:8000", 100
	c.add(groupOutput, "v", "", "log more, such as MCP servers' stderr", (*boolValue)(&c.verbose))
	c.withEnv(groupServer, "addr", "host:port", "address to listen on", text{&c.addr})
	c.withEnv(groupServer, "keep-runs", "n", "finished runs kept, in memory and in the history, for the Runs panel and /api/runs; the oldest go first", (*intValue)(&c.keepRuns))
	c.withEnv(groupServer, "data-dir", "dir", "where the history of runs is kept, across restarts; unset, the user's data directory ($XDG_DATA_HOME/toolscope or ~/.local/share/toolscope on Linux)", text{&c.dataDir})
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
	return parseArgs(c.fs, args, want, c.stderr)
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
	e, err := engine.Start(ctx, c.settings, c.stderr, append(selfAsMCP(), engine.WithMCPOAuth(c.oauthOptions()))...)
	if err != nil {
		return nil, c.report(err), false
	}
	return e, exitOK, true
}

// startEvery is start for a command that answers once (run, tools list,
// tools search): an MCP server named on the command line that did not
// connect ends it with exitError, since an answer without that server's
// tools would look like one with them. Start has said why each failed.
func (c *command) startEvery(ctx context.Context) (e *engine.Engine, code int, ok bool) {
	e, code, ok = c.start(ctx)
	if !ok {
		return nil, code, false
	}
	var failed []string
	for _, s := range e.MCPServers() {
		if s.State == mcp.StateFailed {
			failed = append(failed, strconv.Quote(s.Name))
		}
	}
	if len(failed) == 0 {
		return e, exitOK, true
	}
	closeMCP(e)
	what := "the MCP server %s did not connect (said above): fix it, or leave it out\n"
	if len(failed) > 1 {
		what = "the MCP servers %s did not connect (said above): fix them, or leave them out\n"
	}
	fmt.Fprintf(c.stderr, "toolscope %s: "+what, c.fs.Name(), strings.Join(failed, ", "))
	return nil, exitError, false
}

// check reports every value the command line gave that cannot be used, as
// *engine.SettingError values: the settings as written (see
// engine.Settings.ValidateAsWritten), and the command's own.
func (c *command) check() error {
	errs := []error{c.settings.ValidateAsWritten()}
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
	bad, other := engine.SettingErrors(err)
	if other != nil {
		fmt.Fprintf(c.stderr, "toolscope: %v\n", err)
		return exitError
	}
	for _, se := range bad {
		fmt.Fprintf(c.stderr, "toolscope %s: --%s %s %s\n", c.fs.Name(), strings.ReplaceAll(string(se.Setting), "_", "-"), se.Value, se.Problem)
	}
	return exitUsage
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

// settingValue is the flag of one setting of engine's table: the row
// reads and writes its field of the settings, as a flag writes it.
type settingValue struct {
	field    engine.Field
	settings *engine.Settings
}

func (v settingValue) String() string {
	if v.settings == nil { // the flag package's zero value, to compare defaults
		return ""
	}
	return v.field.Text(*v.settings)
}
func (v settingValue) Set(s string) error { return v.field.Parse(v.settings, s) }

// IsBoolFlag lets --think stand alone, as --think=false and --think=auto
// do not.
func (v settingValue) IsBoolFlag() bool { return v.field.IsBool() }

// Flag values of the commands' own flags.
type (
	text     struct{ p *string }
	intValue int
	// floatValue is a number such as 2 or 0.5.
	floatValue    float64
	boolValue     bool
	durationValue time.Duration
	mcpValue      struct {
		specs     *[]mcp.ServerSpec
		transport string
	}
	// rootsValue adds a working folder, checked and made absolute.
	rootsValue struct{ dirs *[]string }
	// hostsValue adds host names, several at once when separated by
	// commas, as $TOOLSCOPE_ALLOW_HOST gives them.
	hostsValue struct{ names *[]string }
)

func (v text) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v text) Set(s string) error { *v.p = s; return nil }

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

func (v mcpValue) String() string { return "" }
func (v mcpValue) Set(s string) error {
	spec, err := mcp.ParseFlag(s, v.transport)
	if err != nil {
		return err
	}
	*v.specs = append(*v.specs, spec)
	return nil
}

func (v rootsValue) String() string { return "" }
func (v rootsValue) Set(s string) error {
	dir, err := mcp.Root(s)
	if err != nil {
		return err
	}
	*v.dirs = append(*v.dirs, dir)
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
