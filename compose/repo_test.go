package compose

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tools/mcp"
	"gopkg.in/yaml.v3"
)

// The repository's own workshop: compose.yaml, and the .env beside it that
// names the profile a plain `docker compose up` starts.
var (
	repoCompose = filepath.Join("..", "compose.yaml")
	repoEnv     = filepath.Join("..", ".env")
)

func readRepoCompose(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(repoCompose)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// defaultProfiles reads COMPOSE_PROFILES from .env, as Docker Compose
// does when neither --profile nor the shell sets it.
func defaultProfiles(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(repoEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if value, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "COMPOSE_PROFILES="); ok {
			return strings.Split(value, ",")
		}
	}
	t.Fatalf("%s sets no COMPOSE_PROFILES", repoEnv)
	return nil
}

// addOnProfiles start a service beside a model server's profile, not
// instead of one.
var addOnProfiles = []string{"jaeger"}

func TestComposeYAMLIsValidInEveryProfile(t *testing.T) {
	data := readRepoCompose(t)
	sets := [][]string{defaultProfiles(t)}
	for _, profile := range readProject(t, data).profiles() {
		if slices.Contains(addOnProfiles, profile) {
			sets = append(sets, append(defaultProfiles(t), profile))
		} else {
			sets = append(sets, []string{profile})
		}
	}
	checkFile(t, data, sets...)
}

// TestComposeYAMLProfilesSwapTheModelServer: each profile starts one
// model server and the toolscope that uses it, and the MCP servers always.
func TestComposeYAMLProfilesSwapTheModelServer(t *testing.T) {
	p := readProject(t, readRepoCompose(t))
	mcpServers := []string{"calculator", "converter"}
	cases := []struct {
		name     string
		profiles []string
		want     []string
	}{
		{"docker compose up", defaultProfiles(t), []string{"ollama", "ollama-pull", "toolscope"}},
		{"--profile gpu", []string{"gpu"}, []string{"ollama-gpu", "ollama-pull", "toolscope"}},
		{"--profile vllm", []string{"vllm"}, []string{"toolscope-vllm", "vllm"}},
		{"--profile ollama --profile jaeger", []string{"ollama", "jaeger"}, []string{"jaeger", "ollama", "ollama-pull", "toolscope"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := append(slices.Clone(mcpServers), c.want...)
			slices.Sort(want)
			if got := slices.Sorted(maps.Keys(p.active(c.profiles))); !slices.Equal(got, want) {
				t.Errorf("starts %v, want %v", got, want)
			}
		})
	}
	for _, name := range []string{"ollama-gpu", "vllm"} {
		if !reservesGPUs(t, readRepoCompose(t), name) {
			t.Errorf("%s reserves no NVIDIA GPU", name)
		}
	}
	if reservesGPUs(t, readRepoCompose(t), "ollama") {
		t.Error("ollama, on the CPU, reserves GPUs: a laptop without NVIDIA's toolkit could not start it")
	}
	if cmd := p.Services["toolscope-vllm"].Command; !slices.Contains(cmd, "openai") {
		t.Errorf("toolscope-vllm runs %v, not --backend openai", cmd)
	}
}

