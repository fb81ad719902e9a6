package mcp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// everything returns the spec of the public reference server,
// @modelcontextprotocol/server-everything, as npm installs it at the root
// of the repository, or skips the test when it is not there.
func everything(t *testing.T) mcp.ServerSpec {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("server-everything is not installed; install it with `npm install --no-save @modelcontextprotocol/server-everything` at the root of the repository")
	}
	return mcp.ServerSpec{Name: "everything", Command: bin, Args: []string{"stdio"}}
}

func TestServerEverything(t *testing.T) {
	hub := connect(t, quick, everything(t))

	registry, err := tools.NewRegistry(hub.Tools()...)
	if err != nil {
		t.Fatalf("the registry refuses server-everything's tools: %v", err)
	}
	if got := registry.Names(); len(got) < 5 {
		t.Errorf("tools = %v, want server-everything's dozen", got)
	}
	// Its schemas come from zod objects, which write their properties in
	// the order the code declares them.
	tool := find(t, hub, "get-annotated-message")
	if got, want := tools.PropertyOrder(tool.Parameters()), []string{"messageType", "includeImage"}; !slices.Equal(got, want) {
		t.Errorf("get-annotated-message's properties = %v, want the server's order %v", got, want)
	}

	calls := []struct{ tool, args, want string }{
		{"echo", `{"message": "hello"}`, "Echo: hello"},
		{"get-sum", `{"a": 2, "b": 3}`, "The sum of 2 and 3 is 5."},
		{"get-tiny-image", `{}`, "[image: image/png, "},
	}
	for _, c := range calls {
		if err := registry.Check(c.tool, []byte(c.args)); err != nil {
			t.Errorf("%s(%s): %v", c.tool, c.args, err)
		}
		out, err, wire := call(t, find(t, hub, c.tool), c.args)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%s(%s) = %q, %v; want %q", c.tool, c.args, out, err, c.want)
		}
		checkWire(t, wire, c.tool)
	}

	// The registry stops bad arguments before they leave; sent anyway, the
	// server's own check fails the call, and the model reads why.
	args := `{"a": "two", "b": 3}`
	if err := registry.Check("get-sum", []byte(args)); err == nil {
		t.Error("the registry let a string through as a number")
	}
	_, err, wire := call(t, find(t, hub, "get-sum"), args)
	wantError(t, err, "Input validation error", "expected number, received string")
	checkWire(t, wire, "get-sum")

	if info := hub.Servers()[0]; !strings.Contains(strings.Join(info.Log, "\n"), "Starting default (STDIO) server") {
		t.Errorf("log = %q, want the server's stderr", info.Log)
	}
}
