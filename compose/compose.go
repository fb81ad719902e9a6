// Package compose writes a Docker Compose file that runs toolscope beside
// a model server (Ollama, or vLLM) and the MCP servers of a Claude Desktop
// or VS Code configuration: what `toolscope compose` prints.
//
// Each stdio server gets a service of its own, in an image fit for its
// command (a node image for npx, a uv image for uvx, toolscope's for
// toolscope), where `toolscope mcp bridge` serves it over streamable HTTP;
// a server reached by URL is given to toolscope as it is; toolscope reads
// every server's URL from an MCP configuration the file carries inline.
// No value of a server's env, nor of a remote server's headers, is
// written: each becomes a ${VARIABLE} reference for Compose to fill in
// from the shell or a .env file. So do the secrets found in a server's
// arguments and in a remote server's URL by the rules of secret.go: a
// URL's password, and the value of a query parameter or a flag whose name
// looks secret (api_key, --token). A secret no rule recognises (a token
// given as a bare argument, or to a flag named otherwise) is written as it
// is.
//
// Some servers cannot run in a container (one that runs docker, a program
// at a path on the host, a web browser on a display, a runtime with no
// image here): they are left out, and the file's header says why, as
// Result.Servers does for the caller. Absolute host paths in a server's
// arguments are mounted read-only at the same place.
//
// The tests validate what Generate writes, and the repository's own
// compose.yaml, against the Compose Specification's JSON Schema and the
// checks a schema cannot make (dependencies, volumes, the MCP URLs and the
// backend each toolscope reaches).
package compose

import (
	"fmt"

	"github.com/toolscope/toolscope/tools/mcp"
)

// Backends a generated file runs the model on.
const (
	BackendOllama = "ollama" // Ollama, with the model pulled on the first start
	BackendVLLM   = "vllm"   // vLLM's OpenAI-compatible server, on NVIDIA GPUs
)

// Options says what to generate.
type Options struct {
	// Backend is BackendOllama (when empty) or BackendVLLM.
	Backend string
	// GPU reserves the host's NVIDIA GPUs for Ollama. vLLM always has
	// them: its image runs on CUDA.
	GPU bool
	// Source names the configuration the servers came from, for the
	// file's header.
	Source string
}

// Placement is what became of a server.
type Placement string

const (
	InContainer Placement = "container" // a service of its own runs it
	Remote      Placement = "remote"    // toolscope reaches it at its URL
	Refused     Placement = "refused"   // left out; Server.Reason says why
)

// Server is what became of one server of the configuration.
type Server struct {
	Name      string // as the configuration names it
	Placement Placement
	Service   string // the compose service that runs it, when InContainer
	Image     string // the image it runs in, when InContainer
	Target    string // its command line or URL, as the configuration gave it but for its secrets, written ${VARIABLE} ("…" when Refused)
	Reason    string // why it was Refused
	// Notes say what the file does that its reader should know: a path
	// mounted read-only, a host name changed.
	Notes []string
}

// Variable is a value the file references but does not hold: a server's
// env value, a remote server's header, or a secret of its arguments or
// URL, to set before `docker compose up`.
type Variable struct {
	Name   string // as the file references it, ${Name}
	Server string // the server it is for
	// For is what it fills: "env GITHUB_TOKEN", "header Authorization",
	// "password in a URL in its arguments", "query api_key in its URL",
	// "--api-key in its arguments".
	For string
}

// Result is a compose file and what became of each server.
type Result struct {
	File      []byte
	Servers   []Server
	Variables []Variable
}

// Generate writes the compose file for specs, in their order.
func Generate(specs []mcp.ServerSpec, opts Options) (*Result, error) {
	switch opts.Backend {
	case "":
		opts.Backend = BackendOllama
	case BackendOllama, BackendVLLM:
	default:
		return nil, fmt.Errorf("unknown backend %q; use %s or %s", opts.Backend, BackendOllama, BackendVLLM)
	}
	p := plan(specs)
	file, err := p.write(opts)
	if err != nil {
		return nil, err
	}
	return &Result{File: file, Servers: p.servers, Variables: p.variables}, nil
}
