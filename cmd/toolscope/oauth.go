package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/toolscope/toolscope/store"
	"github.com/toolscope/toolscope/tools/mcp"
)

// dataDirEnv names the data directory for the commands without
// --data-dir (run, chat, tools), as it does serve's.
const dataDirEnv = envPrefix + "DATA_DIR"

// oauthOptions say where MCP servers' sign-ins are kept (the data
// directory's mcp-oauth/) and how the user signs in: from the page for
// serve, else in a terminal, with a link to open.
func (c *command) oauthOptions() mcp.OAuthOptions {
	o := mcp.OAuthOptions{DataDir: dataDir(c.dataDir)}
	if c.fs.Name() != "serve" {
		o.Open = func(server, authURL string) { authorizeInBrowser(c.stderr, server, authURL) }
	}
	return o
}

// dataDir is dir, else $TOOLSCOPE_DATA_DIR, else the user's data
// directory; "" when there is none, and sign-ins then last one start.
func dataDir(dir string) string {
	if dir == "" {
		dir = os.Getenv(dataDirEnv)
	}
	if dir == "" {
		dir, _ = store.DefaultDir()
	}
	return dir
}

// authorizeInBrowser shows the authorization link of a server's sign-in
// and opens it: with $BROWSER when set (a command; "%s" in it stands for
// the link, else the link comes last), which is how a script signs in
// with no person, else with xdg-open or open where there is one. No
// browser is no failure: the link is on the terminal.
//
// The link comes from the authorization server's metadata, which the MCP
// server names, so a hostile server chooses it: only an https link, or
// an http one to this machine, is opened; any other is shown, with a
// warning, for the user to judge.
func authorizeInBrowser(stderr io.Writer, server, authURL string) {
	fmt.Fprintf(stderr, "Open this link to authorize %s: %s\n", server, authURL)
	if err := openable(authURL); err != nil {
		fmt.Fprintf(stderr, "(toolscope does not open this link itself: %v; open it yourself only if you trust it)\n", err)
		return
	}
	var argv []string
	if b := strings.TrimSpace(os.Getenv("BROWSER")); b != "" {
		argv = strings.Fields(b)
		found := false
		for i, w := range argv {
			if strings.Contains(w, "%s") {
				argv[i], found = strings.ReplaceAll(w, "%s", authURL), true
			}
		}
		if !found {
			argv = append(argv, authURL)
		}
	} else {
		opener := map[string]string{"darwin": "open"}[runtime.GOOS]
		if opener == "" {
			opener = "xdg-open"
		}
		if _, err := exec.LookPath(opener); err != nil {
			return
		}
		argv = []string{opener, authURL}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "(could not open a browser: %v; open the link yourself)\n", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}

// openable reports why an authorization link is not one to hand to a
// browser: anything but https, or http to a loopback host (a local
// authorization server).
func openable(authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("it is not a URL (%v)", err)
	}
	host := u.Hostname()
	switch {
	case u.Scheme == "https" && host != "":
		return nil
	case u.Scheme == "http" && (host == "localhost" || net.ParseIP(host).IsLoopback()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("it is plain http to %q, not https", host)
	}
	return fmt.Errorf("it is not an https link (scheme %q)", u.Scheme)
}

// logoutCommand forgets the sign-in kept for an MCP server: toolscope mcp
// logout NAME.
func logoutCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp logout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data-dir", "", "the data directory the sign-in is kept in (default $"+dataDirEnv+", else the user's data directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolscope mcp logout [--data-dir DIR] NAME")
		fs.PrintDefaults()
	}
	positional, code, ok := parseArgs(fs, args, operands{"a server", "the MCP server's name, as toolscope shows it, e.g. toolscope mcp logout linear"}, stderr)
	if !ok {
		return code
	}
	name, d := positional[0], dataDir(*dir)
	if d == "" {
		fmt.Fprintln(stderr, "toolscope mcp logout: no data directory; give --data-dir")
		return exitUsage
	}
	found, err := mcp.Forget(d, name)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "toolscope mcp logout: %v\n", err)
		return exitError
	case !found:
		fmt.Fprintf(stderr, "toolscope mcp logout: no sign-in is kept for %q in %s\n", name, d)
		return exitError
	}
	fmt.Fprintf(stdout, "Forgot the sign-in of %q: the next connection signs in anew.\n", name)
	return exitOK
}
