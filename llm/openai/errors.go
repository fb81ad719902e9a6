package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/toolscope/toolscope/llm"
)

// explain turns an error from the SDK, in the call op, into an *llm.Error
// that says what happened and what to do next. The original error stays
// reachable with errors.Is and errors.As.
func (b *Backend) explain(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var (
		api    *openai.Error
		stream *ssestream.StreamError
		dial   *net.OpError
	)
	e := &llm.Error{Op: op, Err: err}
	switch {
	case errors.As(err, &api) && api.StatusCode == http.StatusUnauthorized:
		e.Problem = answered(api) + ": the API key was refused"
		e.Fix = &llm.Fix{Do: "give the key the server was started with (vllm serve … --api-key KEY)", Setting: SettingAPIKey}
	case errors.As(err, &api) && api.StatusCode == http.StatusNotFound && op != "check":
		model, _ := b.modelName()
		return b.unknownModel(op, model, b.served(ctx), err)
	case errors.As(err, &api) && tooLong(api.Message):
		e.Problem = answered(api) + ": the conversation no longer fits the model's context"
		e.Fix = &llm.Fix{Do: "start a new conversation, or serve the model with a longer context (vllm serve … --max-model-len 32768)"}
	case errors.As(err, &api):
		e.Problem = answered(api)
		e.Fix = &llm.Fix{Do: "look in the server's log at " + b.base}
	case errors.As(err, &stream):
		e.Problem = fmt.Sprintf("the server at %s failed mid-reply: %s", b.base, stream.Message)
		e.Fix = &llm.Fix{Do: "look in the server's log"}
	case errors.As(err, &dial) && dial.Op == "dial":
		e.Problem = fmt.Sprintf("no OpenAI-compatible server is reachable at %s (%v)", b.base, dial.Err)
		e.Fix = &llm.Fix{Do: "start the server, e.g. 'vllm serve Qwen/Qwen3-4B'", Setting: SettingBaseURL}
	default:
		e.Problem = fmt.Sprintf("the server at %s failed: %v", b.base, err)
		e.Fix = &llm.Fix{Do: "look in the server's log"}
	}
	return e
}

// tooLong tells a prompt longer than the context by its wording: vLLM's
// "maximum context length", llama-server's "exceeds the available context
// size".
func tooLong(msg string) bool {
	return strings.Contains(msg, "maximum context length") || strings.Contains(msg, "context size") || strings.Contains(msg, "context length")
}

// served lists the served models for an error message, briefly, and
// nothing when the server will not say.
func (b *Backend) served(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	ids, _ := b.Models(ctx)
	return ids
}

// unknownModel reports a model the server does not serve, naming those it
// does.
func (b *Backend) unknownModel(op, model string, served []string, err error) error {
	problem := fmt.Sprintf("the server at %s does not serve model %q", b.base, model)
	if len(served) > 0 {
		problem += "; it serves " + strings.Join(served, ", ")
	}
	return &llm.Error{Op: op, Problem: problem, Fix: &llm.Fix{Setting: llm.SettingModel}, Err: err}
}

func answered(e *openai.Error) string {
	s := fmt.Sprintf("the server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// wrapBareErrors puts an error body into the shape {"error": {"message":
// …}}, the only one the SDK reads: with any other it reports a JSON error
// and loses the status code. vLLM before 0.10 sends {"object": "error",
// "message": …} bare, its 401 is {"error": "Unauthorized"}, and proxies
// send text.
func wrapBareErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	var msg string
	switch {
	case json.Unmarshal(body, &probe) != nil:
		body = wrapped(map[string]string{"message": strings.TrimSpace(string(body))})
	case probe["error"] == nil:
		body = wrapped(probe)
	case json.Unmarshal(probe["error"], &msg) == nil:
		body = wrapped(map[string]string{"message": msg}) // vLLM's 401: {"error": "Unauthorized"}
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	return res, nil
}

func wrapped(v any) []byte {
	b, _ := json.Marshal(map[string]any{"error": v})
	return b
}
