package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/askstest"
)

// libraryServer offers resources, a resource template and prompts, in
// pages of two, and tools that change them and report the client's roots.
func libraryServer() *sdk.Server {
	opts := revisionOptions(os.Getenv(revisionEnv))
	opts.PageSize = 2
	s := sdk.NewServer(&sdk.Implementation{Name: "library", Version: "test"}, opts)
	book := func(uri, name, mimeType, text string, blob []byte) {
		s.AddResource(&sdk.Resource{URI: uri, Name: name, MIMEType: mimeType, Size: int64(len(text) + len(blob))},
			func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: mimeType, Text: text, Blob: blob}}}, nil
			})
	}
	book("library://notes.txt", "notes", "text/plain", "Buy milk.\n", nil)
	book("library://poem.md", "poem", "text/markdown", "# Ode\nTo tools.", nil)
	book("library://logo.png", "logo", "image/png", "", []byte("\x89PNG\r\n\x1a\n"))
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "library://shelf/{n}", Name: "shelf", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "shelf " + strings.TrimPrefix(req.Params.URI, "library://shelf/")}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{
		{Name: "name", Description: "whom to greet", Required: true},
		{Name: "tone"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text := "Say hello to " + req.Params.Arguments["name"]
		if tone := req.Params.Arguments["tone"]; tone != "" {
			text += ", " + tone
		}
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text + "."}}}}, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "dialogue"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: "What is 2+2?"}},
			{Role: "assistant", Content: &sdk.TextContent{Text: "4."}},
			{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "library://notes.txt", Text: "Buy milk."}}},
		}}, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "third"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{}, nil
	})
	// "shelve" adds a resource and a prompt: the server announces both.
	s.AddTool(&sdk.Tool{Name: "shelve", InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		book("library://new.txt", "new", "text/plain", "New arrival.", nil)
		s.AddPrompt(&sdk.Prompt{Name: "later"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{}, nil
		})
		return text("shelved"), nil
	})
	// "roots" answers with what the client declared and its roots/list,
	// asked as a server of the call's revision asks.
	s.AddTool(&sdk.Tool{Name: "roots", InputSchema: noArgs}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		caps := req.Session.InitializeParams().Capabilities
		declared, _ := json.Marshal(caps.RootsV2)
		if caps.RootsV2 == nil {
			return text("roots: " + string(declared)), nil
		}
		answer, pending, err := askstest.Ask(ctx, req, "roots", &sdk.ListRootsParams{})
		if pending != nil || err != nil {
			return pending, err
		}
		var uris []string
		for _, r := range answer.(*sdk.ListRootsResult).Roots {
			uris = append(uris, r.Name+"="+r.URI)
		}
		return text(fmt.Sprintf("roots: %s %s", declared, strings.Join(uris, " "))), nil
	})
	return s
}

func TestResources(t *testing.T) {
	for _, transport := range []string{mcp.TransportStdio, mcp.TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			hub := connectListed(t, quick, spec(t, "library", transport), spec(t, "calculator", transport))

			all, err := hub.Resources("")
			if err != nil || len(all) != 2 {
				t.Fatalf("Resources() = %+v, %v; want both servers", all, err)
			}
			lib := all[0]
			// Three resources in pages of two: every page was read.
			if got := resourceURIs(lib.Resources); !lib.Offered || lib.Error != "" ||
				!slices.Equal(got, []string{"library://logo.png", "library://notes.txt", "library://poem.md"}) {
				t.Errorf("library's resources = %v (offered %v, error %q)", got, lib.Offered, lib.Error)
			}
			if len(lib.Templates) != 1 || lib.Templates[0].URITemplate != "library://shelf/{n}" {
				t.Errorf("library's templates = %+v", lib.Templates)
			}
			if calc := all[1]; calc.Offered || len(calc.Resources) != 0 || calc.Server != "calculator" {
				t.Errorf("the calculator, which offers no resources: %+v", calc)
			}

			res, err := hub.ReadResource(t.Context(), "library", "library://notes.txt")
			if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "Buy milk.\n" {
				t.Fatalf("reading notes.txt = %+v, %v", res, err)
			}
			if got, want := mcp.AttachedResource("library", res), "<resource server=\"library\" uri=\"library://notes.txt\" mimeType=\"text/plain\">\nBuy milk.\n</resource>"; got != want {
				t.Errorf("attached notes.txt = %q, want %q", got, want)
			}
			blob, err := hub.ReadResource(t.Context(), "library", "library://logo.png")
			if err != nil {
				t.Fatal(err)
			}
			if got := mcp.AttachedResource("library", blob); !strings.Contains(got, "[blob: image/png, 8 bytes]") {
				t.Errorf("attached logo.png = %q, want the blob described", got)
			}
			shelf, err := hub.ReadResource(t.Context(), "library", "library://shelf/7")
			if err != nil || shelf.Contents[0].Text != "shelf 7" {
				t.Errorf("reading from the template = %+v, %v", shelf, err)
			}

			_, err = hub.ReadResource(t.Context(), "library", "library://missing")
			var refused *mcp.RefusedError
			if !errors.As(err, &refused) || !refused.NotFound() {
				t.Errorf("reading an unknown URI = %v, want a RefusedError that says not found", err)
			}
			wantError(t, err, `MCP server "library" refused resources/read`)
			_, err = hub.ReadResource(t.Context(), "nowhere", "library://notes.txt")
			if !errors.Is(err, mcp.ErrNoServer) {
				t.Errorf("reading from an unknown server = %v, want ErrNoServer", err)
			}
			wantError(t, err, `"nowhere"`, `the servers are "library", "calculator"`)
			if _, err := hub.Resources("nowhere"); !errors.Is(err, mcp.ErrNoServer) {
				t.Errorf("Resources(nowhere) = %v", err)
			}
		})
	}
}

