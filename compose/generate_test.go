package compose

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tools/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden compose files in testdata")

func mustParseFlag(t *testing.T, value string) mcp.ServerSpec {
	t.Helper()
	spec, err := mcp.ParseFlag(value, "")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// loadConfig reads an MCP configuration through the parser --mcp-config
// uses, as toolscope compose does.
func loadConfig(t *testing.T, text string) []mcp.ServerSpec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, err := mcp.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// want is what a generated file must say of one server.
type want struct {
	placement Placement
	service   string // its service, when InContainer
	image     string // its image, when InContainer
	reason    string // a part of why it was refused
	command   []string
	mounts    []string // host paths it mounts read-only
	env       map[string]string
	url       string // where toolscope reaches it
}

func TestGenerate(t *testing.T) {
	cases := []struct {
		name      string
		config    string
		servers   map[string]want
		variables []string
	}{
		{"filesystem with host paths", `{"mcpServers": {"filesystem": {"command": "npx",
			"args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "--root=/srv/shared data"]}}}`,
			map[string]want{"filesystem": {placement: InContainer, service: "filesystem", image: "node:22-slim",
				command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "--root=/srv/shared data"},
				mounts:  []string{"/Users/ada/Desktop", "/srv/shared data"}, url: "http://filesystem:8765/mcp"}},
			nil},
		{"github through npx with a token", `{"mcpServers": {"github": {"command": "npx",
			"args": ["-y", "@modelcontextprotocol/server-github"],
			"env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret0value0never0written"}}}}`,
			map[string]want{"github": {placement: InContainer, service: "github", image: "node:22-slim",
				env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"}, url: "http://github:8765/mcp"}},
			[]string{"GITHUB_PERSONAL_ACCESS_TOKEN"}},
		{"a uvx server by the host's full path", `{"mcpServers": {"time": {"command": "/opt/homebrew/bin/uvx", "args": ["mcp-server-time", "--local-timezone=Europe/Paris"]}}}`,
			map[string]want{"time": {placement: InContainer, service: "time", image: "ghcr.io/astral-sh/uv:python3.12-bookworm-slim",
				command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "uvx", "mcp-server-time", "--local-timezone=Europe/Paris"}}},
			nil},
		{"Windows' cmd /c npx", `{"mcpServers": {"memory": {"command": "cmd", "args": ["/c", "npx", "-y", "@modelcontextprotocol/server-memory"]}}}`,
			map[string]want{"memory": {placement: InContainer, image: "node:22-slim",
				command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "npx", "-y", "@modelcontextprotocol/server-memory"}}},
			nil},
		{"toolscope's own servers", `{"mcpServers": {"calculator": {"command": "toolscope", "args": ["mcp", "calculator"]},
			"catalogue": {"command": "/usr/local/bin/toolscope", "args": ["mcp", "catalogue", "--transport", "stdio"]}}}`,
			map[string]want{
				"calculator": {placement: InContainer, image: toolscopeImage, command: []string{"mcp", "calculator", "--transport", "http", "--addr", "0.0.0.0:8765"}},
				"catalogue": {placement: InContainer, image: toolscopeImage,
					command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "toolscope", "mcp", "catalogue", "--transport", "stdio"}}},
			nil},
		{"a remote server with a token", `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp", "headers": {"Authorization": "Bearer lin_secret0value"}},
			"legacy": {"type": "sse", "url": "https://mcp.example.com/sse?tenant=$acme"}}}`,
			map[string]want{
				"linear": {placement: Remote, url: "https://mcp.linear.app/mcp"},
				"legacy": {placement: Remote, url: "https://mcp.example.com/sse?tenant=$acme"}},
			[]string{"LINEAR_AUTHORIZATION"}},
		{"a server on the host's loopback", `{"mcpServers": {"dev": {"url": "http://localhost:3000/mcp"}, "dev6": {"url": "http://[::1]:3001/mcp"},
			"any": {"url": "http://0.0.0.0:3002/mcp"}}}`,
			map[string]want{
				"dev":  {placement: Remote, url: "http://host.docker.internal:3000/mcp"},
				"dev6": {placement: Remote, url: "http://host.docker.internal:3001/mcp"},
				"any":  {placement: Remote, url: "http://host.docker.internal:3002/mcp"}},
			nil},
		{"servers no container can run", `{"mcpServers": {
			"github-docker": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
				"env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret0value0never0written"}},
			"puppeteer": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-puppeteer"]},
			"notes": {"command": "/Users/ada/bin/notes-mcp"},
			"deno": {"command": "deno", "args": ["run", "-A", "jsr:@example/mcp"]},
			"script": {"command": "node", "args": ["./build/index.js"]},
			"home": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Documents"]},
			"windows": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "C:\\Users\\ada\\Desktop"]},
			"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/"]}}}`,
			map[string]want{
				"github-docker": {placement: Refused, reason: "runs docker, which needs the host's container engine"},
				"puppeteer":     {placement: Refused, reason: "drives a web browser"},
				"notes":         {placement: Refused, reason: "runs /Users/ada/bin/notes-mcp, a program on the host"},
				"deno":          {placement: Refused, reason: "runs deno, for which toolscope compose knows no image"},
				"script":        {placement: Refused, reason: "names ./build/index.js, relative to wherever the MCP host starts the server"},
				"home":          {placement: Refused, reason: "names ~/Documents, in a home directory on the host"},
				"windows":       {placement: Refused, reason: `names C:\Users\ada\Desktop, a Windows path`},
				"everything":    {placement: Refused, reason: "names /, which mounted at the same place would hide the image's own"}},
			nil},
		{"names a service cannot have, or the file's own", `{"mcpServers": {"ollama": {"command": "uvx", "args": ["ollama-mcp"]},
			"My Notes!": {"command": "npx", "args": ["-y", "notes-mcp"]}, "my-notes": {"command": "npx", "args": ["-y", "other-notes-mcp"]}}}`,
			map[string]want{
				"ollama":    {placement: InContainer, service: "ollama-2"},
				"My Notes!": {placement: InContainer, service: "my-notes", url: "http://my-notes:8765/mcp"},
				"my-notes":  {placement: InContainer, service: "my-notes-2", url: "http://my-notes-2:8765/mcp"}},
			nil},
		{"one variable, two values", `{"mcpServers": {
			"a": {"command": "npx", "args": ["a-mcp"], "env": {"API_KEY": "one", "REGION": "eu"}},
			"b": {"command": "npx", "args": ["b-mcp"], "env": {"API_KEY": "two", "REGION": "eu"}}}}`,
			map[string]want{
				"a": {placement: InContainer, env: map[string]string{"API_KEY": "${A_API_KEY}", "REGION": "${REGION}"}},
				"b": {placement: InContainer, env: map[string]string{"API_KEY": "${B_API_KEY}", "REGION": "${REGION}"}}},
			[]string{"A_API_KEY", "REGION", "B_API_KEY", "REGION"}},
		{"VS Code's variables", `{"inputs": [{"type": "promptString", "id": "db-password", "password": true}],
			"servers": {
			"postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://ada:${input:db-password}@db.example.com/shop"]},
			"cost": {"command": "npx", "args": ["-y", "cost-mcp", "--currency=$", "--home=${env:HOME_REGION}"]},
			"workspace": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}"]}}}`,
			map[string]want{
				"postgres": {placement: InContainer, command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "npx", "-y",
					"@modelcontextprotocol/server-postgres", "postgresql://ada:${DB_PASSWORD}@db.example.com/shop"}},
				"cost": {placement: InContainer, command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "npx", "-y",
					"cost-mcp", "--currency=$$", "--home=${HOME_REGION}"}},
				"workspace": {placement: Refused, reason: "uses VS Code's ${workspaceFolder}, a place on the host"}},
			[]string{"DB_PASSWORD", "HOME_REGION"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			result := generateChecked(t, c.config, c.servers)
			if names := variableNames(result); !slices.Equal(names, c.variables) {
				t.Errorf("variables %v, want %v", names, c.variables)
			}
			if t.Failed() {
				t.Logf("the file:\n%s", result.File)
			}
		})
	}
}

