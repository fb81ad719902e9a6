package compose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"gopkg.in/yaml.v3"
)

// What the services of a file agree on. compose.yaml at the repository's
// root writes the same values; a test holds the two together.
const (
	toolscopeImage = "ghcr.io/toolscope/toolscope:latest"
	toolscopeBin   = "/usr/local/bin/toolscope" // where the image has it
	mcpPort        = "8765"
	listenAddr     = "0.0.0.0:" + mcpPort // every interface: other containers connect
	mcpConfigName  = "mcp-servers"
	mcpConfigPath  = "/etc/toolscope/mcp.json"
	defaultModel   = "${TOOLSCOPE_MODEL:-qwen3:4b}"
	// pullModel pulls the model unless Ollama has it: a second start
	// works offline.
	pullModel = `ollama show "$$TOOLSCOPE_MODEL" >/dev/null 2>&1 || ollama pull "$$TOOLSCOPE_MODEL"`
)

// service is the part of a Compose service that the files use, in the
// order a reader wants it.
type service struct {
	Image       string                `yaml:"image,omitempty"`
	Build       *build                `yaml:"build,omitempty"`
	Entrypoint  []string              `yaml:"entrypoint,omitempty,flow"`
	Command     []string              `yaml:"command,omitempty,flow"`
	Environment map[string]string     `yaml:"environment,omitempty"`
	Ports       []string              `yaml:"ports,omitempty"`
	Volumes     []mount               `yaml:"volumes,omitempty"`
	Configs     []configMount         `yaml:"configs,omitempty"`
	ExtraHosts  []string              `yaml:"extra_hosts,omitempty"`
	IPC         string                `yaml:"ipc,omitempty"`
	DependsOn   map[string]dependency `yaml:"depends_on,omitempty"`
	Healthcheck *healthcheck          `yaml:"healthcheck,omitempty"`
	Deploy      *deploy               `yaml:"deploy,omitempty"`
	Restart     string                `yaml:"restart,omitempty"`
}

type build struct {
	DockerfileInline string `yaml:"dockerfile_inline"`
}

type dependency struct {
	Condition string `yaml:"condition"`
}

var (
	started   = dependency{"service_started"}
	healthy   = dependency{"service_healthy"}
	completed = dependency{"service_completed_successfully"}
)

type healthcheck struct {
	Disable     bool     `yaml:"disable,omitempty"`
	Test        []string `yaml:"test,omitempty,flow"`
	Interval    string   `yaml:"interval,omitempty"`
	Timeout     string   `yaml:"timeout,omitempty"`
	Retries     int      `yaml:"retries,omitempty"`
	StartPeriod string   `yaml:"start_period,omitempty"`
}

type deploy struct {
	Resources struct {
		Reservations struct {
			Devices []device `yaml:"devices"`
		} `yaml:"reservations"`
	} `yaml:"resources"`
}

type device struct {
	Driver       string   `yaml:"driver"`
	Count        string   `yaml:"count"`
	Capabilities []string `yaml:"capabilities,flow"`
}

// gpus reserves every NVIDIA GPU of the host.
func gpus() *deploy {
	d := &deploy{}
	d.Resources.Reservations.Devices = []device{{Driver: "nvidia", Count: "all", Capabilities: []string{"gpu"}}}
	return d
}

// mount is a named volume, written short (ollama:/root/.ollama), or a
// host path mounted read-only at the same place, written long so that
// a path missing on the host is an error rather than an empty directory
// Docker makes for it.
type mount struct {
	volume, target string // a named volume, and where it is mounted
	hostPath       string // or a path of the host
}

func (m mount) MarshalYAML() (any, error) {
	if m.volume != "" {
		return m.volume + ":" + m.target, nil
	}
	type bindOptions struct {
		CreateHostPath bool `yaml:"create_host_path"`
	}
	return struct {
		Type     string      `yaml:"type"`
		Source   string      `yaml:"source"`
		Target   string      `yaml:"target"`
		ReadOnly bool        `yaml:"read_only"`
		Bind     bindOptions `yaml:"bind"`
	}{"bind", escape(m.hostPath), escape(m.hostPath), true, bindOptions{false}}, nil
}

