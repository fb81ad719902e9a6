package main

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// bridgeProcess is a running `toolscope mcp bridge`.
type bridgeProcess struct {
	cmd    *exec.Cmd
	urls   []string
	stderr bytes.Buffer // read once the process is gone: exec copies into it until then
}

// startBridge starts toolscope mcp bridge with args, env added to the
// environment, and waits for the URLs it prints once it listens.
func startBridge(t *testing.T, env []string, args ...string) *bridgeProcess {
	t.Helper()
	b := &bridgeProcess{cmd: exec.Command(binary, append([]string{"mcp", "bridge"}, args...)...)}
	b.cmd.Env = append(os.Environ(), env...)
	b.cmd.Stderr = &b.stderr
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b.cmd.ProcessState == nil {
			b.cmd.Process.Kill()
			b.cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)
	for len(b.urls) < 2 && lines.Scan() {
		b.urls = append(b.urls, lines.Text())
	}
	if len(b.urls) < 2 {
		b.cmd.Wait()
		t.Fatalf("the bridge printed URLs %q, then stopped:\n%s", b.urls, b.stderr.String())
	}
	return b
}

// stop stops the bridge as Ctrl-C does, and returns what it logged.
func (b *bridgeProcess) stop(t *testing.T) string {
	t.Helper()
	b.cmd.Process.Signal(os.Interrupt)
	if err := b.cmd.Wait(); err != nil {
		t.Errorf("the bridge did not stop cleanly on Ctrl-C: %v\n%s", err, b.stderr.String())
	}
	return b.stderr.String()
}