// generateChecked generates a file from config, and checks that it
// validates and does with each server what servers wants.
func generateChecked(t *testing.T, config string, servers map[string]want) *Result {
	t.Helper()
	specs := loadConfig(t, config)
	result, err := Generate(specs, Options{Source: "config.json"})
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, result.File, nil)
	checkSays(t, result, specs, servers)
	return result
}

func variableNames(r *Result) []string {
	var names []string
	for _, v := range r.Variables {
		names = append(names, v.Name)
	}
	return names
}

// checkSays reads the file back and checks it does with each server what
// servers wants, holds none of the configuration's secret values, and
// names each server it left out with its reason.
func checkSays(t *testing.T, result *Result, specs []mcp.ServerSpec, servers map[string]want) {
	t.Helper()
	p := readProject(t, result.File)
	toolscope := p.Services["toolscope"]
	connected, err := p.mcpServers(toolscope, toolscope.Command)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range specs {
		for _, secret := range slices.Concat(slices.Collect(maps.Values(spec.Env)), slices.Collect(maps.Values(spec.Headers))) {
			if len(secret) > 3 && bytes.Contains(result.File, []byte(secret)) {
				t.Errorf("the file holds %s's value %q", spec.Name, secret)
			}
		}
	}
	for _, s := range result.Servers {
		w, ok := servers[s.Name]
		if !ok {
			t.Errorf("Generate placed %q, which the test does not expect", s.Name)
			continue
		}
		if s.Placement != w.placement {
			t.Errorf("%s: %s, want %s (%s)", s.Name, s.Placement, w.placement, s.Reason)
			continue
		}
		i := slices.IndexFunc(connected, func(spec mcp.ServerSpec) bool { return spec.Name == s.Name })
		switch s.Placement {
		case Refused:
			if !strings.Contains(s.Reason, w.reason) {
				t.Errorf("%s refused: %q, want it to say %q", s.Name, s.Reason, w.reason)
			}
			if !bytes.Contains(result.File, []byte("#   "+s.Name+": "+s.Reason+"\n")) {
				t.Errorf("the file's header does not say why %s was left out", s.Name)
			}
			if i >= 0 {
				t.Errorf("toolscope connects to %s, which was refused", s.Name)
			}
			continue
		case InContainer:
			checkService(t, p, s, w)
		}
		if i < 0 {
			t.Errorf("toolscope's MCP configuration lacks %s", s.Name)
		} else if w.url != "" && interpolate(connected[i].URL) != w.url {
			t.Errorf("toolscope reaches %s at %s, want %s", s.Name, interpolate(connected[i].URL), w.url)
		}
	}
}

