package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
	"github.com/toolscope/toolscope/telemetry"
)

func serveCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("serve", "[flags]", stderr).withServer()
	maxLive := runs.DefaultMaxLive
	c.withEnv(groupServer, "max-live-runs", "n", "runs in progress at once; more are refused (HTTP 429) until one ends", (*intValue)(&maxLive))
	v1BodyLimit := sizeValue(server.DefaultV1BodyLimit)
	c.withEnv(groupServer, "v1-body-limit", "size", "the largest /v1/chat/completions request, such as 8MiB or 512KiB: an agent sends its system prompt, tools and whole history each time", &v1BodyLimit)
	var apiStubs bool
	c.add(groupServer, "api-stubs", "", "offer the stub tools (send_mail, …) to /v1/chat/completions requests without tools; MCP tools are offered either way", (*boolValue)(&apiStubs))
	var shareAPIRuns bool
	c.add(groupServer, "share-api-runs", "", "let the viewer link see the runs of /v1 and /api/query too, not only the page's (they carry apps' system prompts)", (*boolValue)(&shareAPIRuns))
	// No environment variable: a question on stdin is for a person at a
	// terminal, which ./start.sh checks for.
	var offer bool
	c.add(groupServer, "offer-pull", "", "when Ollama answers without the model, ask on stdin whether to pull it before serving (./start.sh does, in a terminal)", (*boolValue)(&offer))
	if _, code, ok := c.parse(args, operands{}); !ok {
		return code
	}
	if maxLive < 1 {
		return c.report(&engine.SettingError{Setting: "max_live_runs", Value: strconv.Itoa(maxLive), Problem: "must be 1 or more"})
	}
	if c.pauseTimeout <= 0 {
		return c.report(&engine.SettingError{Setting: "pause_timeout", Value: c.pauseTimeout.String(), Problem: "must be more than 0"})
	}
	if v1BodyLimit < minV1BodyLimit {
		return c.report(&engine.SettingError{Setting: "v1_body_limit", Value: v1BodyLimit.String(), Problem: "must be " + minV1BodyLimit.String() + " or more"})
	}
	if c.auth && c.noAuth {
		fmt.Fprintln(stderr, "toolscope serve: --auth and --no-auth contradict each other: give one")
		return exitUsage
	}
	if offer {
		if code, ok := offerPull(ctx, c.settings, stdin, stderr); !ok {
			return code
		}
	}
	e, code, ok := c.start(ctx)
	if !ok {
		return code
	}
	defer closeMCP(e)
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: cannot listen on %s: %v (is toolscope already running? pick another --addr)\n", c.addr, err)
		return exitError
	}
	access := c.access(ln.Addr())
	hub := runs.NewHub(c.keepRuns, runs.Limits{MaxLive: maxLive, PauseTimeout: c.pauseTimeout})
	gauges := telemetry.Gauges{LiveRuns: hub.Live, Viewers: hub.Viewers}
	if history := c.openHistory(hub, stderr); history != nil {
		defer closeHistory(history) // after srv.Shutdown has ended the runs
		gauges.HistoryLag = history.Lag
	}
	metrics := telemetry.NewMetrics(gauges)
	hub.Observe(metrics)
	stopTraces, code, ok := c.traceRuns(ctx, hub, stdout)
	if !ok {
		return code
	}
	defer stopTraces() // after srv.Shutdown has ended the runs
	srv := server.New(server.Config{Hub: hub, Engine: e, Access: access, APIStubs: apiStubs, V1BodyLimit: int(v1BodyLimit), ShareAPIRuns: shareAPIRuns,
		EvalOptions: selfAsMCP(), Metrics: metrics.Handler()})
	info := e.Backend().Info()
	fmt.Fprintf(stdout, "toolscope is serving http://%s (model %s on %s)\n", ln.Addr(), info.Model, info.Backend)
	printAccess(stdout, stderr, ln.Addr(), access)
	if h := hub.History(); h.On {
		fmt.Fprintf(stdout, "Runs are kept in %s (--no-history: in memory only)\n", h.Path)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
		return exitError
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		slog.Warn("shutdown", "error", err)
	}
	return exitOK
}

