package mcp_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/toolscope/toolscope/tools/mcp"
)

func TestParseFlag(t *testing.T) {
	tests := []struct {
		value, transport string
		want             mcp.ServerSpec
	}{
		{"toolscope mcp calculator", "",
			mcp.ServerSpec{Name: "calculator", Command: "toolscope", Args: []string{"mcp", "calculator"}, Transport: "stdio"}},
		{"./toolscope mcp converter --transport stdio", "",
			mcp.ServerSpec{Name: "converter", Command: "./toolscope", Args: []string{"mcp", "converter", "--transport", "stdio"}, Transport: "stdio"}},
		{"npx -y @modelcontextprotocol/server-everything", "",
			mcp.ServerSpec{Name: "server-everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Transport: "stdio"}},
		{"npx -y @modelcontextprotocol/server-filesystem@2025.1.1 /tmp", "",
			mcp.ServerSpec{Name: "server-filesystem", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem@2025.1.1", "/tmp"}, Transport: "stdio"}},
		{"./server.py", "",
			mcp.ServerSpec{Name: "server", Command: "./server.py", Args: []string{}, Transport: "stdio"}},
		{"uv run weather.py", "",
			mcp.ServerSpec{Name: "weather", Command: "uv", Args: []string{"run", "weather.py"}, Transport: "stdio"}},
		{"docker run -i --rm mcp/fetch", "",
			mcp.ServerSpec{Name: "fetch", Command: "docker", Args: []string{"run", "-i", "--rm", "mcp/fetch"}, Transport: "stdio"}},
		{`python3 "my server.py" --greeting 'hello, world' say\ hi`, "",
			mcp.ServerSpec{Name: "my server", Command: "python3", Args: []string{"my server.py", "--greeting", "hello, world", "say hi"}, Transport: "stdio"}},
		{`node -e "console.log(\"x\")"`, "",
			mcp.ServerSpec{Name: "console.log(\"x\")", Command: "node", Args: []string{"-e", `console.log("x")`}, Transport: "stdio"}},
		{"http://127.0.0.1:8765/mcp", "",
			mcp.ServerSpec{Name: "127.0.0.1:8765", URL: "http://127.0.0.1:8765/mcp", Transport: "http"}},
		{"https://example.com/sse", "sse",
			mcp.ServerSpec{Name: "example.com", URL: "https://example.com/sse", Transport: "sse"}},
	}
	for _, tt := range tests {
		got, err := mcp.ParseFlag(tt.value, tt.transport)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseFlag(%q, %q) =\n%#v, %v; want\n%#v", tt.value, tt.transport, got, err, tt.want)
		}
	}
}

func TestParseFlagErrors(t *testing.T) {
	tests := []struct{ value, transport, want string }{
		{"", "", "empty MCP server"},
		{"  ", "", "empty MCP server"},
		{`python "server.py`, "", `unterminated " quote`},
		{`python 'server.py`, "", `unterminated ' quote`},
		{`python server.py \`, "", "lone backslash"},
		{"./server.py", "sse", "the sse transport needs an http:// or https:// URL"},
		{"ftp://example.com/mcp", "", `"ftp://example.com/mcp" is not an http:// or https:// URL`},
	}
	for _, tt := range tests {
		_, err := mcp.ParseFlag(tt.value, tt.transport)
		wantError(t, err, tt.want)
	}
}

func TestLoadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	config := `{
	  "mcpServers": {
	    "calculator": {"command": "toolscope", "args": ["mcp", "calculator"]},
	    "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"DEBUG": "1"}},
	    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer secret"}},
	    "legacy": {"type": "sse", "url": "http://127.0.0.1:8765/sse"},
	    "off": {"command": "nothing", "disabled": true}
	  }
	}`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := mcp.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []mcp.ServerSpec{
		{Name: "calculator", Command: "toolscope", Args: []string{"mcp", "calculator"}},
		{Name: "everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: map[string]string{"DEBUG": "1"}},
		{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer secret"}},
		{Name: "legacy", URL: "http://127.0.0.1:8765/sse", Transport: "sse"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadConfig =\n%#v\nwant\n%#v", got, want)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"mcpServers": {"a": {"command": "x",}}}`, "not valid JSON at line 1, column 38"},
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": x}\n  }\n}", "not valid JSON at line 3, column 22"},
		{`[]`, `must be a JSON object with "mcpServers"`},
		{`{"servers": {"a": {"command": "x"}}, "mcpServers": []}`, `"mcpServers" must be an object`},
		{`{"other": {}}`, `no "mcpServers" object`},
		{`{"mcpServers": {"a": {"args": ["x"]}}}`, `server "a" has neither "command" nor "url"`},
		{`{"mcpServers": {"a": {"url": "http://x/mcp", "type": "websocket"}}}`, `server "a": unknown "type" "websocket"`},
		{`{"mcpServers": {"a": {"url": "127.0.0.1:8765/mcp"}}}`, `server "a": the http transport needs an http:// or https:// URL`},
		{`{"mcpServers": {"a": {"command": "x", "args": "--flag"}}}`, `server "a": json: cannot unmarshal string`},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
		if err := os.WriteFile(path, []byte(tt.config), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := mcp.LoadConfig(path)
		wantError(t, err, "MCP config "+path+": ", tt.want)
	}

	_, err := mcp.LoadConfig(filepath.Join(t.TempDir(), "missing.json"))
	wantError(t, err, "cannot read the MCP config", "missing.json")
}

func TestVSCodeServersKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"servers": {"calc": {"type": "stdio", "command": "toolscope", "args": ["mcp", "calculator"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := mcp.LoadConfig(path)
	if err != nil || len(got) != 1 || got[0].Name != "calc" || got[0].Transport != "stdio" {
		t.Errorf("LoadConfig = %#v, %v", got, err)
	}
}