// connectListed connects to specs, as connect does, and waits for the
// first listing of their resources and prompts, which follows.
func connectListed(t *testing.T, opts mcp.Options, specs ...mcp.ServerSpec) *mcp.Hub {
	t.Helper()
	hub := connect(t, opts, specs...)
	if err := hub.WaitCatalog(t.Context()); err != nil {
		t.Fatal(err)
	}
	return hub
}

// A server whose resources/list never answers is ready all the same,
// with its tools: the listing runs after the handshake, under the Hub's
// Timeout, and its failure shows on the server's resources only.
func TestSlowCatalogLeavesToolsAlone(t *testing.T) {
	release := make(chan struct{})
	s := mcpserver.Calculator()
	s.AddResource(&sdk.Resource{URI: "slow://one", Name: "one"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return nil, errors.New("unreachable")
	})
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "resources/list" {
				select { // as a server stuck in its listing
				case <-ctx.Done():
				case <-release:
				}
				return nil, errors.New("released")
			}
			return next(ctx, method, req)
		}
	})
	opts := quick
	opts.HandshakeTimeout = 5 * time.Second
	opts.Timeout = 300 * time.Millisecond
	hub := connect(t, opts, overHTTP(t, "stuck", s, mcpserver.TransportHTTP))
	t.Cleanup(func() { close(release) }) // before the server closes
	if len(hub.Tools()) == 0 {
		t.Fatal("the server's tools are missing")
	}
	if err := hub.WaitCatalog(t.Context()); err != nil {
		t.Fatal(err)
	}
	rs, err := hub.Resources("stuck")
	if err != nil || rs[0].State != mcp.StateReady || rs[0].Listing || len(rs[0].Resources) != 0 {
		t.Fatalf("Resources(stuck) = %+v, %v", rs, err)
	}
	wantError(t, errors.New(rs[0].Error), "listing its resources failed", "did not answer resources/list within 300ms")
}

func resourceURIs(rs []*sdk.Resource) []string {
	var uris []string
	for _, r := range rs {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	return uris
}

func TestPrompts(t *testing.T) {
	hub := connectListed(t, quick, stdio("library"))
	all, err := hub.Prompts("library")
	if err != nil || len(all) != 1 || !all[0].Offered {
		t.Fatalf("Prompts = %+v, %v", all, err)
	}
	var got []string
	for _, p := range all[0].Prompts {
		got = append(got, p.Name)
	}
	if slices.Sort(got); !slices.Equal(got, []string{"dialogue", "greet", "third"}) {
		t.Errorf("prompts = %v, want every page", got)
	}

	res, err := hub.GetPrompt(t.Context(), "library", "greet", map[string]string{"name": "Ada", "tone": "warmly"})
	if err != nil {
		t.Fatal(err)
	}
	if got := mcp.PromptRequest(res); got != "Say hello to Ada, warmly." {
		t.Errorf("greet's request = %q", got)
	}
	_, err = hub.GetPrompt(t.Context(), "library", "greet", map[string]string{"tone": "warmly"})
	if !errors.Is(err, mcp.ErrPromptArguments) {
		t.Errorf("greet without its name = %v, want ErrPromptArguments", err)
	}
	wantError(t, err, `prompt "greet" of MCP server "library" needs "name"`)

	res, err = hub.GetPrompt(t.Context(), "library", "dialogue", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mcp.PromptRequest(res), "User: What is 2+2?\n\nAssistant: 4.\n\nUser: Buy milk."; got != want {
		t.Errorf("dialogue's request = %q, want %q", got, want)
	}

	_, err = hub.GetPrompt(t.Context(), "library", "nonesuch", nil)
	var refused *mcp.RefusedError
	if !errors.As(err, &refused) {
		t.Errorf("an unknown prompt = %v, want the server's refusal", err)
	}
}

// A server that adds a resource and a prompt announces both, and
// toolscope lists them again.
func TestResourcesAndPromptsListChanged(t *testing.T) {
	for _, transport := range []string{mcp.TransportStdio, mcp.TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			hub := connect(t, quick, spec(t, "library", transport))
			if out, err, _ := call(t, find(t, hub, "shelve"), `{}`); err != nil || out != "shelved" {
				t.Fatalf("shelve = %q, %v", out, err)
			}
			waitFor(t, "the new resource and prompt", func() bool {
				rs, _ := hub.Resources("library")
				ps, _ := hub.Prompts("library")
				return slices.Contains(resourceURIs(rs[0].Resources), "library://new.txt") &&
					slices.ContainsFunc(ps[0].Prompts, func(p *sdk.Prompt) bool { return p.Name == "later" })
			})
		})
	}
}

