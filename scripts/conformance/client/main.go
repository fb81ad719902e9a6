// Command client is the MCP client the conformance suite tests: it runs
// `toolscope run` against the suite's server for one scenario, with a
// scripted model in place of a real one.
//
// The suite (`conformance client --command client`) starts a server for a
// scenario, then runs this command with the server's URL as its last
// argument, the scenario's name in MCP_CONFORMANCE_SCENARIO and, for some
// scenarios, data such as client credentials in MCP_CONFORMANCE_CONTEXT.
// It checks the MCP traffic it sees: that the handshake is right, that a
// given tool is called with given arguments, that OAuth goes as the spec
// says. So this command does what a user would: it connects toolscope to
// the server as an MCP config entry, and asks a model, which here is a
// script (model.go) that makes the calls the scenario expects, through
// toolscope's own parser and MCP client. Nothing here speaks MCP.
//
// Where a scenario needs a person (OAuth's authorization in a browser),
// BROWSER is set to browser.sh beside this package's source, which
// follows the authorization URL to toolscope's loopback callback as a
// browser would once the user approved. Where a scenario needs an answer
// to an elicitation, toolscope's --elicit defaults accepts the form with
// its schema's defaults. Sign-ins are kept in the scenario's own data
// directory, never the user's.
//
// Environment: TOOLSCOPE, the toolscope binary (default: toolscope on
// PATH); CONFORMANCE_BROWSER, the browser script (default: none, and the
// OAuth scenarios cannot authorize).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER-URL (run by the MCP conformance suite, which sets MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if scenario == "" {
		fmt.Fprintln(os.Stderr, "client: MCP_CONFORMANCE_SCENARIO is not set; the conformance suite sets it")
		os.Exit(2)
	}
	sc, err := readContext(os.Getenv("MCP_CONFORMANCE_CONTEXT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(2)
	}
	// The suite stops a client that overruns its timeout with SIGTERM;
	// toolscope then gets it too, and stops its MCP connections cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	code, err := run(ctx, os.Args[1], scenario, sc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
	}
	os.Exit(code)
}

// scenarioContext is what MCP_CONFORMANCE_CONTEXT carries for the
// scenarios that need it.
type scenarioContext struct {
	ClientID     string     `json:"client_id"`
	ClientSecret string     `json:"client_secret"`
	ToolCalls    []toolCall `json:"toolCalls"`
}

func readContext(s string) (scenarioContext, error) {
	var sc scenarioContext
	if s == "" {
		return sc, nil
	}
	if err := json.Unmarshal([]byte(s), &sc); err != nil {
		return sc, fmt.Errorf("MCP_CONFORMANCE_CONTEXT is not the JSON object the suite sends: %v", err)
	}
	return sc, nil
}

// run serves the scripted model, writes the MCP config, and runs
// toolscope; it returns toolscope's exit code.
func run(ctx context.Context, serverURL, scenario string, sc scenarioContext) (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1, err
	}
	srv := &http.Server{Handler: newModel(scenario, sc), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	dir, err := os.MkdirTemp("", "toolscope-conformance-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(dir)
	config := filepath.Join(dir, "mcp.json")
	if err := writeConfig(config, serverURL, scenario, sc); err != nil {
		return 1, err
	}

	toolscope := os.Getenv("TOOLSCOPE")
	if toolscope == "" {
		toolscope = "toolscope"
	}
	args := []string{"run",
		"--backend", "openai", "--mode", "chat",
		"--openai-base-url", "http://" + ln.Addr().String() + "/v1",
		"--mcp-config", config,
		// Every tool is offered, none picked by retrieval, and
		// toolscope's stub tools answer at once.
		"--tools-top-k", "0", "--tool-delay", "0",
		// The script calls in its first reply and answers in its
		// second; a third would be a bug in it.
		"--max-rounds", "3",
		"--elicit", "defaults",
		"Do what the MCP conformance scenario " + scenario + " asks.",
	}
	cmd := exec.CommandContext(ctx, toolscope, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "TOOLSCOPE_DATA_DIR="+filepath.Join(dir, "data"))
	if browser := os.Getenv("CONFORMANCE_BROWSER"); browser != "" {
		cmd.Env = append(cmd.Env, "BROWSER="+browser)
	}
	// toolscope gets SIGTERM, as from a terminal, rather than SIGKILL,
	// and time to close its connections.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, fmt.Errorf("cannot run %s: %v", toolscope, err)
	}
	return 0, nil
}

// writeConfig writes the MCP config file that connects toolscope to the
// scenario's server, as a user would: a URL, and for the OAuth scenarios
// the client's registration. The metadata document URL is the one the
// suite's authorization server accepts for its client ID metadata
// document scenarios; a client it was given (pre-registration, client
// credentials) is used as given.
func writeConfig(path, serverURL, scenario string, sc scenarioContext) error {
	entry := map[string]any{"url": serverURL}
	if strings.HasPrefix(scenario, "auth/") {
		oauth := map[string]any{"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}
		if sc.ClientID != "" {
			oauth["clientId"] = sc.ClientID
		}
		if sc.ClientSecret != "" {
			oauth["clientSecret"] = sc.ClientSecret
		}
		if strings.HasPrefix(scenario, "auth/client-credentials-") {
			// A machine's grant: no person signs in, so no metadata
			// document names a client that signs people in.
			oauth["grant"] = "client_credentials"
			delete(oauth, "clientMetadataUrl")
		}
		entry["oauth"] = oauth
	}
	b, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"conformance": entry}}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
