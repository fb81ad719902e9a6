// Package openai is the llm.Backend for any server that speaks the OpenAI
// API: vLLM, llama.cpp's llama-server, LM Studio, Ollama's /v1. It is
// built on the official Go SDK (github.com/openai/openai-go) and shows the
// full LLM input in one of two modes, as package ollama does.
//
// Raw mode, the default, shows the exact text the model reads. Such a
// server does not publish its chat template, so Prepare renders the prompt
// with a template toolscope carries for the model's family (see
// [Templates]), chosen by name, read from a file in Ollama's Go-template
// format, or guessed from the model's name. Stream sends that prompt to
// /v1/completions and streams back the model's raw text, special tokens
// included, for toolscope to parse. The server adds the tokenizer's
// beginning-of-text token itself, as it does for any prompt.
//
// Chat mode shows the message list instead: Stream sends the messages to
// /v1/chat/completions, with no tools, and the server's chat template
// renders them. Servers started with a reasoning or tool-call parser pull
// thinking (`reasoning_content` or `reasoning`) and tool calls out of the
// reply even so; they arrive in llm.Chunk.Thinking and llm.Chunk.ToolCalls,
// which marks them as parsed by the server rather than by toolscope.
package openai

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolscope/toolscope/llm"
)

// Settings a Fix of this backend can name, beside llm's own.
const (
	SettingBaseURL  llm.Setting = "openai_base_url"
	SettingAPIKey   llm.Setting = "openai_api_key"
	SettingTemplate llm.Setting = "template"
)

// APIVersion is what Check reports as the server's version: OpenAI-compatible
// servers publish none in the API, so it names the API that answered.
const APIVersion = "v1"

// infoTimeout bounds the one question Info may ask: which model the server
// serves, when Config.Model left it to the server.
const infoTimeout = 3 * time.Second

// Config tells New which server to use and how.
type Config struct {
	// BaseURL is the API's root, as OpenAI clients take it, e.g.
	// "http://127.0.0.1:8000/v1". A URL with no path gets "/v1".
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (vLLM and
	// llama-server ask for one only when started with --api-key).
	APIKey string
	// Model is the served model's id; "" means the one model the server
	// serves, and is an error when it serves several.
	Model string
	// Mode is llm.ModeRaw ("" means raw) or llm.ModeChat.
	Mode llm.Mode
	// Template renders raw prompts: a name from Templates, or the path of
	// a file in Ollama's Go-template format. "" guesses from the model's
	// name. Chat mode needs none.
	Template string
	// HTTPClient sends the requests. nil means one that gives up connecting
	// after a few seconds but lets a reply stream for as long as it takes.
	HTTPClient *http.Client
}

// Backend talks to one model on one OpenAI-compatible server. It is safe
// for concurrent use.
type Backend struct {
	base   string
	client openai.Client
	mode   llm.Mode
	fixed  *Template // from Config.Template; nil means guess from the model

	mu    sync.Mutex
	model string // "" until the server said which one it serves
}

// New checks cfg and returns a Backend. It asks the server nothing: an
// unreachable server or an unknown model shows up on the first call that
// needs it. A Template file is read now, so that a bad one is reported
// with the other settings.
func New(cfg Config) (*Backend, error) {
	mode := cfg.Mode
	switch mode {
	case "":
		mode = llm.ModeRaw
	case llm.ModeRaw, llm.ModeChat:
	default:
		return nil, fmt.Errorf("unknown mode %q: use %q or %q", cfg.Mode, llm.ModeRaw, llm.ModeChat)
	}
	base, err := ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	b := &Backend{base: base, mode: mode, model: cfg.Model}
	if cfg.Template != "" {
		if b.fixed, err = LoadTemplate(cfg.Template); err != nil {
			return nil, err
		}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	b.client = openai.NewClient(
		option.WithBaseURL(base),
		// An empty key overrides $OPENAI_API_KEY, which the SDK would
		// read itself: the settings alone decide what is sent.
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(hc),
		// A retry would send the prompt again behind the page's back,
		// and make an unreachable server slow to report.
		option.WithMaxRetries(0),
		option.WithMiddleware(wrapBareErrors),
	)
	return b, nil
}

// ParseBaseURL checks an API root and completes it: http or https, a host,
// and "/v1" when no path is given, since the servers serve the API there.
func ParseBaseURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("no base URL: give the server's, such as http://127.0.0.1:8000/v1")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q is not an http or https URL such as http://127.0.0.1:8000/v1", s)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1"
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u.String(), nil
}

// defaultHTTPClient fails fast when nothing listens but puts no limit on a
// reply: a large model can stream for minutes.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}

// BaseURL is the API's root, e.g. "http://127.0.0.1:8000/v1".
func (b *Backend) BaseURL() string { return b.base }

// Info describes the backend. When Config.Model was empty, the first call
// asks the server which model it serves, for a few seconds at most, so
// that the page and the terminal name it; Model stays "" while the server
// does not answer.
func (b *Backend) Info() llm.Info {
	model, _ := b.modelName()
	if model == "" {
		ctx, cancel := context.WithTimeout(context.Background(), infoTimeout)
		defer cancel()
		model, _ = b.resolveModel(ctx)
	}
	info := llm.Info{Backend: "openai", Model: model, Mode: b.mode, BaseURL: b.base}
	if b.mode == llm.ModeRaw {
		if t, err := b.template(model); err == nil {
			info.Template = t.Name
		}
	}
	return info
}

func (b *Backend) modelName() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.model, b.model != ""
}

// Models lists the ids of the models the server serves, from /v1/models.
func (b *Backend) Models(ctx context.Context) ([]string, error) {
	page, err := b.client.Models.List(ctx)
	if err != nil {
		return nil, b.explain(ctx, "check", err)
	}
	ids := make([]string, len(page.Data))
	for i, m := range page.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

// Check tells whether the server answers and serves the model, and
// returns APIVersion when it answers. Its errors say what to do next.
func (b *Backend) Check(ctx context.Context) (version string, err error) {
	served, err := b.Models(ctx)
	if err != nil {
		return "", err
	}
	model, err := b.pick(served)
	if err != nil {
		return APIVersion, err
	}
	if !slices.Contains(served, model) {
		return APIVersion, b.unknownModel("check", model, served, nil)
	}
	return APIVersion, nil
}

// resolveModel returns the model to run: Config.Model, or else the one
// model the server serves, asked once and then kept.
func (b *Backend) resolveModel(ctx context.Context) (string, error) {
	if m, ok := b.modelName(); ok {
		return m, nil
	}
	served, err := b.Models(ctx)
	if err != nil {
		return "", err
	}
	return b.pick(served)
}

// pick settles the model from the served list when Config.Model left it
// open.
func (b *Backend) pick(served []string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.model != "" {
		return b.model, nil
	}
	switch len(served) {
	case 1:
		b.model = served[0]
		return b.model, nil
	case 0:
		return "", &llm.Error{Op: "check", Problem: fmt.Sprintf("the server at %s serves no model", b.base),
			Fix: &llm.Fix{Do: "start it with a model, e.g. 'vllm serve Qwen/Qwen3-4B'"}}
	}
	return "", &llm.Error{Op: "check", Problem: fmt.Sprintf("the server at %s serves %d models: %s", b.base, len(served), strings.Join(served, ", ")),
		Fix: &llm.Fix{Setting: llm.SettingModel}}
}
