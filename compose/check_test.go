package compose

// The checks a compose file must pass: the Compose Specification's JSON
// Schema, and what a schema cannot say, for each set of profiles the file
// is started with. They read the file as Docker Compose does, anchors and
// merge keys resolved, and know nothing of how it was written.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/toolscope/toolscope/tools/mcp"
)

// project is a compose file as the checks read it.
type project struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
	Configs  map[string]struct {
		Content string `yaml:"content"`
	} `yaml:"configs"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       map[string]any    `yaml:"build"`
	Profiles    []string          `yaml:"profiles"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []any             `yaml:"volumes"`
	Configs     []struct {
		Source string `yaml:"source"`
		Target string `yaml:"target"`
	} `yaml:"configs"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
		Required  *bool  `yaml:"required"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Disable bool     `yaml:"disable"`
		Test    []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Networks map[string]struct {
		Aliases []string `yaml:"aliases"`
	} `yaml:"networks"`
	Restart string `yaml:"restart"`
}

func readProject(t *testing.T, data []byte) project {
	t.Helper()
	var p project
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatalf("not a compose file the checks can read: %v", err)
	}
	return p
}

// schemaProblems validates data against the Compose Specification's JSON
// Schema (testdata/compose-spec.json), as it is before interpolation.
func schemaProblems(t *testing.T, data []byte) error {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	asJSON, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(asJSON))
	if err != nil {
		return err
	}
	schema, err := composeSchema()
	if err != nil {
		t.Fatalf("testdata/compose-spec.json: %v", err)
	}
	return schema.Validate(value)
}

var composeSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	source, err := os.Open(filepath.Join("testdata", "compose-spec.json"))
	if err != nil {
		return nil, err
	}
	defer source.Close()
	doc, err := jsonschema.UnmarshalJSON(source)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("compose-spec.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("compose-spec.json")
})

// active lists the services a start with profiles runs: those without
// profiles, and those with one of them.
func (p project) active(profiles []string) map[string]composeService {
	active := map[string]composeService{}
	for name, s := range p.Services {
		if len(s.Profiles) == 0 || slices.ContainsFunc(s.Profiles, func(pr string) bool { return slices.Contains(profiles, pr) }) {
			active[name] = s
		}
	}
	return active
}

// profiles lists every profile a service names.
func (p project) profiles() []string {
	var all []string
	for _, s := range p.Services {
		for _, pr := range s.Profiles {
			if !slices.Contains(all, pr) {
				all = append(all, pr)
			}
		}
	}
	slices.Sort(all)
	return all
}

// problems lists what would go wrong when the file is started with
// profiles: a dependency on a service that is not started or cannot meet
// its condition, a volume or config not declared, two services on one
// port, and a toolscope that has no model server to reach or an MCP
// server whose URL names no service serving it.
func (p project) problems(profiles []string) []string {
	active := p.active(profiles)
	var problems []string
	servers := 0
	for _, name := range slices.Sorted(maps.Keys(active)) {
		s := active[name]
		problems = append(problems, p.dependencyProblems(name, s, active)...)
		problems = append(problems, p.volumeProblems(name, s)...)
		if args := toolscopeArgs(s); len(args) > 0 && args[0] == "serve" {
			servers++
			if problem := backendProblem(name, s, args, active); problem != "" {
				problems = append(problems, problem)
			}
			problems = append(problems, p.mcpProblems(name, s, args, active)...)
		}
	}
	if servers != 1 {
		problems = append(problems, fmt.Sprintf("%d services run toolscope serve, not 1", servers))
	}
	return append(problems, portClashes(active)...)
}

func (p project) dependencyProblems(name string, s composeService, active map[string]composeService) []string {
	var problems []string
	for _, dep := range slices.Sorted(maps.Keys(s.DependsOn)) {
		d := s.DependsOn[dep]
		target, defined := p.Services[dep]
		_, started := active[dep]
		required := d.Required == nil || *d.Required
		switch {
		case !defined:
			problems = append(problems, fmt.Sprintf("%s depends on %s, which is no service", name, dep))
		case !started && required:
			problems = append(problems, fmt.Sprintf("%s depends on %s, which these profiles do not start", name, dep))
		case d.Condition == "service_healthy" && !hasHealthcheck(target):
			problems = append(problems, fmt.Sprintf("%s waits for %s to be healthy, which has no health check", name, dep))
		case d.Condition == "service_completed_successfully" && target.Restart != "no" && target.Restart != "":
			problems = append(problems, fmt.Sprintf("%s waits for %s to complete, which restarts (%s)", name, dep, target.Restart))
		}
	}
	return problems
}

// hasHealthcheck: the file's own, or the one toolscope's image has.
func hasHealthcheck(s composeService) bool {
	if s.Healthcheck != nil {
		return !s.Healthcheck.Disable && len(s.Healthcheck.Test) > 0
	}
	return isToolscopeImage(s.Image)
}

func isToolscopeImage(image string) bool {
	return image == "ghcr.io/toolscope/toolscope" || strings.HasPrefix(image, "ghcr.io/toolscope/toolscope:")
}

