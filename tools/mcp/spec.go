package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
)

// Transports a ServerSpec may name.
const (
	TransportStdio = "stdio" // a child process speaking JSON-RPC on stdin and stdout
	TransportHTTP  = "http"  // streamable HTTP, the current MCP transport
	TransportSSE   = "sse"   // the older HTTP+SSE transport
)

// ServerSpec says how to reach one MCP server: a command to start (stdio)
// or a URL to connect to (streamable HTTP or SSE).
type ServerSpec struct {
	// Name identifies the server in logs, errors and tool sources.
	Name string
	// Command and Args start a stdio server. They are not passed to a
	// shell: no variables, pipes or globs.
	Command string
	Args    []string
	// Env holds variables added to toolscope's own environment for a stdio
	// server.
	Env map[string]string
	// URL and Headers reach an HTTP server. Headers are sent with every
	// request, e.g. "Authorization".
	URL     string
	Headers map[string]string
	// Transport is TransportStdio, TransportHTTP or TransportSSE; empty
	// means stdio when Command is set and streamable HTTP when URL is.
	Transport string
	// OAuth tunes how toolscope signs in to a streamable HTTP server that
	// answers 401 (see oauth.go). Nil signs in as the MCP authorization
	// spec has a client do by default: dynamic client registration and
	// the authorization code flow in the user's browser.
	OAuth *OAuthConfig
}

// transport is the spec's transport with the default filled in.
func (s ServerSpec) transport() string {
	switch {
	case s.Transport != "":
		return s.Transport
	case s.URL != "":
		return TransportHTTP
	}
	return TransportStdio
}

// name is the spec's Name, or one derived as ParseFlag would.
func (s ServerSpec) name() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.URL != "":
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
			return u.Host
		}
	case s.Command != "":
		return commandName(append([]string{s.Command}, s.Args...))
	}
	return "server"
}

// RunBy returns s with its command run by program instead, such as the
// full path of a program not on PATH. The server keeps the name its
// command gave it: "calculator" for "toolscope mcp calculator", whatever
// program is called.
func (s ServerSpec) RunBy(program string) ServerSpec {
	s.Name = s.name()
	s.Command = program
	return s
}

// target is what a person would recognise the server by: its command line
// or its URL.
func (s ServerSpec) target() string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// check reports a spec that cannot work, in terms of what to fix.
func (s ServerSpec) check() error {
	switch t := s.transport(); t {
	case TransportStdio:
		if s.Command == "" {
			return errors.New("no command to start; give one, e.g. --mcp \"npx -y @modelcontextprotocol/server-everything\"")
		}
		if s.URL != "" {
			return errors.New("has both a command and a URL; give one of them")
		}
		if s.OAuth != nil { // else it would be dropped without a word
			return s.OAuth.check(t, s.Headers)
		}
	case TransportHTTP, TransportSSE:
		if !isURL(s.URL) {
			return fmt.Errorf("the %s transport needs an http:// or https:// URL such as http://127.0.0.1:8765%s, not %q", t, endpoint[t], s.URL)
		}
		if s.OAuth != nil {
			return s.OAuth.check(t, s.Headers)
		}
	default:
		return fmt.Errorf("unknown transport %q; use stdio, http or sse", t)
	}
	return nil
}

// ParseFlag turns the value of --mcp (transport "") or --mcp-sse
// (transport "sse") into a ServerSpec. A URL connects over streamable HTTP,
// or SSE for --mcp-sse; anything else is a command line, split into words
// the way a shell would split it (quotes and backslashes), though no shell
// ever runs it.
//
// The server is named after what it runs: "calculator" for
// "toolscope mcp calculator", "server-everything" for
// "npx -y @modelcontextprotocol/server-everything", host:port for a URL.
func ParseFlag(value, transport string) (ServerSpec, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return ServerSpec{}, errors.New("empty MCP server; give a command line or a URL")
	}
	if isURL(value) {
		if transport == "" {
			transport = TransportHTTP
		}
		spec := ServerSpec{URL: value, Transport: transport}
		spec.Name = spec.name()
		return spec, spec.check()
	}
	if transport != "" && transport != TransportStdio {
		return ServerSpec{}, ServerSpec{URL: value, Transport: transport}.check()
	}
	if strings.Contains(value, "://") && !strings.ContainsAny(value, " \t") {
		return ServerSpec{}, fmt.Errorf("%q is not an http:// or https:// URL, the only kinds MCP servers are reached by", value)
	}
	words, err := splitCommand(value)
	if err != nil {
		return ServerSpec{}, fmt.Errorf("MCP server command %q: %w", value, err)
	}
	return ServerSpec{Name: commandName(words), Command: words[0], Args: words[1:], Transport: TransportStdio}, nil
}

