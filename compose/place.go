package compose

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/tools/mcp"
)

// runtime is an image that can run a kind of command, with the bridge
// copied into it.
type runtime struct {
	image string // the base image; "" for toolscope's own
	// cache is a named volume for the runtime's downloads (npx's and
	// uvx's packages), mounted at cacheAt, so that a second start does not
	// download the server again.
	cache, cacheAt string
	// hostCode is set for programs that run code a path names (node
	// server.js, python -m pkg) rather than a package they download: the
	// image has the program, not what the host installed for it.
	hostCode bool
}

func (r runtime) runningHostCode() runtime {
	r.hostCode = true
	return r
}

var (
	nodeRuntime = runtime{image: "node:22-slim", cache: "npm-cache", cacheAt: "/root/.npm"}
	uvRuntime   = runtime{image: "ghcr.io/astral-sh/uv:python3.12-bookworm-slim", cache: "uv-cache", cacheAt: "/root/.cache/uv"}
)

// runtimes maps the programs a server's command may run to their images.
var runtimes = map[string]runtime{
	"npx": nodeRuntime, "npm": nodeRuntime, "node": nodeRuntime.runningHostCode(),
	"uvx": uvRuntime, "uv": uvRuntime, "python": uvRuntime.runningHostCode(), "python3": uvRuntime.runningHostCode(),
	"toolscope": {},
}

// displayNeeds are words of a command line that mark a server needing
// what a container lacks: a display, a browser, the host's desktop.
var displayNeeds = []struct{ word, reason string }{
	{"puppeteer", "drives a web browser, which needs a display and a browser that the node image lacks"},
	{"playwright", "drives a web browser, which needs a display and a browser that the node image lacks"},
	{"browsermcp", "controls the web browser on the host"},
	{"chrome-devtools-mcp", "controls the web browser on the host"},
	{"applescript", "scripts the host's macOS applications"},
	{"osascript", "scripts the host's macOS applications"},
	{"imessage", "reads the host's macOS Messages"},
}

// placed is one server of the configuration, decided: where it runs and,
// in a container, how.
type placed struct {
	Server
	spec    mcp.ServerSpec
	runtime runtime
	command []string // the command line the bridge starts, as the file writes it
	program string   // the program it runs, as the image names it
	skipped int      // the arguments unwrapShell took away: Windows' cmd /c
	mounts  []string // host paths mounted read-only at the same place
	native  bool     // a toolscope server that speaks HTTP itself, no bridge needed
	url     string   // where toolscope reaches it, as the file writes it
	sse     bool     // reached over the older HTTP+SSE transport
	onHost  bool     // a remote server on the host's loopback, reached through hostGateway
	// refs name the variables of the values the file references but does
	// not hold, by their key: env values for a container, headers for a
	// remote server.
	refs map[string]string
	// argVariables are the variables its arguments reference.
	argVariables []Variable
	// secrets are the parts of its arguments or URL the file references
	// rather than holds.
	secrets []secret
}

// place decides where one server runs.
func place(spec mcp.ServerSpec) placed {
	p := placed{Server: Server{Name: spec.Name}, spec: spec}
	if spec.URL == "" {
		p.secrets = argumentSecrets(spec.Args)
	}
	if spec.URL != "" {
		p.placeRemote()
	} else if reason := p.placeCommand(); reason != "" {
		p.Placement, p.Reason = Refused, reason
	}
	return p
}

// placeRemote hands a URL to toolscope as it is, but for its secrets and
// the loopback address, which from toolscope's container is the container
// itself: the host is host.docker.internal there.
func (p *placed) placeRemote() {
	p.Placement = Remote
	p.refs = map[string]string{}
	for header := range p.spec.Headers {
		p.refs[header] = "" // named once every server is placed
	}
	p.sse = p.spec.Transport == mcp.TransportSSE
	p.secrets = urlSecrets(p.spec.URL, -1, "its URL")
	u, err := url.Parse(p.spec.URL)
	if err == nil && meansTheHost(u.Hostname()) {
		p.Notes = append(p.Notes, fmt.Sprintf("%s is the host itself, which toolscope's container reaches as %s", u.Host, hostGateway))
		p.onHost = true
	}
}