func (p project) volumeProblems(name string, s composeService) []string {
	var problems []string
	for _, v := range s.Volumes {
		var source string
		switch v := v.(type) {
		case string:
			source, _, _ = strings.Cut(v, ":")
		case map[string]any:
			source, _ = v["source"].(string)
			if v["type"] == "bind" {
				if !strings.HasPrefix(source, "/") {
					problems = append(problems, fmt.Sprintf("%s binds %q, not an absolute path", name, source))
				}
				continue
			}
		}
		if strings.HasPrefix(source, "/") || strings.HasPrefix(source, ".") {
			continue // a path of the host
		}
		if _, declared := p.Volumes[source]; !declared {
			problems = append(problems, fmt.Sprintf("%s mounts the volume %s, which the file does not declare", name, source))
		}
	}
	for _, c := range s.Configs {
		if _, declared := p.Configs[c.Source]; !declared {
			problems = append(problems, fmt.Sprintf("%s mounts the config %s, which the file does not declare", name, c.Source))
		}
	}
	return problems
}

// toolscopeArgs are the arguments toolscope runs with in s, or nil when s
// does not run toolscope: its image's, or one whose entrypoint it is.
func toolscopeArgs(s composeService) []string {
	switch {
	case slices.Equal(s.Entrypoint, []string{"toolscope"}):
		return s.Command
	case isToolscopeImage(s.Image) && s.Entrypoint == nil && s.Command == nil:
		return []string{"serve"} // the image's CMD
	case isToolscopeImage(s.Image) && s.Entrypoint == nil:
		return s.Command
	}
	return nil
}

// flagValues are the values of a flag in args, --name value or
// --name=value, up to a lone "--".
func flagValues(args []string, name string) []string {
	var values []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--":
			return values
		case args[i] == "--"+name && i+1 < len(args):
			values = append(values, args[i+1])
			i++
		case strings.HasPrefix(args[i], "--"+name+"="):
			values = append(values, strings.TrimPrefix(args[i], "--"+name+"="))
		}
	}
	return values
}

// setting is what toolscope reads for a setting: its flag, else its
// variables in order, else def.
func setting(s composeService, args []string, flag, def string, variables ...string) string {
	if v := flagValues(args, flag); len(v) > 0 {
		return interpolate(v[len(v)-1])
	}
	for _, name := range variables {
		if v := interpolate(s.Environment[name]); v != "" {
			return v
		}
	}
	return def
}

// backendProblem says why toolscope in s cannot reach a model server, or
// "".
func backendProblem(name string, s composeService, args []string, active map[string]composeService) string {
	backend := setting(s, args, "backend", "auto", "TOOLSCOPE_BACKEND")
	switch backend {
	case "ollama", "auto":
		host := setting(s, args, "ollama-host", "127.0.0.1:11434", "TOOLSCOPE_OLLAMA_HOST", "OLLAMA_HOST")
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		return reachProblem(name, "Ollama", host, "ollama/ollama", "11434", active)
	case "openai":
		base := setting(s, args, "openai-base-url", "", "TOOLSCOPE_OPENAI_BASE_URL", "OPENAI_BASE_URL")
		if problem := reachProblem(name, "vLLM", base, "vllm/vllm-openai", "8000", active); problem != "" {
			return problem
		}
		if u, _ := url.Parse(base); u.Path != "/v1" {
			return fmt.Sprintf("%s reaches vLLM at %s, whose API is at /v1", name, base)
		}
		return ""
	}
	return fmt.Sprintf("%s runs on the %s backend, not a model server of the file", name, backend)
}

// reachProblem says why address does not reach an image's server among
// the active services, or "".
func reachProblem(name, what, address, image, port string, active map[string]composeService) string {
	u, err := url.Parse(address)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("%s has no address for %s (%q)", name, what, address)
	}
	target, found := serviceAt(u.Hostname(), active)
	switch {
	case !found:
		return fmt.Sprintf("%s reaches %s at %s, which no service started answers to", name, what, u.Hostname())
	case !strings.HasPrefix(target.Image, image):
		return fmt.Sprintf("%s reaches %s at %s, which runs %s", name, what, u.Hostname(), target.Image)
	case u.Port() != port:
		return fmt.Sprintf("%s reaches %s at port %s, not %s", name, what, u.Port(), port)
	}
	return ""
}

// serviceAt is the active service a host name reaches: by its name, or
// by a network alias.
func serviceAt(host string, active map[string]composeService) (composeService, bool) {
	if s, ok := active[host]; ok {
		return s, true
	}
	for _, s := range active {
		for _, n := range s.Networks {
			if slices.Contains(n.Aliases, host) {
				return s, true
			}
		}
	}
	return composeService{}, false
}