// waitFor waits until done says so, for a change the hub makes on its own
// goroutine.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !done() {
		select {
		case <-deadline:
			t.Fatalf("never saw %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestRoots(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "my work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := mcp.Root(work)
	if err != nil {
		t.Fatal(err)
	}
	// The server asks for the roots in the call's result on 2026-07-28, by
	// a roots/list request of its own on 2025-11-25.
	for _, revision := range []string{"", "2025-11-25"} {
		t.Run("revision "+revision, func(t *testing.T) {
			spec := stdio("library")
			spec.Env[revisionEnv] = revision
			opts := quick
			opts.Roots = []string{root}
			hub := connect(t, opts, spec)
			out, err, wire := call(t, find(t, hub, "roots"), `{}`)
			want := `roots: {"listChanged":true} my work=file://` + filepath.ToSlash(work[:len(work)-len("my work")]) + "my%20work"
			if err != nil || out != want {
				t.Errorf("the server's view of the roots = %q, %v; want %q", out, err, want)
			}
			if mrtr := revision == ""; len(wire) < 2 || mrtr != strings.Contains(string(wire[1].Body), `"inputRequests":{"roots":{"method":"roots/list"`) {
				t.Errorf("the call's messages at revision %q: %v", revision, wire)
			}

			// Without roots, none are declared: a server falls back on its own.
			hub = connect(t, quick, spec)
			if out, err, _ := call(t, find(t, hub, "roots"), `{}`); err != nil || out != "roots: null" {
				t.Errorf("without roots the server sees %q, %v; want no capability", out, err)
			}
		})
	}
}

func TestRootMustBeADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		file:                     "is not a directory",
		file + "-missing":        "no such directory",
		"":                       "a root must name a directory",
		filepath.Dir(file) + "/": "",
	} {
		_, err := mcp.Root(dir)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Root(%q) = %v, want %q", dir, err, want)
		}
	}
}

// server-everything's resources, prompts and resource links, as the
// reference server offers them.
func TestServerEverythingResourcesAndPrompts(t *testing.T) {
	root := t.TempDir()
	opts := quick
	opts.Roots = []string{root}
	hub := connectListed(t, opts, everything(t))
	rs, err := hub.Resources("everything")
	if err != nil || !rs[0].Offered || len(rs[0].Resources) == 0 || len(rs[0].Templates) == 0 {
		t.Fatalf("server-everything's resources = %+v, %v", rs, err)
	}
	uri := rs[0].Resources[0].URI
	res, err := hub.ReadResource(t.Context(), "everything", uri)
	if err != nil || len(res.Contents) == 0 {
		t.Errorf("reading %s = %+v, %v", uri, res, err)
	}
	ps, err := hub.Prompts("everything")
	if err != nil || !ps[0].Offered || !slices.ContainsFunc(ps[0].Prompts, func(p *sdk.Prompt) bool { return p.Name == "args-prompt" }) {
		t.Fatalf("server-everything's prompts = %+v, %v", ps, err)
	}
	got, err := hub.GetPrompt(t.Context(), "everything", "args-prompt", map[string]string{"city": "Lyon"})
	if err != nil || !strings.Contains(mcp.PromptRequest(got), "Lyon") {
		t.Errorf("args-prompt = %+v, %v", got, err)
	}
	out, err, _ := call(t, find(t, hub, "get-roots-list"), `{}`)
	if err != nil || !strings.Contains(out, "file://"+filepath.ToSlash(root)) {
		t.Errorf("get-roots-list = %q, %v; want the root", out, err)
	}
	out, err, _ = call(t, find(t, hub, "get-resource-links"), `{"count": 2}`)
	if err != nil || !strings.Contains(out, "[resource link: ") {
		t.Errorf("get-resource-links = %q, %v", out, err)
	}
}