// reservesGPUs reads a service of a compose file for an NVIDIA device.
func reservesGPUs(t *testing.T, data []byte, name string) bool {
	var file struct {
		Services map[string]struct {
			Deploy *deploy `yaml:"deploy"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	d := file.Services[name].Deploy
	return d != nil && slices.ContainsFunc(d.Resources.Reservations.Devices, func(dev device) bool {
		return dev.Driver == "nvidia" && slices.Contains(dev.Capabilities, "gpu")
	})
}

// TestGeneratedModelServersAreComposeYAMLs holds what Generate writes for
// Ollama, the pull, vLLM and toolscope's own MCP servers to compose.yaml's,
// but for what only compose.yaml has: profiles, and the dependencies and
// alias that let two profiles share the pull.
func TestGeneratedModelServersAreComposeYAMLs(t *testing.T) {
	var repo struct {
		Services map[string]map[string]any `yaml:"services"`
	}
	if err := yaml.Unmarshal(readRepoCompose(t), &repo); err != nil {
		t.Fatal(err)
	}
	calculator := plan([]mcp.ServerSpec{mustParseFlag(t, "toolscope mcp calculator")}).placed[0]
	cases := []struct {
		repo      string
		generated *service
	}{
		{"ollama", ollamaService(false)},
		{"ollama-gpu", ollamaService(true)},
		{"ollama-pull", pullService()},
		{"vllm", vllmService()},
		{"calculator", mcpService(calculator)},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			want := repo.Services[c.repo]
			for _, onlyThere := range []string{"profiles", "depends_on", "networks"} {
				delete(want, onlyThere)
			}
			var got map[string]any
			encoded, err := yaml.Marshal(c.generated)
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(encoded, &got); err != nil {
				t.Fatal(err)
			}
			delete(got, "depends_on")
			if !reflect.DeepEqual(got, want) {
				gotText, _ := yaml.Marshal(got)
				wantText, _ := yaml.Marshal(want)
				t.Errorf("Generate writes\n%s\ncompose.yaml has\n%s", gotText, wantText)
			}
		})
	}
	if got, want := repo.Services["toolscope"]["image"], toolscopeImage; got != want {
		t.Errorf("compose.yaml runs toolscope from %v, Generate from %s", got, want)
	}
}

// TestChecksCatchABrokenFile breaks compose.yaml in the ways a compose
// file goes wrong and expects each to be named: checks that pass whatever
// the file says would prove nothing.
func TestChecksCatchABrokenFile(t *testing.T) {
	data := string(readRepoCompose(t))
	breaks := []struct {
		name     string
		edits    []string // old, new, … applied in turn
		profiles []string
		want     string
	}{
		{"a dependency on no service",
			[]string{"      ollama-pull:\n        condition: service_completed_successfully", "      ollama-pul:\n        condition: service_completed_successfully"},
			[]string{"ollama"}, "toolscope depends on ollama-pul, which is no service"},
		{"a required dependency the profile leaves out",
			[]string{"  ollama-gpu:\n    condition: service_healthy\n    required: false", "  ollama-gpu:\n    condition: service_healthy"},
			[]string{"ollama"}, "toolscope depends on ollama-gpu, which these profiles do not start"},
		{"waiting for a service with no health check to be healthy",
			[]string{"    healthcheck:\n      test: [CMD, python3", "    x-healthcheck:\n      test: [CMD, python3"},
			[]string{"vllm"}, "toolscope-vllm waits for vllm to be healthy, which has no health check"},
		{"a volume not declared",
			[]string{"  toolscope-data:\n", ""},
			[]string{"ollama"}, "toolscope mounts the volume toolscope-data, which the file does not declare"},
		{"an MCP URL naming no service",
			[]string{"--mcp, 'http://converter:8765/mcp']\n    environment:\n      <<: *toolscope-env\n      OLLAMA_HOST", "--mcp, 'http://convertor:8765/mcp']\n    environment:\n      <<: *toolscope-env\n      OLLAMA_HOST"},
			[]string{"ollama"}, "toolscope connects to http://convertor:8765/mcp, which no service started answers to"},
		{"an MCP server listening on loopback only",
			[]string{"command: [mcp, calculator, --transport, http, --addr, '0.0.0.0:8765']", "command: [mcp, calculator, --transport, http]"},
			[]string{"vllm"}, "toolscope-vllm connects to http://calculator:8765/mcp, whose service listens on 127.0.0.1:8765 only"},
		{"an MCP server on stdio",
			[]string{"command: [mcp, converter, --transport, http, --addr, '0.0.0.0:8765']", "command: [mcp, converter]"},
			[]string{"gpu"}, "toolscope connects to http://converter:8765/mcp, whose service serves no MCP over HTTP"},
		{"an MCP URL at the SSE path",
			[]string{"'http://calculator:8765/mcp', --mcp, 'http://converter:8765/mcp']\n    environment:\n      <<: *toolscope-env\n      OPENAI", "'http://calculator:8765/sse', --mcp, 'http://converter:8765/mcp']\n    environment:\n      <<: *toolscope-env\n      OPENAI"},
			[]string{"vllm"}, "toolscope-vllm connects to http://calculator:8765/sse, whose service serves http at /mcp"},
		{"Ollama at a name no service has",
			[]string{"      OLLAMA_HOST: ollama:11434\n      TOOLSCOPE_MODEL: ${TOOLSCOPE_MODEL:-qwen3:4b}\n", "      OLLAMA_HOST: olama:11434\n      TOOLSCOPE_MODEL: ${TOOLSCOPE_MODEL:-qwen3:4b}\n"},
			[]string{"gpu"}, "toolscope reaches Ollama at olama, which no service started answers to"},
		{"the GPU Ollama without the name ollama",
			[]string{"        aliases: [ollama]", "        aliases: [ollama-on-gpu]"},
			[]string{"gpu"}, "toolscope reaches Ollama at ollama, which no service started answers to"},
		{"vLLM's API without /v1",
			[]string{"OPENAI_BASE_URL: http://vllm:8000/v1", "OPENAI_BASE_URL: http://vllm:8000"},
			[]string{"vllm"}, "toolscope-vllm reaches vLLM at http://vllm:8000, whose API is at /v1"},
		{"two toolscopes in one profile",
			[]string{"    profiles: [vllm]\n    command: [serve", "    profiles: [vllm, ollama]\n    command: [serve"},
			[]string{"ollama"}, "2 services run toolscope serve, not 1"},
		{"two services on one port",
			[]string{"    profiles: [vllm]\n    command: [serve", "    profiles: [vllm, ollama]\n    command: [serve"},
			[]string{"ollama"}, "toolscope and toolscope-vllm both publish port 8000"},
	}
	for _, b := range breaks {
		t.Run(b.name, func(t *testing.T) {
			broken := data
			for i := 0; i < len(b.edits); i += 2 {
				if !strings.Contains(broken, b.edits[i]) {
					t.Fatalf("compose.yaml no longer holds %q: update this test's break", b.edits[i])
				}
				broken = strings.Replace(broken, b.edits[i], b.edits[i+1], 1)
			}
			problems := readProject(t, []byte(broken)).problems(b.profiles)
			if !slices.Contains(problems, b.want) {
				t.Errorf("want %q among the problems, got:\n%s", b.want, strings.Join(problems, "\n"))
			}
		})
	}
}

// TestSchemaCatchesWhatComposeRefuses: the schema is compiled and applied,
// not skipped.
func TestSchemaCatchesWhatComposeRefuses(t *testing.T) {
	data := readRepoCompose(t)
	for _, b := range []struct{ old, new string }{
		{"condition: service_completed_successfully", "condition: service_completed"},
		{"    restart: \"no\"", "    restart: \"no\"\n    restarts: 3"},
		{"    ipc: host", "    ipc: [host]"},
	} {
		broken := bytes.Replace(data, []byte(b.old), []byte(b.new), 1)
		if bytes.Equal(broken, data) {
			t.Fatalf("compose.yaml no longer holds %q", b.old)
		}
		if err := schemaProblems(t, broken); err == nil {
			t.Errorf("the schema takes compose.yaml with %q for %q", b.new, b.old)
		}
	}
}