// mcpProblems names each MCP server toolscope in s connects to that no
// active service serves at its URL. URLs outside the compose network (a
// host name with a dot, the host's) are not the file's to check.
func (p project) mcpProblems(name string, s composeService, args []string, active map[string]composeService) []string {
	specs, err := p.mcpServers(s, args)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	var problems []string
	for _, spec := range specs {
		u, err := url.Parse(spec.URL)
		if spec.URL == "" || err != nil {
			problems = append(problems, fmt.Sprintf("%s starts the MCP server %q in its own container", name, spec.Name))
			continue
		}
		host := u.Hostname()
		if strings.Contains(host, ".") || host == "localhost" {
			continue
		}
		server, found := serviceAt(host, active)
		transport, addr := serving(server)
		wantPath := map[string]string{mcp.TransportHTTP: "/mcp", mcp.TransportSSE: "/sse"}[transport]
		listenHost, listenPort, _ := net.SplitHostPort(addr)
		switch {
		case !found:
			problems = append(problems, fmt.Sprintf("%s connects to %s, which no service started answers to", name, spec.URL))
		case wantPath == "":
			problems = append(problems, fmt.Sprintf("%s connects to %s, whose service serves no MCP over HTTP", name, spec.URL))
		case listenHost != "0.0.0.0" && listenHost != "" && listenHost != "::":
			problems = append(problems, fmt.Sprintf("%s connects to %s, whose service listens on %s only", name, spec.URL, addr))
		case u.Port() != listenPort:
			problems = append(problems, fmt.Sprintf("%s connects to %s, whose service listens on port %s", name, spec.URL, listenPort))
		case u.Path != wantPath:
			problems = append(problems, fmt.Sprintf("%s connects to %s, whose service serves %s at %s", name, spec.URL, transport, wantPath))
		case (spec.Transport == mcp.TransportSSE) != (transport == mcp.TransportSSE):
			problems = append(problems, fmt.Sprintf("%s connects to %s over %s, which serves %s", name, spec.URL, spec.Transport, transport))
		}
	}
	return problems
}

// mcpServers are the servers toolscope in s is given: --mcp and --mcp-sse
// flags, and the --mcp-config file, read from the config mounted there.
func (p project) mcpServers(s composeService, args []string) ([]mcp.ServerSpec, error) {
	var specs []mcp.ServerSpec
	for transport, flag := range map[string]string{"": "mcp", mcp.TransportSSE: "mcp-sse"} {
		for _, v := range flagValues(args, flag) {
			spec, err := mcp.ParseFlag(interpolate(v), transport)
			if err != nil {
				return nil, err
			}
			specs = append(specs, spec)
		}
	}
	path := setting(s, args, "mcp-config", "", "TOOLSCOPE_MCP_CONFIG")
	if path == "" {
		return specs, nil
	}
	i := slices.IndexFunc(s.Configs, func(c struct {
		Source string `yaml:"source"`
		Target string `yaml:"target"`
	}) bool {
		return c.Target == path
	})
	if i < 0 {
		return nil, fmt.Errorf("--mcp-config %s is no config mounted in the service", path)
	}
	file, err := os.CreateTemp("", "compose-check-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(file.Name())
	_, err = file.WriteString(interpolate(p.Configs[s.Configs[i].Source].Content))
	if closeErr := file.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	more, err := mcp.LoadConfig(file.Name())
	return append(specs, more...), err
}

// serving is the MCP transport and address a service serves on: toolscope's
// own servers and the bridge, by their flags and defaults.
func serving(s composeService) (transport, addr string) {
	args := toolscopeArgs(s)
	if len(args) < 2 || args[0] != "mcp" {
		return "", ""
	}
	transport = mcp.TransportStdio
	if args[1] == "bridge" {
		transport = mcp.TransportHTTP
	}
	if v := flagValues(args, "transport"); len(v) > 0 {
		transport = v[len(v)-1]
	}
	addr = "127.0.0.1:8765"
	if v := flagValues(args, "addr"); len(v) > 0 {
		addr = v[len(v)-1]
	}
	return transport, addr
}

// portClashes names the host ports two active services publish.
func portClashes(active map[string]composeService) []string {
	var problems []string
	by := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(active)) {
		for _, port := range active[name].Ports {
			parts := strings.Split(interpolate(port), ":")
			if len(parts) < 2 {
				continue
			}
			host := parts[len(parts)-2]
			if other, taken := by[host]; taken {
				problems = append(problems, fmt.Sprintf("%s and %s both publish port %s", other, name, host))
			}
			by[host] = name
		}
	}
	return problems
}

var variable = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}`)

// interpolate resolves a value as Compose does with no variable set:
// ${X:-default} is the default, ${X} is empty, $$ is $.
func interpolate(s string) string {
	return variable.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		return variable.FindStringSubmatch(m)[2]
	})
}

// checkFile validates data and checks it with each set of profiles, and
// reports every problem as an error of t.
func checkFile(t *testing.T, data []byte, profileSets ...[]string) {
	t.Helper()
	if err := schemaProblems(t, data); err != nil {
		t.Errorf("the Compose Specification's schema refuses it: %v", err)
	}
	p := readProject(t, data)
	for _, profiles := range profileSets {
		for _, problem := range p.problems(profiles) {
			t.Errorf("with profiles %v: %s", profiles, problem)
		}
	}
}