// openHistory opens the history of runs for hub, unless --no-history. A
// database it cannot use is left as it is, and the runs are kept in
// memory only: the warning, and hub.History, say why and what to do.
func (c *command) openHistory(hub *runs.Hub, stderr io.Writer) *store.Store {
	if c.noHistory {
		hub.SetNoArchive("--no-history: runs are kept in memory only")
		return nil
	}
	dir, err := c.dataDir, error(nil)
	if dir == "" {
		dir, err = store.DefaultDir()
	}
	var history *store.Store
	if err == nil {
		history, err = store.Open(dir, store.Options{KeepRuns: max(c.keepRuns, 1)})
	}
	if err != nil {
		reason := err.Error() + ": runs are kept in memory only" + historyFix(err)
		fmt.Fprintf(stderr, "toolscope: WARNING: %s\n", reason)
		hub.SetNoArchive(reason)
		return nil
	}
	hub.SetArchive(history)
	return history
}

// historyFix says what to do about a history database that cannot be used.
func historyFix(err error) string {
	var e *store.Error
	if !errors.As(err, &e) {
		return " (give --data-dir, or --no-history)"
	}
	switch e.Problem {
	case store.Locked:
		return " (stop the other toolscope, or give this one another --data-dir, or --no-history)"
	case store.Corrupt:
		return " (it was left as it is: move it away to start a new history)"
	case store.Full:
		return " (free some space, or give another --data-dir)"
	case store.Newer:
		return " (use the newer toolscope, or give another --data-dir)"
	}
	return " (give another --data-dir, or --no-history)"
}

func closeHistory(history *store.Store) {
	if err := history.Close(); err != nil {
		slog.Warn("closing the history", "error", err)
	}
}

// closeMCP stops the engine's MCP servers, waiting until their processes
// are gone.
func closeMCP(e *engine.Engine) {
	if err := e.Close(); err != nil {
		slog.Warn("closing MCP servers", "error", err)
	}
}

// printAccess says how to open a server that asks for tokens: the
// operator's link and the viewer links to share. One that others can
// reach without a token gets a warning.
func printAccess(stdout, stderr io.Writer, addr net.Addr, a server.Access) {
	local := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		local = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	hosts, operator := a.ShareHosts, local
	switch {
	case len(hosts) == 0: // loopback with --auth, or no network
		hosts = []string{local}
	case server.Exposed(addr):
		operator = hosts[0]
	}
	switch {
	case a.Tokens.Operator != "":
		fmt.Fprintln(stdout, "Every request needs a token; they are new at each start.")
		fmt.Fprintf(stdout, "  Yours, to start and stop runs (keep it to yourself):\n    http://%s/?token=%s\n", operator, a.Tokens.Operator)
		fmt.Fprintln(stdout, "  The class's, to watch only (your page shows it with a QR code):")
		for _, h := range hosts {
			fmt.Fprintf(stdout, "    http://%s/?token=%s\n", h, a.Tokens.Viewer)
		}
	case server.Exposed(addr):
		fmt.Fprintf(stderr, "toolscope: WARNING: --no-auth: anyone who can reach %s can start runs, call every tool (MCP servers included) and read the MCP servers' command lines and logs. Use it only on a network you trust.\n", addr)
		for _, h := range hosts {
			fmt.Fprintf(stdout, "  open http://%s/\n", h)
		}
	}
}

// minV1BodyLimit is the smallest --v1-body-limit: the other endpoints'
// limit, below which even a short agent request is refused.
const minV1BodyLimit = sizeValue(server.DefaultBodyLimit)

// sizeValue is a number of bytes, given as bytes or with a unit: 8MiB,
// 512KiB, 1GiB.
type sizeValue int

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}, {"", 0}}

func (v sizeValue) String() string {
	for _, u := range sizeUnits {
		if n := int(v); n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.Itoa(n>>u.shift) + u.suffix
		}
	}
	return strconv.Itoa(int(v))
}

func (v *sizeValue) Set(s string) error {
	s = strings.TrimSpace(s)
	for _, u := range sizeUnits {
		digits, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(digits))
		if err != nil || n < 0 || n > math.MaxInt32>>u.shift {
			break
		}
		*v = sizeValue(n << u.shift)
		return nil
	}
	return errors.New("not a size: give bytes, or a whole number of KiB, MiB or GiB, such as 8MiB")
}
