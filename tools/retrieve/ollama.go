package retrieve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"
)

// DefaultEmbedModel is the embedding model Ollama is asked for by default:
// all-MiniLM-L6-v2, small and quick on a laptop's CPU, the model
// MCP_from_scratch retrieves tools with.
const DefaultEmbedModel = "all-minilm"

// Ollama embeds with a model served by Ollama, through /api/embed.
type Ollama struct {
	client *api.Client
	base   *url.URL
	model  string
}

// NewOllama returns an embedder that asks the Ollama at base for model
// (DefaultEmbedModel when ""). A nil hc means http.DefaultClient.
func NewOllama(base *url.URL, model string, hc *http.Client) *Ollama {
	if model == "" {
		model = DefaultEmbedModel
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Ollama{client: api.NewClient(base, hc), base: base, model: model}
}

// Model is the name of the model.
func (o *Ollama) Model() string { return o.model }

// Embed returns one vector per text. Its errors are *EmbedError values
// that say what to do: start Ollama, pull the model, or choose one that
// embeds.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	resp, err := o.client.Embed(ctx, &api.EmbedRequest{Model: o.model, Input: texts})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, o.explain(err)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, &EmbedError{Model: o.model, Problem: fmt.Sprintf("Ollama returned %d embeddings for %d texts", len(resp.Embeddings), len(texts))}
	}
	return resp.Embeddings, nil
}

func (o *Ollama) explain(err error) *EmbedError {
	e := &EmbedError{Model: o.model, Err: err}
	var (
		status api.StatusError
		dial   *net.OpError
	)
	switch {
	case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
		e.Problem = fmt.Sprintf("the embedding model %q is not pulled", o.model)
		e.Do = "run 'ollama pull " + o.model + "'"
	case errors.As(err, &status) && strings.Contains(status.ErrorMessage, "embed"):
		e.Problem = fmt.Sprintf("%q cannot embed: %s", o.model, status.ErrorMessage)
		e.Do = "use an embedding model, such as " + DefaultEmbedModel + " ('ollama pull " + DefaultEmbedModel + "')"
	case errors.As(err, &dial) && dial.Op == "dial":
		e.Problem = fmt.Sprintf("Ollama is not reachable at %s (%v)", o.base, dial.Err)
		e.Do = "start Ollama with 'ollama serve'"
	default:
		e.Problem = fmt.Sprintf("Ollama at %s could not embed with %q: %v", o.base, o.model, err)
	}
	return e
}
