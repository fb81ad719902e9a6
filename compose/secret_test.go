package compose

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestGenerateSecretsInArgumentsAndURLs: a password in a URL, a flag's or
// a query parameter's value named like a secret become variables, named
// after the service (or remote server) and the part, which the file's
// header lists; the value is nowhere in the file nor in what Generate
// says of the servers.
func TestGenerateSecretsInArgumentsAndURLs(t *testing.T) {
	cases := []struct {
		name      string
		config    string
		secrets   []string
		writes    string // a part of the file that references them, when the servers' wants cannot say
		servers   map[string]want
		variables []string
	}{
		{"a postgres URL argument", `{"mcpServers": {"postgres": {"command": "npx",
			"args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://ada:pg0pass0word@db.example.com/shop?sslmode=require"]}}}`,
			[]string{"pg0pass0word"}, "",
			map[string]want{"postgres": {placement: InContainer, command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "npx", "-y",
				"@modelcontextprotocol/server-postgres", "postgresql://ada:${POSTGRES_PASSWORD}@db.example.com/shop?sslmode=require"}}},
			[]string{"POSTGRES_PASSWORD"}},
		{"flags named like secrets", `{"mcpServers": {"acme": {"command": "npx",
			"args": ["-y", "acme-mcp", "--api-key=acme0key0value", "--token", "acme0token0value", "--keyword=dogs", "--key-file", "/srv/acme/key.pem", "--auth-token=${input:acme-token}"]}}}`,
			[]string{"acme0key0value", "acme0token0value"}, "",
			map[string]want{"acme": {placement: InContainer, mounts: []string{"/srv/acme/key.pem"}, command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "npx", "-y",
				"acme-mcp", "--api-key=${ACME_API_KEY}", "--token", "${ACME_TOKEN_2}", "--keyword=dogs", "--key-file", "/srv/acme/key.pem", "--auth-token=${ACME_TOKEN}"}}},
			[]string{"ACME_TOKEN", "ACME_API_KEY", "ACME_TOKEN_2"}},
		{"a remote URL with ?api_key=", `{"mcpServers": {"weather": {"url": "https://mcp.example.com/mcp?units=metric&api_key=remote0key0value#tools"}}}`,
			[]string{"remote0key0value"}, `"url":"https://mcp.example.com/mcp?units=metric&api_key=${WEATHER_API_KEY}#tools"`,
			map[string]want{"weather": {placement: Remote}},
			[]string{"WEATHER_API_KEY"}},
		{"a remote URL on the loopback, with a password and a token", `{"mcpServers": {"dev": {"url": "http://ada:dev0pass@localhost:3000/mcp?accessToken=dev0token"}}}`,
			[]string{"dev0pass", "dev0token"}, `"url":"http://ada:${DEV_PASSWORD}@host.docker.internal:3000/mcp?accessToken=${DEV_ACCESSTOKEN}"`,
			map[string]want{"dev": {placement: Remote}},
			[]string{"DEV_PASSWORD", "DEV_ACCESSTOKEN"}},
		{"a name another variable has", `{"mcpServers": {"db": {"command": "uvx",
			"args": ["mysql-mcp", "mysql://root:db0pass@db.example.com/shop"], "env": {"DB_PASSWORD": "db0env0pass"}}}}`,
			[]string{"db0pass", "db0env0pass"}, "",
			map[string]want{"db": {placement: InContainer, env: map[string]string{"DB_PASSWORD": "${DB_PASSWORD}"},
				command: []string{"mcp", "bridge", "--addr", "0.0.0.0:8765", "--no-auth", "--", "uvx", "mysql-mcp", "mysql://root:${DB_PASSWORD_2}@db.example.com/shop"}}},
			[]string{"DB_PASSWORD_2", "DB_PASSWORD"}},
		{"a refused server", `{"mcpServers": {"docker": {"command": "docker", "args": ["run", "-i", "acme/mcp", "--token", "refused0token"]}}}`,
			[]string{"refused0token"}, "",
			map[string]want{"docker": {placement: Refused, reason: "runs docker"}},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			result := generateChecked(t, c.config, c.servers)
			if !bytes.Contains(result.File, []byte(c.writes)) {
				t.Errorf("the file lacks %s", c.writes)
			}
			said := string(result.File)
			for _, s := range result.Servers {
				said += s.Target + s.Reason + strings.Join(s.Notes, "")
			}
			for _, v := range result.Variables {
				said += v.For
				if !bytes.Contains(result.File, []byte("\n#   "+v.Name+"  ")) {
					t.Errorf("the file's header does not list %s", v.Name)
				}
			}
			for _, secret := range c.secrets {
				if strings.Contains(said, secret) {
					t.Errorf("the file, or what Generate says of the servers, holds %q", secret)
				}
			}
			if names := variableNames(result); !slices.Equal(names, c.variables) {
				t.Errorf("variables %v, want %v", names, c.variables)
			}
			if t.Failed() {
				t.Logf("the file:\n%s", result.File)
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "--api-key": true, "apiKey": true, "APIKey": true, "access_token": true, "--token": true,
		"client_secret": true, "X-Amz-Signature": true, "sig": true, "password": true, "pass": true, "oauth": true,
		"keyword": false, "author": false, "--key-file": false, "token_type": false, "units": false, "bypass": false, "": false,
	} {
		if got := secretName(name); got != want {
			t.Errorf("secretName(%q) = %v, want %v", name, got, want)
		}
	}
}
