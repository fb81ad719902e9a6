package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// catalogue holds every tool the tests offer, by name: the built-in stubs,
// and the tools of toolscope's calculator and converter MCP servers,
// listed and called through an in-memory MCP session.
var catalogue = map[string]tools.Tool{}

var (
	allTools   = []string{"send_mail", "schedule_meeting", "cancel_meeting"}
	calculator = []string{"add", "subtract", "multiply", "divide", "sqrt", "power", "round_number"}
	converter  = []string{"celsius_to_fahrenheit", "fahrenheit_to_celsius", "convert_length", "convert_weight"}
	everyTool  = slices.Concat(allTools, calculator, converter)
	testNow    = time.Date(2026, 11, 29, 21, 49, 0, 0, time.UTC) // a Sunday
)

func TestMain(m *testing.M) {
	for _, t := range tools.Stubs(0) {
		catalogue[t.Name()] = t
	}
	sessions, err := connectMCP(mcpserver.Calculator(), mcpserver.Converter())
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect to the MCP servers:", err)
		os.Exit(1)
	}
	code := m.Run()
	for _, s := range sessions {
		s.Close()
	}
	os.Exit(code)
}

// connectMCP connects a client to each server in memory and adds their
// tools to the catalogue.
func connectMCP(servers ...*mcp.Server) ([]*mcp.ClientSession, error) {
	ctx := context.Background()
	var sessions []*mcp.ClientSession
	for _, s := range servers {
		serverEnd, clientEnd := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
			return sessions, err
		}
		session, err := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
		if err != nil {
			return sessions, err
		}
		sessions = append(sessions, session)
		for tool, err := range session.Tools(ctx, nil) {
			if err != nil {
				return sessions, err
			}
			catalogue[tool.Name] = mcpTool{session, tool}
		}
	}
	return sessions, nil
}

// mcpTool is a tool on an MCP server, as toolscope offers and calls it: a
// result marked as an error is an error, which the model reads as
// {"error": …}.
type mcpTool struct {
	session *mcp.ClientSession
	tool    *mcp.Tool
}

func (t mcpTool) Name() string        { return t.tool.Name }
func (t mcpTool) Description() string { return t.tool.Description }

func (t mcpTool) Parameters() json.RawMessage {
	schema, err := json.Marshal(t.tool.InputSchema)
	if err != nil {
		panic(err) // decoded from JSON, so it encodes
	}
	return schema
}

func (t mcpTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: t.tool.Name, Arguments: args})
	if err != nil {
		return "", err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return "", errors.New(text)
	}
	return text, nil
}

// renamed is a tool offered under another name, as an MCP host renames a
// tool whose name two servers share.
type renamed struct {
	tools.Tool
	name string
}

func (r renamed) Name() string { return r.name }

// offer picks tools from the catalogue.
func offer(t *testing.T, names ...string) []tools.Tool {
	t.Helper()
	var ts []tools.Tool
	for _, name := range names {
		tool, ok := catalogue[name]
		if !ok {
			t.Fatalf("%s is not in the test catalogue", name)
		}
		ts = append(ts, tool)
	}
	return ts
}

// render renders a conversation that starts with the agent's system
// prompt offering ts in dialect d, the way Prepare does.
func render(t *testing.T, d streamparser.Dialect, think bool, ts []tools.Tool, turns ...llm.Message) llm.Input {
	t.Helper()
	system := llm.Message{Role: llm.RoleSystem, Content: agent.SystemPrompt(ts, d, testNow)}
	in, err := New(Config{}).Prepare(context.Background(), llm.Request{Messages: append([]llm.Message{system}, turns...), Think: &think})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return in
}

// conversationWith renders a conversation offering tools from the
// catalogue, in the default dialect.
func conversationWith(t *testing.T, think bool, names []string, turns ...llm.Message) llm.Input {
	t.Helper()
	return render(t, streamparser.Hermes, think, offer(t, names...), turns...)
}

func user(s string) llm.Message      { return llm.Message{Role: llm.RoleUser, Content: s} }
func assistant(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

// streamAll streams the reply to in and returns its chunks.
func streamAll(t *testing.T, in llm.Input) []string {
	t.Helper()
	var chunks []string
	_, err := New(Config{}).Stream(context.Background(), in, func(c llm.Chunk) error {
		chunks = append(chunks, c.Content)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return chunks
}

// run is a whole agent run with the demo model.
type run struct {
	result   agent.Result
	calls    []*agent.Call // parsed or invalid, in order
	thinking string
}

// runAgent runs the agent with the demo model on request, offering ts in
// dialect d.
func runAgent(t *testing.T, d streamparser.Dialect, ts []tools.Tool, request string) run {
	t.Helper()
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: New(Config{}), Tools: reg, Dialect: d, Now: func() time.Time { return testNow }})
	var r run
	var conv agent.Conversation
	var thinking strings.Builder
	r.result = a.Run(context.Background(), &conv, request, func(e agent.Event) {
		switch e.Type {
		case agent.ToolCallParsed, agent.ToolCallInvalid:
			r.calls = append(r.calls, e.Call)
		case agent.ThinkingDelta:
			thinking.WriteString(e.Text)
		}
	})
	r.thinking = thinking.String()
	return r
}