// reference writes the server's command line or URL, and its Target, once
// its secrets' variables are named: each secret a reference to its
// variable, or "…" in a refused server's Target, which has none.
func (p *placed) reference() {
	if p.Placement == Remote {
		p.Target = referenced(p.spec.URL, -1, p.secrets, unchanged)
		p.url = referenced(p.spec.URL, -1, p.secrets, escape)
		if p.onHost {
			p.url = onHostGateway(p.url)
		}
		return
	}
	words := []string{p.spec.Command}
	for i, arg := range p.spec.Args {
		words = append(words, referenced(arg, i, p.secrets, unchanged))
	}
	p.Target = strings.Join(words, " ")
	if p.Placement == InContainer {
		p.command = []string{p.program}
		for i, arg := range p.spec.Args[p.skipped:] {
			p.command = append(p.command, referenced(arg, p.skipped+i, p.secrets, editorReferences))
		}
	}
}

func unchanged(s string) string { return s }

// onHostGateway is u with its host, the loopback, replaced by hostGateway.
func onHostGateway(u string) string {
	start, end, _ := authority(u)
	if at := strings.LastIndex(u[start:end], "@"); at >= 0 {
		start += at + 1
	}
	host := hostGateway
	if _, port, err := net.SplitHostPort(u[start:end]); err == nil && port != "" {
		host = net.JoinHostPort(hostGateway, port)
	}
	return u[:start] + host + u[end:]
}

// hostGateway is the name Docker gives the host inside a container that
// maps it (extra_hosts: host.docker.internal:host-gateway).
const hostGateway = "host.docker.internal"