func checkService(t *testing.T, p project, s Server, w want) {
	t.Helper()
	if w.service != "" && s.Service != w.service {
		t.Errorf("%s runs in the service %s, want %s", s.Name, s.Service, w.service)
	}
	svc, ok := p.Services[s.Service]
	if !ok {
		t.Errorf("%s's service %s is not in the file", s.Name, s.Service)
		return
	}
	image := svc.Image
	if dockerfile, _ := svc.Build["dockerfile_inline"].(string); dockerfile != "" {
		from, _, _ := strings.Cut(strings.TrimPrefix(dockerfile, "FROM "), "\n")
		image = from
		if !strings.Contains(dockerfile, "COPY --from="+toolscopeImage+" /usr/local/bin/toolscope /usr/local/bin/toolscope") {
			t.Errorf("%s's image has no toolscope copied in:\n%s", s.Name, dockerfile)
		}
	}
	if w.image != "" && (image != w.image || s.Image != w.image) {
		t.Errorf("%s runs in %s (says %s), want %s", s.Name, image, s.Image, w.image)
	}
	if args := toolscopeArgs(svc); w.command != nil && !slices.Equal(args, w.command) {
		t.Errorf("%s runs toolscope %q, want %q", s.Name, args, w.command)
	}
	var mounts []string
	for _, v := range svc.Volumes {
		if m, ok := v.(map[string]any); ok && m["type"] == "bind" {
			if m["read_only"] != true || m["source"] != m["target"] {
				t.Errorf("%s mounts %v, not read-only at the same path", s.Name, m)
			}
			mounts = append(mounts, interpolate(m["source"].(string)))
		}
	}
	if !slices.Equal(mounts, w.mounts) {
		t.Errorf("%s mounts %v, want %v", s.Name, mounts, w.mounts)
	}
	for key, value := range w.env {
		if svc.Environment[key] != value {
			t.Errorf("%s's %s is %q, want %q", s.Name, key, svc.Environment[key], value)
		}
	}
}