// endpoint is where each HTTP transport is usually served.
var endpoint = map[string]string{TransportHTTP: "/mcp", TransportSSE: "/sse"}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// splitCommand splits a command line into words as a POSIX shell would,
// honouring single quotes, double quotes and backslashes, and nothing else.
func splitCommand(s string) ([]string, error) {
	var (
		words   []string
		word    strings.Builder
		inWord  bool
		quote   rune // the open quote, or 0
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			// Inside double quotes a backslash only escapes what the
			// shell would otherwise interpret.
			if quote == '"' && !strings.ContainsRune("\"\\$`\n", r) {
				word.WriteRune('\\')
			}
			if r != '\n' { // backslash-newline continues the line
				word.WriteRune(r)
			}
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("unterminated %c quote", quote)
	case escaped:
		return nil, errors.New("ends with a lone backslash")
	}
	if inWord {
		words = append(words, word.String())
	}
	if len(words) == 0 {
		return nil, errors.New("no command")
	}
	return words, nil
}

// launchers run the program named by a later argument; a server started
// through one is named after that argument. Their subcommands are skipped.
var launchers = map[string][]string{
	"npx": nil, "bunx": nil, "uvx": nil, "pipx": {"run"},
	"node": nil, "deno": {"run"}, "bun": {"run", "x"},
	"python": nil, "python3": nil, "uv": {"run", "tool"},
	"npm": {"exec", "x"}, "pnpm": {"dlx", "exec"}, "yarn": {"dlx"},
	"go": {"run"}, "docker": {"run"}, "podman": {"run"},
	"toolscope": {"mcp"},
}

// commandName names a server after the program a command line runs.
func commandName(words []string) string {
	name := words[0]
	if subcommands, ok := launchers[path.Base(name)]; ok {
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !slices.Contains(subcommands, w) {
				name = w
				break
			}
		}
	}
	name = path.Base(name)
	if i := strings.LastIndex(name, "@"); i > 0 { // a version: pkg@1.2.3
		name = name[:i]
	}
	for _, ext := range []string{".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".exe"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// LoadConfig reads the servers of an "mcpServers" file, the format of
// Claude Desktop and most MCP hosts:
//
//	{
//	  "mcpServers": {
//	    "calculator": {"command": "toolscope", "args": ["mcp", "calculator"]},
//	    "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"DEBUG": "1"}},
//	    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer …"}},
//	    "legacy": {"type": "sse", "url": "http://127.0.0.1:8765/sse"}
//	  }
//	}
//
// "type" may be "stdio", "http" (or "streamable-http") or "sse"; without
// it a server with a URL is reached over streamable HTTP. A server marked
// "disabled": true is skipped. VS Code's "servers" key is read too.
// Servers come back in the order the file lists them.
func LoadConfig(path string) ([]ServerSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the MCP config: %w", err)
	}
	specs, err := parseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("MCP config %s: %w", path, err)
	}
	return specs, nil
}

// configServer is one entry of the "mcpServers" object.
type configServer struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
	OAuth    json.RawMessage   `json:"oauth"`
}

func parseConfig(data []byte) ([]ServerSpec, error) {
	var file struct {
		MCPServers json.RawMessage `json:"mcpServers"`
		Servers    json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, jsonProblem(data, err)
	}
	servers := file.MCPServers
	if servers == nil {
		servers = file.Servers
	}
	if servers == nil {
		return nil, errors.New(`no "mcpServers" object; write {"mcpServers": {"name": {"command": "…", "args": […]}}}`)
	}
	entries, err := members(servers)
	if err != nil {
		return nil, fmt.Errorf(`"mcpServers" must be an object mapping names to servers: %w`, err)
	}

	var specs []ServerSpec
	for _, e := range entries {
		name := e.name
		var c configServer
		if err := json.Unmarshal(e.value, &c); err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		if c.Disabled {
			continue
		}
		spec := ServerSpec{Name: name, Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL, Headers: c.Headers}
		if c.OAuth != nil {
			if spec.OAuth, err = parseOAuth(c.OAuth); err != nil {
				return nil, fmt.Errorf("server %q: \"oauth\": %w", name, err)
			}
		}
		switch strings.ToLower(c.Type) {
		case "":
		case "stdio":
			spec.Transport = TransportStdio
		case "http", "streamable-http", "streamablehttp", "streamable_http":
			spec.Transport = TransportHTTP
		case "sse":
			spec.Transport = TransportSSE
		default:
			return nil, fmt.Errorf("server %q: unknown \"type\" %q; use stdio, http or sse", name, c.Type)
		}
		if spec.Command == "" && spec.URL == "" {
			return nil, fmt.Errorf(`server %q has neither "command" nor "url"; give one`, name)
		}
		if err := spec.check(); err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

type member struct {
	name  string
	value json.RawMessage
}

// members returns the members of a JSON object in the order they appear,
// which a map would lose.
func members(obj json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("got %.20s", obj)
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		m := member{name: tok.(string)}
		if err := dec.Decode(&m.value); err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// jsonProblem locates a JSON syntax error by line and column, which is
// how a person finds it in their editor.
func jsonProblem(data []byte, err error) error {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return fmt.Errorf(`the file must be a JSON object with "mcpServers": %w`, err)
	}
	before := data[:syntax.Offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(syntax.Offset) - bytes.LastIndexByte(before, '\n') - 1
	return fmt.Errorf("not valid JSON at line %d, column %d: %w", line, col, err)
}