// meansTheHost says whether a URL's host name is, to a client on the host,
// the host itself: localhost, a loopback address, or the unspecified
// address (0.0.0.0, ::), which a connection takes for the local host. Not
// mcpbridge.Loopback's question (does a listening address keep others
// out?), to which 0.0.0.0 answers the opposite.
func meansTheHost(hostname string) bool {
	ip := net.ParseIP(hostname)
	return strings.EqualFold(hostname, "localhost") || ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// placeCommand picks the image for a stdio server and writes the command
// the bridge starts, or says why no container can run it.
func (p *placed) placeCommand() (refusal string) {
	command, args := unwrapShell(p.spec.Command, p.spec.Args)
	program := programName(command)
	if program == "docker" || program == "podman" {
		return fmt.Sprintf("runs %s, which needs the host's container engine: giving a container its socket gives it the host", program)
	}
	for _, w := range append([]string{command}, args...) {
		for _, need := range displayNeeds {
			if strings.Contains(strings.ToLower(w), need.word) {
				return fmt.Sprintf("%s (%s)", need.reason, w)
			}
		}
	}
	rt, known := runtimes[program]
	switch {
	case !known && isPath(command):
		return fmt.Sprintf("runs %s, a program on the host, which no image here holds", command)
	case !known:
		return fmt.Sprintf("runs %s, for which toolscope compose knows no image (it knows %s)", command, strings.Join(slices.Sorted(maps.Keys(runtimes)), ", "))
	case command != program:
		p.Notes = append(p.Notes, fmt.Sprintf("runs the image's %s, not %s", program, command))
	}
	mounts, refusal := hostPaths(args)
	if refusal != "" {
		return refusal
	}
	if refusal := p.editorVariables(args); refusal != "" {
		return refusal
	}
	p.Placement, p.runtime, p.mounts = InContainer, rt, mounts
	p.program, p.skipped = program, len(p.spec.Args)-len(args)
	p.native = program == "toolscope" && len(args) == 2 && args[0] == "mcp" && !strings.HasPrefix(args[1], "-")
	p.refs = map[string]string{}
	for key := range p.spec.Env {
		p.refs[key] = "" // named once every server is placed
	}
	for _, m := range mounts {
		p.Notes = append(p.Notes, fmt.Sprintf("mounts %s read-only at the same path: the server cannot write there", m))
	}
	if rt.hostCode {
		p.Notes = append(p.Notes, fmt.Sprintf("%s runs code from the host: the image has %s, not what the host installed for it", program, program))
	}
	return ""
}

// unwrapShell takes Windows' `cmd /c npx …` for the npx it runs.
func unwrapShell(command string, args []string) (string, []string) {
	if programName(command) == "cmd" && len(args) > 1 && strings.EqualFold(args[0], "/c") {
		return args[1], args[2:]
	}
	return command, args
}

// programName is the program a command runs, without its directory or a
// Windows extension: "npx" for "/opt/homebrew/bin/npx" and "npx.cmd".
func programName(command string) string {
	name := strings.ToLower(path.Base(strings.ReplaceAll(command, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

var windowsPath = regexp.MustCompile(`^(?:[A-Za-z]:[\\/]|\\\\)`)

func isPath(s string) bool {
	return strings.ContainsAny(s, `/\`) || windowsPath.MatchString(s)
}

// hostPaths finds the arguments that name files on the host, alone or
// as a flag's value (--root=/srv/data): absolute paths are mounted;
// others cannot mean the same in a container.
func hostPaths(args []string) (mounts []string, refusal string) {
	seen := map[string]bool{}
	for _, arg := range args {
		value := arg
		if flag, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(flag, "-") {
			value = v
		}
		switch {
		case windowsPath.MatchString(value):
			return nil, fmt.Sprintf("names %s, a Windows path, which a Linux container cannot mount at the same place", value)
		case strings.HasPrefix(value, "~"):
			return nil, fmt.Sprintf("names %s, in a home directory on the host; write it as an absolute path to have it mounted read-only", value)
		case strings.HasPrefix(value, "./") || strings.HasPrefix(value, "../"):
			return nil, fmt.Sprintf("names %s, relative to wherever the MCP host starts the server; write it as an absolute path to have it mounted read-only", value)
		case slices.Contains(imageDirs, path.Clean(value)):
			return nil, fmt.Sprintf("names %s, which mounted at the same place would hide the image's own; give a directory below it", value)
		case strings.HasPrefix(value, "/") && !seen[path.Clean(value)]:
			seen[path.Clean(value)] = true
			mounts = append(mounts, path.Clean(value))
		}
	}
	return mounts, ""
}

// imageDirs are the directories a runtime's image needs for itself.
var imageDirs = []string{"/", "/bin", "/sbin", "/lib", "/lib64", "/usr", "/etc", "/root", "/var", "/tmp", "/proc", "/sys", "/dev", "/run"}

// editorVariable matches VS Code's ${…} in a server's arguments.
var editorVariable = regexp.MustCompile(`\$\{([^}]*)\}`)

// editorVariables keeps in p.argVariables VS Code's ${input:id} and
// ${env:NAME} of args, which the file references as ${ID} and ${NAME};
// VS Code's other variables (${workspaceFolder}, ${userHome}) are places
// on the host, which refuses the server.
func (p *placed) editorVariables(args []string) (refusal string) {
	for _, arg := range args {
		for _, m := range editorVariable.FindAllStringSubmatch(arg, -1) {
			kind, id, _ := strings.Cut(m[1], ":")
			if kind != "input" && kind != "env" {
				return fmt.Sprintf("uses VS Code's ${%s}, a place on the host", m[1])
			}
			p.argVariables = append(p.argVariables, Variable{Name: variableName(id), Server: p.Name, For: "${" + m[1] + "} in its arguments"})
		}
	}
	return ""
}

// editorReferences writes text of an argument for the file: VS Code's
// ${input:id} and ${env:NAME} become Compose's ${ID} and ${NAME}, and any
// other $ is escaped.
func editorReferences(text string) string {
	var b strings.Builder
	last := 0
	for _, m := range editorVariable.FindAllStringSubmatchIndex(text, -1) {
		b.WriteString(escape(text[last:m[0]]))
		_, id, _ := strings.Cut(text[m[2]:m[3]], ":")
		b.WriteString("${" + variableName(id) + "}")
		last = m[1]
	}
	b.WriteString(escape(text[last:]))
	return b.String()
}

// escape keeps a literal $ from Compose's interpolation; unescape is
// the value as Compose reads it, for a comment.
func escape(s string) string   { return strings.ReplaceAll(s, "$", "$$") }
func unescape(s string) string { return strings.ReplaceAll(s, "$$", "$") }

// variableName makes s a name for the shell and Compose: GITHUB_TOKEN for
// github-token.
func variableName(s string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, s)
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	return name
}

// serviceName makes a server's name a compose service's: lower case
// letters, digits and dashes.
func serviceName(s string) string {
	name := strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, s), "-")
	if name == "" {
		return "mcp"
	}
	return name
}
