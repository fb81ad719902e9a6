package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/toolscope/toolscope/llm"
)

// explain turns an error from Ollama's client, in the call op, into an
// *llm.Error that says what happened and what to do next. The original
// error stays reachable with errors.Is and errors.As.
func (b *Backend) explain(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var (
		status api.StatusError
		auth   api.AuthorizationError
		dial   *net.OpError
	)
	e := &llm.Error{Op: op, Err: err}
	switch {
	case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
		return b.notPulled(op, err)
	case errors.As(err, &status) && strings.Contains(status.ErrorMessage, "context length"):
		e.Problem = answered(status.StatusCode, status.ErrorMessage) + ": the conversation no longer fits the model's context"
		e.Fix = &llm.Fix{Do: "start a new conversation, or give Ollama a larger context (OLLAMA_CONTEXT_LENGTH=16384 ollama serve)"}
	case errors.As(err, &status):
		e.Problem = answered(status.StatusCode, status.ErrorMessage)
	case errors.As(err, &auth):
		e.Problem = answered(auth.StatusCode, "")
		e.Fix = &llm.Fix{Do: "sign in with 'ollama signin'"}
	case errors.As(err, &dial) && dial.Op == "dial":
		e.Problem = fmt.Sprintf("Ollama is not reachable at %s (%v)", b.BaseURL(), dial.Err)
		e.Fix = &llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"}
	default:
		e.Problem = fmt.Sprintf("Ollama at %s failed: %v", b.BaseURL(), err)
		e.Fix = &llm.Fix{Do: "look in Ollama's server log for more"}
	}
	return e
}

// ErrNotPulled is the cause of an error that says Ollama answers but lacks
// the model: what a pull (Backend.Pull) fixes. errors.Is finds it.
var ErrNotPulled = errors.New("the model is not pulled")

// notPulled reports that the server does not have the model.
func (b *Backend) notPulled(op string, err error) error {
	return &llm.Error{Op: op, Problem: fmt.Sprintf("model %q is not pulled", b.model),
		Fix: &llm.Fix{Do: "run 'ollama pull " + b.model + "'", Setting: llm.SettingModel}, Err: errors.Join(ErrNotPulled, err)}
}

func answered(code int, msg string) string {
	s := fmt.Sprintf("Ollama answered %d %s", code, http.StatusText(code))
	if msg != "" {
		s += ": " + msg
	}
	return s
}
