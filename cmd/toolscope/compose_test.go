package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Claude Desktop configuration with a server for a container, one that
// needs a secret, and one no container can run.
const claudeConfig = `{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/class"]},
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
               "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret0value"}},
    "github-docker": {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"]}
  }
}`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestComposeWritesTheFileAndSaysWhatItLeftOut(t *testing.T) {
	config := writeConfig(t, claudeConfig)
	out := filepath.Join(t.TempDir(), "compose.yaml")
	r := toolscope(t, "", "compose", "--out", out, config)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"command: [mcp, bridge, --addr, '0.0.0.0:8765', --no-auth, --, npx, -y, '@modelcontextprotocol/server-github']",
		"GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_PERSONAL_ACCESS_TOKEN}",
		"#   github-docker: runs docker, which needs the host's container engine",
	} {
		if !strings.Contains(string(file), want) {
			t.Errorf("the file lacks %q:\n%s", want, file)
		}
	}
	if strings.Contains(string(file), "ghp_secret0value") {
		t.Errorf("the file holds the token:\n%s", file)
	}
	for _, want := range []string{
		"toolscope compose: wrote " + out + ", with 2 MCP servers: filesystem, github\n",
		"note on filesystem: mounts /srv/class read-only at the same path",
		"left out github-docker: it runs docker, which needs the host's container engine",
		"set GITHUB_PERSONAL_ACCESS_TOKEN (github's env GITHUB_PERSONAL_ACCESS_TOKEN) before docker compose up",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("stdout holds %q with --out", r.stdout)
	}
}

func TestComposeWritesToStdoutWithoutOut(t *testing.T) {
	r := toolscope(t, "", "compose", "--backend", "vllm", writeConfig(t, claudeConfig))
	if r.code != exitOK || !strings.Contains(r.stdout, "\n  vllm:\n") || strings.Contains(r.stdout, "ollama") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "toolscope compose: wrote the compose file, with 2 MCP servers") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

func TestComposeMistakes(t *testing.T) {
	broken := writeConfig(t, "{\"mcpServers\": {\n  \"x\": {\"command\": \"npx\",}\n}}")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compose"}, exitUsage, "toolscope compose needs an MCP configuration, e.g. toolscope compose --out compose.yaml claude_desktop_config.json"},
		{[]string{"compose", "--backend", "llama.cpp", "x.json"}, exitUsage, `toolscope compose: --backend "llama.cpp": use ollama or vllm`},
		{[]string{"compose", "--gpus", "x.json"}, exitUsage, "did you mean --gpu?"},
		{[]string{"compose", filepath.Join(t.TempDir(), "missing.json")}, exitError, "toolscope compose: cannot read the MCP config"},
		{[]string{"compose", broken}, exitError, "not valid JSON at line 2, column 26"},
	} {
		r := toolscope(t, "", c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}

func TestComposeReferencesSecretsInArguments(t *testing.T) {
	config := writeConfig(t, `{"mcpServers": {
  "postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://ada:pg0secret@db.example.com/shop"]},
  "weather": {"url": "https://mcp.example.com/mcp?api_key=weather0secret"}}}`)
	r := toolscope(t, "", "compose", config)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, secret := range []string{"pg0secret", "weather0secret"} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("the output holds %q:\n%s\n%s", secret, r.stdout, r.stderr)
		}
	}
	for _, want := range []string{
		"set POSTGRES_PASSWORD (postgres's password in a URL in its arguments) before docker compose up",
		"set WEATHER_API_KEY (weather's query api_key in its URL) before docker compose up",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