type configMount struct {
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

func ollamaService(gpu bool) *service {
	s := &service{
		Image:   "ollama/ollama",
		Volumes: []mount{{volume: "ollama", target: "/root/.ollama"}},
		Healthcheck: &healthcheck{Test: []string{"CMD", "ollama", "list"},
			Interval: "5s", Timeout: "5s", Retries: 5, StartPeriod: "30s"},
		Restart: "unless-stopped",
	}
	if gpu {
		s.Deploy = gpus()
	}
	return s
}

func pullService() *service {
	return &service{
		Image:       "ollama/ollama",
		Entrypoint:  []string{"/bin/sh", "-c"},
		Command:     []string{pullModel},
		Environment: map[string]string{"OLLAMA_HOST": "ollama:11434", "TOOLSCOPE_MODEL": defaultModel},
		DependsOn:   map[string]dependency{"ollama": healthy},
		Restart:     "no",
	}
}

func vllmService() *service {
	return &service{
		Image:       "vllm/vllm-openai:latest",
		Command:     []string{"--model", "${VLLM_MODEL:-Qwen/Qwen3-4B}"},
		Environment: map[string]string{"HF_TOKEN": "${HF_TOKEN:-}"},
		Volumes:     []mount{{volume: "huggingface", target: "/root/.cache/huggingface"}},
		IPC:         "host",
		Healthcheck: &healthcheck{
			Test:     []string{"CMD", "python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health')"},
			Interval: "10s", Timeout: "5s", Retries: 3, StartPeriod: "30m"},
		Deploy:  gpus(),
		Restart: "unless-stopped",
	}
}

// toolscope is the toolscope service, on the backend opts names, with
// every server that was not refused.
func (p *planned) toolscope(opts Options) *service {
	s := &service{
		Image:       toolscopeImage,
		Environment: map[string]string{"TOOLSCOPE_ALLOW_HOST": "${TOOLSCOPE_ALLOW_HOST:-}"},
		Ports:       []string{"${TOOLSCOPE_PORT:-8000}:8000"},
		Volumes:     []mount{{volume: "toolscope-data", target: "/data"}},
		DependsOn:   map[string]dependency{},
		Restart:     "unless-stopped",
	}
	if opts.Backend == BackendVLLM {
		s.Command = []string{"serve", "--backend", "openai"}
		s.Environment["OPENAI_BASE_URL"] = "http://vllm:8000/v1"
		s.DependsOn["vllm"] = healthy
	} else {
		s.Command = []string{"serve", "--backend", "ollama"}
		s.Environment["OLLAMA_HOST"] = "ollama:11434"
		s.Environment["TOOLSCOPE_MODEL"] = defaultModel
		s.DependsOn["ollama"] = healthy
		s.DependsOn["ollama-pull"] = completed
	}
	if p.connects() {
		s.Command = append(s.Command, "--mcp-config", mcpConfigPath)
		s.Configs = []configMount{{mcpConfigName, mcpConfigPath}}
	}
	for _, server := range p.placed {
		if server.Placement == InContainer {
			s.DependsOn[server.Service] = started
		}
		if server.onHost && s.ExtraHosts == nil {
			s.ExtraHosts = []string{hostGateway + ":host-gateway"}
		}
	}
	return s
}

// connects says whether toolscope has any MCP server to connect to.
func (p *planned) connects() bool {
	return slices.ContainsFunc(p.placed, func(s placed) bool { return s.Placement != Refused })
}

// mcpService runs a stdio server: behind the bridge, in its runtime's
// image with toolscope copied in, or, for toolscope's own servers, in
// toolscope's image over their own HTTP transport.
func mcpService(server placed) *service {
	// --no-auth: the bridge asks no token, as it listens on the compose
	// network only; no port of it is published on the host.
	bridge := append([]string{"mcp", "bridge", "--addr", listenAddr, "--no-auth", "--"}, server.command...)
	s := &service{Restart: "unless-stopped"}
	switch {
	case server.runtime.image != "":
		s.Build = &build{DockerfileInline: fmt.Sprintf("FROM %s\nCOPY --from=%s %s %s\n",
			server.runtime.image, toolscopeImage, toolscopeBin, toolscopeBin)}
		s.Entrypoint = []string{"toolscope"}
		s.Command = bridge
		s.Volumes = []mount{{volume: server.runtime.cache, target: server.runtime.cacheAt}}
	case server.native:
		s.Image = toolscopeImage
		s.Command = append(slices.Clone(server.command[1:]), "--transport", "http", "--addr", listenAddr)
	default:
		s.Image = toolscopeImage
		s.Command = bridge
	}
	if s.Image == toolscopeImage {
		// The image's health check asks toolscope serve's /api/health,
		// which an MCP server does not serve.
		s.Healthcheck = &healthcheck{Disable: true}
	}
	for _, path := range server.mounts {
		s.Volumes = append(s.Volumes, mount{hostPath: path})
	}
	if len(server.refs) > 0 {
		s.Environment = map[string]string{}
		for key, variable := range server.refs {
			s.Environment[key] = "${" + variable + "}"
		}
	}
	return s
}

// mcpConfig is the MCP configuration toolscope reads: every server that
// was not refused, by its URL, in the order the configuration gave.
func (p *planned) mcpConfig() string {
	type configEntry struct {
		Type    string            `json:"type,omitempty"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	var lines []string
	for _, s := range p.placed {
		if s.Placement == Refused {
			continue
		}
		e := configEntry{URL: s.url}
		if s.sse {
			e.Type = "sse"
		}
		if s.Placement == Remote && len(s.refs) > 0 {
			e.Headers = map[string]string{}
			for header, variable := range s.refs {
				e.Headers[header] = "${" + variable + "}"
			}
		}
		lines = append(lines, "    "+jsonText(escape(s.Name))+": "+jsonText(e))
	}
	return "{\n  \"mcpServers\": {\n" + strings.Join(lines, ",\n") + "\n  }\n}\n"
}

func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and string maps always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// write encodes the file: the header, then the services (toolscope, the
// model server, the MCP servers), the volumes they name and toolscope's
// MCP configuration.
func (p *planned) write(opts Options) ([]byte, error) {
	var services []entry
	add := func(name, comment string, s *service) {
		services = append(services, entry{name, comment, s})
	}
	add("toolscope", "toolscope, on port 8000 of this machine (TOOLSCOPE_PORT). It asks for a token:\n`docker compose logs toolscope` prints the links to open.", p.toolscope(opts))
	if opts.Backend == BackendVLLM {
		add("vllm", "vLLM's OpenAI-compatible server, on the host's NVIDIA GPUs; it downloads the\nmodel (VLLM_MODEL, default Qwen/Qwen3-4B) on its first start. HF_TOKEN for a gated one.", vllmService())
	} else {
		where := "on the CPU"
		if opts.GPU {
			where = "on the host's NVIDIA GPUs"
		}
		add("ollama", "Ollama, "+where+"; its models are kept in the volume ollama.", ollamaService(opts.GPU))
		add("ollama-pull", "Pulls the model (TOOLSCOPE_MODEL, default qwen3:4b) once Ollama answers, unless\nit is there already, then exits; toolscope starts when it has succeeded.", pullService())
	}
	for _, s := range p.placed {
		if s.Placement == InContainer {
			add(s.Service, serviceComment(s), mcpService(s))
		}
	}

	var volumes []string
	for _, e := range services {
		for _, m := range e.value.(*service).Volumes {
			if m.volume != "" && !slices.Contains(volumes, m.volume) {
				volumes = append(volumes, m.volume)
			}
		}
	}
	top := &yaml.Node{Kind: yaml.MappingNode, HeadComment: p.header(opts)}
	servicesNode, err := mapping(services)
	if err != nil {
		return nil, err
	}
	top.Content = append(top.Content, scalar("services"), servicesNode)
	volumesNode := &yaml.Node{Kind: yaml.MappingNode}
	for _, v := range volumes {
		volumesNode.Content = append(volumesNode.Content, scalar(v), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
	}
	top.Content = append(top.Content, scalar("volumes"), volumesNode)
	if p.connects() {
		configs, err := mapping([]entry{{mcpConfigName, "The MCP servers toolscope connects to; Compose fills in the ${VARIABLES}.",
			map[string]string{"content": p.mcpConfig()}}})
		if err != nil {
			return nil, err
		}
		top.Content = append(top.Content, scalar("configs"), configs)
	}

	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{top}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return spaced(b.Bytes()), nil
}

// entry is one member of a mapping, with the comment above it.
type entry struct {
	name, comment string
	value         any
}

// mapping encodes entries in their order, which a Go map would lose.
func mapping(entries []entry) (*yaml.Node, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range entries {
		var value yaml.Node
		if err := value.Encode(e.value); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		key := scalar(e.name)
		key.HeadComment = e.comment
		m.Content = append(m.Content, key, &value)
	}
	return m, nil
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func serviceComment(s placed) string {
	how := "behind toolscope mcp bridge, in " + s.Image + " with toolscope copied in"
	switch {
	case s.native:
		how = "in toolscope's image, over its own HTTP transport"
	case s.runtime.image == "":
		how = "behind toolscope mcp bridge, in toolscope's image"
	}
	lines := []string{fmt.Sprintf("MCP server %s: %s", s.Name, s.Target), how + "."}
	if !s.native {
		lines = append(lines, "The bridge asks no token (--no-auth): only the compose network reaches it, no port is published.")
	}
	for _, note := range s.Notes {
		lines = append(lines, "Note: "+note+".")
	}
	return strings.Join(lines, "\n")
}

// header says what the file starts, what to set first, and which servers
// it left out and why.
func (p *planned) header(opts Options) string {
	var b strings.Builder
	source := "an MCP configuration"
	if opts.Source != "" {
		source = opts.Source
	}
	fmt.Fprintf(&b, "Written by `toolscope compose` from %s.\n\n  docker compose up\n\n", source)
	if opts.Backend == BackendVLLM {
		b.WriteString("starts vLLM on the host's NVIDIA GPUs (it downloads the model on its first start),\n")
	} else {
		b.WriteString("starts Ollama and pulls the model on the first start,\n")
	}
	b.WriteString("then toolscope on port 8000 with these MCP servers:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, s := range p.placed {
		switch s.Placement {
		case InContainer:
			fmt.Fprintf(tw, "  %s\tin the service %s\n", s.Name, s.Service)
		case Remote:
			fmt.Fprintf(tw, "  %s\tat %s\n", s.Name, strings.Join(append([]string{unescape(s.url)}, s.Notes...), "; "))
		}
	}
	tw.Flush()
	if len(p.variables) > 0 {
		b.WriteString("\nSet these first, in the shell or in a .env file beside this one: the file\nreferences them and holds no value.\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, v := range p.variables {
			fmt.Fprintf(tw, "  %s\t%s's %s\n", v.Name, v.Server, v.For)
		}
		tw.Flush()
	}
	var refused []string
	for _, s := range p.placed {
		if s.Placement == Refused {
			refused = append(refused, fmt.Sprintf("  %s: %s", s.Name, s.Reason))
		}
	}
	if len(refused) > 0 {
		b.WriteString("\nLeft out, as no container here can run them:\n" + strings.Join(refused, "\n") + "\n")
	}
	b.WriteString("\nNeeds Docker Compose 2.23.1 or later (build.dockerfile_inline, configs' content).")
	return commented(b.String())
}

// commented makes text a YAML comment, blank lines included, which would
// otherwise cut it in pieces.
func commented(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimRight("# "+line, " ")
	}
	return strings.Join(lines, "\n")
}

// spaced puts a blank line before each top-level key and each service
// (with the comment above it), for a reader to find them. Only keys sit
// at those indentations in the files written here: the literal blocks
// (an inline Dockerfile, the MCP configuration) sit deeper.
func spaced(text []byte) []byte {
	var out bytes.Buffer
	prev, section := "", ""
	for line := range strings.Lines(string(text)) {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		comment := strings.HasPrefix(strings.TrimSpace(line), "#")
		switch {
		case indent == 0 && !comment && prev != "":
			out.WriteString("\n")
		case indent == 2 && section == "services:\n" && !strings.HasPrefix(prev, "  #") && prev != section:
			out.WriteString("\n")
		}
		if indent == 0 && !comment {
			section = line
		}
		out.WriteString(line)
		prev = line
	}
	return out.Bytes()
}
