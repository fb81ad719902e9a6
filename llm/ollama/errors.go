package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// explain turns an error from Ollama's client into one that says what
// happened and what to do next. The original error stays reachable with
// errors.Is and errors.As.
func (b *Backend) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var (
		status api.StatusError
		auth   api.AuthorizationError
		dial   *net.OpError
	)
	switch {
	case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
		return &hintError{fmt.Sprintf("model %q is not pulled — run 'ollama pull %s'", b.model, b.model), err}
	case errors.As(err, &status) && strings.Contains(status.ErrorMessage, "context length"):
		return &hintError{answered(status.StatusCode, status.ErrorMessage) +
			" — the conversation no longer fits the model's context: start a new conversation, or give Ollama a larger one (OLLAMA_CONTEXT_LENGTH=16384 ollama serve)", err}
	case errors.As(err, &status):
		return &hintError{answered(status.StatusCode, status.ErrorMessage), err}
	case errors.As(err, &auth):
		return &hintError{answered(auth.StatusCode, "sign in with 'ollama signin'"), err}
	case errors.As(err, &dial) && dial.Op == "dial":
		return &hintError{fmt.Sprintf("Ollama is not reachable at %s (%v) — start it with 'ollama serve', or run with --backend demo", b.BaseURL(), dial.Err), err}
	default:
		return fmt.Errorf("Ollama at %s failed: %w — its server log may say more", b.BaseURL(), err)
	}
}

func answered(code int, msg string) string {
	s := fmt.Sprintf("Ollama answered %d %s", code, http.StatusText(code))
	if msg != "" {
		s += ": " + msg
	}
	return s
}

// hintError replaces an error's message with one that tells the user what
// to do, keeping the original for errors.Is and errors.As.
type hintError struct {
	msg string
	err error
}

func (e *hintError) Error() string { return e.msg }
func (e *hintError) Unwrap() error { return e.err }