func TestGenerateBackends(t *testing.T) {
	specs := loadConfig(t, `{"mcpServers": {"calculator": {"command": "toolscope", "args": ["mcp", "calculator"]}}}`)
	for _, c := range []struct {
		opts    Options
		starts  []string
		backend string
		gpus    string // the service that reserves them, or ""
	}{
		{Options{}, []string{"calculator", "ollama", "ollama-pull", "toolscope"}, "ollama", ""},
		{Options{GPU: true}, []string{"calculator", "ollama", "ollama-pull", "toolscope"}, "ollama", "ollama"},
		{Options{Backend: BackendVLLM}, []string{"calculator", "toolscope", "vllm"}, "openai", "vllm"},
	} {
		t.Run(c.opts.Backend+map[bool]string{true: " gpu"}[c.opts.GPU], func(t *testing.T) {
			result, err := Generate(specs, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkFile(t, result.File, nil)
			p := readProject(t, result.File)
			var services []string
			for name := range p.Services {
				services = append(services, name)
			}
			slices.Sort(services)
			if !slices.Equal(services, c.starts) {
				t.Errorf("services %v, want %v", services, c.starts)
			}
			if got := flagValues(p.Services["toolscope"].Command, "backend"); !slices.Equal(got, []string{c.backend}) {
				t.Errorf("toolscope runs --backend %v, want %s", got, c.backend)
			}
			var reserved []string
			for _, name := range services {
				if reservesGPUs(t, result.File, name) {
					reserved = append(reserved, name)
				}
			}
			if want := slices.DeleteFunc([]string{c.gpus}, func(s string) bool { return s == "" }); !slices.Equal(reserved, want) {
				t.Errorf("GPUs reserved by %v, want %v", reserved, want)
			}
		})
	}
	if _, err := Generate(specs, Options{Backend: "llama.cpp"}); err == nil {
		t.Error("Generate takes the backend llama.cpp")
	}
}

// TestGoldenFiles keeps two whole generated files for a reader to look at
// (go test ./compose -run TestGoldenFiles -update rewrites them); the
// tests above check what they mean.
func TestGoldenFiles(t *testing.T) {
	for _, c := range []struct {
		config, golden string
		opts           Options
	}{
		{"claude_desktop_config.json", "claude_desktop_config.compose.yaml", Options{}},
		{"vscode_mcp.json", "vscode_mcp.compose.yaml", Options{Backend: BackendVLLM}},
	} {
		t.Run(c.config, func(t *testing.T) {
			specs, err := mcp.LoadConfig(filepath.Join("testdata", c.config))
			if err != nil {
				t.Fatal(err)
			}
			c.opts.Source = c.config
			result, err := Generate(specs, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkFile(t, result.File, nil)
			golden := filepath.Join("testdata", c.golden)
			if *update {
				if err := os.WriteFile(golden, result.File, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(result.File, want) {
				t.Errorf("Generate's file differs from %s (go test ./compose -run TestGoldenFiles -update rewrites it):\n%s", golden, result.File)
			}
		})
	}
}
