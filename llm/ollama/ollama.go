// Package ollama is the llm.Backend for a local Ollama server, built on
// Ollama's own client (github.com/ollama/ollama/api). It shows the full LLM
// input in one of two modes.
//
// Raw mode, the default, shows the exact bytes the model reads. Prepare
// fetches the model's template from /api/show and renders the prompt itself
// with Ollama's own template code (or, for models that have one, Ollama's Go
// renderer), special tokens included. Stream sends that prompt to
// /api/generate with raw set and thinking off, so Ollama passes it through
// untouched and sends back the model's raw text, <think> and <tool_call>
// tags included, for toolscope to parse.
//
// Chat mode shows the message list instead: Stream sends the messages to
// /api/chat, with no tools, and Ollama renders the prompt. Newer Ollama
// builds parse some model families' replies even so; thinking and tool calls
// they pull out arrive in llm.Chunk.Thinking and llm.Chunk.ToolCalls, which
// marks them as parsed by Ollama rather than by toolscope.
//
// Pull has Ollama pull the model from its registry, reporting the bytes
// over all its layers, a speed over the last few seconds and the time
// left; toolscope pull, serve --offer-pull and the page's Pull use it.
package ollama

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"

	"github.com/toolscope/toolscope/llm"
)

// DefaultModel is the model used when Config.Model is empty: small enough
// for a laptop without a GPU, and trained on the Hermes tool-call format.
const DefaultModel = "qwen3:4b"

// Config tells New which Ollama to use and how.
type Config struct {
	// Host is where Ollama listens, in any form OLLAMA_HOST takes:
	// "127.0.0.1:11434", "http://host:port", "host" (port 11434),
	// "https://host/path". "" means $OLLAMA_HOST, else 127.0.0.1:11434.
	Host string
	// Model is the model to run; "" means DefaultModel.
	Model string
	// Mode is llm.ModeRaw ("" means raw) or llm.ModeChat.
	Mode llm.Mode
	// HTTPClient sends the requests. nil means a client that gives up
	// connecting after a few seconds but lets a reply stream for as long
	// as it takes; a client's overall Timeout would cut long replies.
	HTTPClient *http.Client
}

// Backend talks to one model on one Ollama server. It is safe for
// concurrent use.
type Backend struct {
	base   *url.URL
	client *api.Client
	model  string
	mode   llm.Mode

	// info caches what /api/show says about the model; nil until a call
	// succeeds, so a failure (Ollama not started yet) is retried.
	info atomic.Pointer[modelInfo]
}

// New checks cfg and returns a Backend. It does no I/O: an unreachable
// server or a missing model shows up on the first call that needs it.
func New(cfg Config) (*Backend, error) {
	mode := cfg.Mode
	switch mode {
	case "":
		mode = llm.ModeRaw
	case llm.ModeRaw, llm.ModeChat:
	default:
		return nil, fmt.Errorf("unknown Ollama mode %q: use %q or %q", cfg.Mode, llm.ModeRaw, llm.ModeChat)
	}
	host := cfg.Host
	if host == "" {
		host = envconfig.Var("OLLAMA_HOST")
	}
	base, err := parseHost(host)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	model := cfg.Model
	if model == "" {
		model = DefaultModel
	}
	return &Backend{base: base, client: api.NewClient(base, hc), model: model, mode: mode}, nil
}

// parseHost reads an Ollama address as Ollama's envconfig.Host does, but
// reports a bad port or scheme instead of quietly using a default.
func parseHost(s string) (*url.URL, error) {
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	scheme, hostport, ok := strings.Cut(s, "://")
	defaultPort := "11434"
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("Ollama host %q: scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil { // no port given
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("Ollama host %q: port %q is not a number from 0 to 65535", s, port)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}, nil
}

// defaultHTTPClient fails fast when nothing listens but puts no limit on a
// reply: a small model on a CPU can stream for minutes.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}

// Info describes the backend.
func (b *Backend) Info() llm.Info {
	return llm.Info{Backend: "ollama", Model: b.model, Mode: b.mode}
}

// BaseURL is the server's address, e.g. "http://127.0.0.1:11434".
func (b *Backend) BaseURL() string { return b.base.String() }

// Version asks the server for its version, e.g. "0.17.4".
func (b *Backend) Version(ctx context.Context) (string, error) {
	v, err := b.client.Version(ctx)
	if err != nil {
		return "", b.explain(ctx, "check", err)
	}
	return v, nil
}

// Models lists the names of the models pulled on the server.
func (b *Backend) Models(ctx context.Context) ([]string, error) {
	list, err := b.client.List(ctx)
	if err != nil {
		return nil, b.explain(ctx, "check", err)
	}
	names := make([]string, len(list.Models))
	for i, m := range list.Models {
		names[i] = m.Name
	}
	return names, nil
}

// Check tells whether the server answers and has the model pulled, and
// returns the server's version. Its errors say what to do next.
func (b *Backend) Check(ctx context.Context) (version string, err error) {
	if version, err = b.Version(ctx); err != nil {
		return "", err
	}
	models, err := b.Models(ctx)
	if err != nil {
		return version, err
	}
	want := b.model
	if !strings.Contains(want, ":") {
		want += ":latest" // how Ollama lists a model pulled without a tag
	}
	if !slices.Contains(models, want) {
		return version, b.notPulled("check", nil)
	}
	return version, nil
}