// toolscope mcp bridge serves toolscope's calculator ("toolscope" being
// this very binary, on PATH or not) over streamable HTTP and SSE: a
// process for each SSE client, one for all 2026-07-28 requests, which is
// what toolscope's client sends over streamable HTTP; and stops them all
// on Ctrl-C.
func TestMCPBridgeServesTheCalculator(t *testing.T) {
	b := startBridge(t, []string{"PATH=" + t.TempDir()}, "--addr", "127.0.0.1:0", "--", "toolscope", "mcp", "calculator")
	if !strings.HasSuffix(b.urls[0], "/mcp") || !strings.HasSuffix(b.urls[1], "/sse") {
		t.Fatalf("URLs = %q, want streamable HTTP's and SSE's", b.urls)
	}
	ctx := context.Background()
	for i, transport := range []string{mcp.TransportHTTP, mcp.TransportSSE} {
		hub, err := mcp.Connect(ctx, []mcp.ServerSpec{{Name: "calculator", URL: b.urls[i], Transport: transport}}, mcp.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { hub.Close() })
		registry, err := tools.NewRegistry(hub.Tools()...)
		if err != nil {
			t.Fatal(err)
		}
		multiply, _ := registry.Lookup("multiply")
		if got, err := multiply.Call(ctx, []byte(`{"a": 15, "b": 27}`)); got != "405" || err != nil {
			t.Errorf("%s: multiply(15, 27) = %q, %v", transport, got, err)
		}
		// The first client leaves, but its process serves every
		// 2026-07-28 client; the second stays until the bridge stops.
		if i == 0 {
			hub.Close()
		}
	}
	log := b.stop(t)
	for _, want := range []string{
		`serving "` + binary + ` mcp calculator" over MCP`,
		`msg="session 1 started" transport=stateless`,
		`msg="session 1 ended: the bridge stopped"`,
		`msg="session 2 started" transport=sse`,
		`msg="session 2 ended: the bridge stopped"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
}

// Reachable from other machines, the bridge wants a token, from
// $TOOLSCOPE_BRIDGE_TOKEN or --token, or --no-auth.
func TestMCPBridgeToken(t *testing.T) {
	b := startBridge(t, []string{bridgeTokenEnv + "=s3cret"}, "--addr", "0.0.0.0:0", "--", "toolscope", "mcp", "calculator")
	listening, err := url.Parse(b.urls[0])
	if err != nil {
		t.Fatal(err)
	}
	mcpURL := "http://127.0.0.1:" + listening.Port() + listening.Path
	for auth, want := range map[string]int{"": http.StatusUnauthorized, "Bearer wrong": http.StatusUnauthorized, "Bearer s3cret": http.StatusBadRequest} {
		req, _ := http.NewRequest("GET", mcpURL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// With the token, the request gets as far as wanting a session.
		if resp.StatusCode != want {
			t.Errorf("GET with Authorization %q: %s, want %d", auth, resp.Status, want)
		}
	}
	if log := b.stop(t); strings.Contains(log, "warning") {
		t.Errorf("a warning, with a token:\n%s", log)
	}

	// --no-auth serves without one, and warns.
	b = startBridge(t, nil, "--addr", "0.0.0.0:0", "--no-auth", "--", "toolscope", "mcp", "calculator")
	if log := b.stop(t); !strings.Contains(log, "WARNING: --no-auth: anyone who can reach 0.0.0.0:0 runs the tools of") {
		t.Errorf("no warning with --no-auth:\n%s", log)
	}
}

// The servers the bridge starts do not inherit its token: their tools
// could hand it out.
func TestMCPBridgeKeepsItsTokenFromTheServers(t *testing.T) {
	envCommand, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env command to print a server's environment")
	}
	// env prints its environment on stdout, which the bridge logs since it
	// is not JSON-RPC.
	b := startBridge(t, []string{bridgeTokenEnv + "=s3cret", "BRIDGE_TEST_MARK=inherited"}, "--addr", "127.0.0.1:0", "--", envCommand)
	spec := mcp.ServerSpec{Name: "env", URL: b.urls[0], Headers: map[string]string{"Authorization": "Bearer s3cret"}}
	if hub, err := mcp.Connect(context.Background(), []mcp.ServerSpec{spec}, mcp.Options{Logger: slog.New(slog.DiscardHandler)}); err == nil {
		hub.Close()
		t.Fatal("env answered initialize")
	}
	log := b.stop(t)
	if !strings.Contains(log, "stdout: BRIDGE_TEST_MARK=inherited") {
		t.Fatalf("the server's environment is not in the log:\n%s", log)
	}
	if strings.Contains(log, "stdout: "+bridgeTokenEnv) {
		t.Errorf("the server inherited %s:\n%s", bridgeTokenEnv, log)
	}
}

// Reachable from other machines without a token, the bridge does not
// start, and says both ways out.
func TestMCPBridgeRefusesToServeOthersWithoutAToken(t *testing.T) {
	r := toolscope(t, "", "mcp", "bridge", "--addr", "0.0.0.0:0", "--", "toolscope", "mcp", "calculator")
	want := "0.0.0.0:0 can be reached from other machines, where anyone who reaches it would run the tools of " +
		`"` + binary + ` mcp calculator"; give a token with --token or $TOOLSCOPE_BRIDGE_TOKEN (clients then send Authorization: Bearer TOKEN), or --no-auth on a network you trust`
	if r.code != exitUsage || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", r.code, r.stdout, r.stderr, exitUsage, want)
	}
}

func TestMCPBridgeUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "bridge"}, "toolscope mcp bridge needs the command of a stdio MCP server, e.g. toolscope mcp bridge -- npx"},
		{[]string{"mcp", "bridge", "--tokn", "x", "--", "toolscope", "mcp", "calculator"}, "toolscope mcp bridge: unknown flag --tokn; did you mean --token?"},
		{[]string{"mcp", "bridge", "--transport", "pigeon", "--", "toolscope", "mcp", "calculator"}, `toolscope mcp bridge: unknown transport "pigeon"; use http or sse`},
		{[]string{"mcp", "bridge", "--max-sessions", "0", "--", "toolscope", "mcp", "calculator"}, "toolscope mcp bridge: --max-sessions must be 1 or more"},
		{[]string{"mcp", "bridge", "--token", "s3cret", "--no-auth", "--", "toolscope", "mcp", "calculator"}, "toolscope mcp bridge: a token ($TOOLSCOPE_BRIDGE_TOKEN or --token) and --no-auth contradict each other: give one"},
		// told at once, not when the first client comes
		{[]string{"mcp", "bridge", "--", "no-such-mcp-server", "--flag"}, `toolscope mcp bridge: cannot run "no-such-mcp-server": executable file not found in $PATH; install it, or give its full path`},
	} {
		r := toolscope(t, "", c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, r.code, r.stdout, r.stderr, exitUsage, c.want)
		}
	}
}
