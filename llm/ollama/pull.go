package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/format"

	"github.com/toolscope/toolscope/llm"
)

// DefaultModelSize is about what pulling DefaultModel downloads, for a
// person deciding whether to: Ollama's library lists qwen3:4b at 2.5 GB.
// Ollama tells a model's size only once its pull has begun.
const DefaultModelSize = 2_500_000_000

// SizeHint words what pulling model downloads, as "2.5 GB", when toolscope
// knows it (the default model's); "" otherwise.
func SizeHint(model string) string {
	if model != DefaultModel {
		return ""
	}
	return Bytes(DefaultModelSize)
}

// Bytes words a size as Ollama's own command line does: "2.5 GB",
// "523 MB".
func Bytes(n int64) string { return format.HumanBytes(n) }

// Progress is how far a pull has come, over all the model's layers.
type Progress struct {
	// Status is Ollama's word for the step under way: "pulling manifest",
	// "pulling 3e4cb1417446" (a layer, by its digest), "verifying sha256
	// digest", "writing manifest", and "success" at the end.
	Status string
	// Layer is the digest of the layer that Status is about; "" for the
	// other steps.
	Layer string
	// Completed and Total count bytes, summed over the layers Ollama has
	// begun: it announces each layer as it starts it, so Total grows as a
	// pull goes on (the weights, by far the largest, come first).
	Completed, Total int64
	// Speed is in bytes a second, over the last few seconds (speedWindow)
	// rather than since the start, so that it follows a network that
	// slows down; 0 until there is a second's worth to tell it from, and
	// in the steps that are not a layer's.
	Speed float64
	// Left is how long the rest takes at Speed; 0 when unknown.
	Left time.Duration
}

// String words the progress for a person: "1.1 GB of 2.5 GB, 12 MB/s,
// 2m10s left" while the bytes come, then "2.5 GB of 2.5 GB"; before the
// first layer, Ollama's status.
func (p Progress) String() string {
	if p.Total == 0 {
		return p.Status
	}
	s := Bytes(p.Completed) + " of " + Bytes(p.Total)
	if p.Completed == p.Total {
		return s
	}
	if p.Speed > 0 {
		s += ", " + Bytes(int64(p.Speed)) + "/s"
	}
	if p.Left > 0 {
		s += ", " + roughly(p.Left) + " left"
	}
	return s
}

// roughly words d to the second under an hour (a second at least: a pull
// not done has time left), to the minute above.
func roughly(d time.Duration) string {
	if d < time.Hour {
		return max(d.Round(time.Second), time.Second).String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

// Pull has Ollama pull the backend's model from its registry, calling fn
// with the progress as Ollama reports it (every 60 ms or so while a layer
// downloads). Ending ctx ends the request, and Ollama stops a pull whose
// client has gone; Pull then returns ctx's error. Its other errors are
// *llm.Error values that say what to do next: a name the registry does not
// know, an Ollama that is not running, or one that cannot reach the
// registry.
func (b *Backend) Pull(ctx context.Context, fn func(Progress)) error {
	var (
		layers = map[string]api.ProgressResponse{} // by digest
		speed  meter
		p      Progress
	)
	err := b.client.Pull(ctx, &api.PullRequest{Model: b.model}, func(r api.ProgressResponse) error {
		p.Status, p.Layer = r.Status, r.Digest
		p.Speed, p.Left = 0, 0 // only a layer's progress moves bytes
		if r.Digest != "" {
			layers[r.Digest] = r
			p.Completed, p.Total = 0, 0
			for _, l := range layers {
				p.Completed += l.Completed
				p.Total += l.Total
			}
			p.Speed = speed.add(time.Now(), p.Completed)
		}
		if p.Speed > 0 && p.Completed < p.Total {
			p.Left = time.Duration(float64(p.Total-p.Completed) / p.Speed * float64(time.Second))
		}
		fn(p)
		return nil
	})
	switch {
	case err != nil:
		return b.explainPull(ctx, err)
	case ctx.Err() != nil:
		// Ollama's client ends quietly when its stream is cut.
		return ctx.Err()
	case p.Status != "success":
		return b.explainPull(ctx, fmt.Errorf("the stream ended at %q, before success", p.Status))
	}
	return nil
}

// speedWindow is how far back Progress.Speed looks: long enough to smooth
// the bursts of a download, short enough to follow a change of pace.
// minSpan is the least time it measures over: less says little.
const (
	speedWindow = 5 * time.Second
	minSpan     = time.Second
)

// meter measures a speed over a moving window of samples.
type meter struct {
	samples []sample // oldest first; the first at or before the window's start
}

type sample struct {
	at    time.Time
	bytes int64
}

// add records that bytes were done at the time at, and returns the speed
// over the window that ends then: bytes a second, 0 while the samples
// span less than minSpan.
func (m *meter) add(at time.Time, bytes int64) float64 {
	m.samples = append(m.samples, sample{at, bytes})
	drop := 0
	for drop+1 < len(m.samples) && at.Sub(m.samples[drop+1].at) >= speedWindow {
		drop++
	}
	m.samples = m.samples[drop:]
	first := m.samples[0]
	span := at.Sub(first.at)
	if span < minSpan {
		return 0
	}
	return float64(bytes-first.bytes) / span.Seconds()
}

// explainPull turns an error of a pull into an *llm.Error that says what
// to do. An error Ollama streams in place of progress comes from its own
// download, worded by Ollama; the others are about reaching Ollama, as
// for any call.
func (b *Backend) explainPull(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var (
		status api.StatusError
		auth   api.AuthorizationError
		reach  *url.Error
	)
	isStatus := errors.As(err, &status)
	if isStatus && status.StatusCode == http.StatusNotFound {
		return b.notInRegistry(err)
	}
	if isStatus || errors.As(err, &auth) || errors.As(err, &reach) {
		e := b.explain(ctx, "pull", err).(*llm.Error)
		if e.Fix != nil && e.Fix.Setting == llm.SettingBackend {
			// The demo model is no answer to a pull.
			e.Fix = &llm.Fix{Do: e.Fix.Do}
		}
		return e
	}
	e := &llm.Error{Op: "pull", Err: err}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file does not exist"): // the registry answered 404 for the manifest
		return b.notInRegistry(err)
	case offline(msg):
		e.Problem = fmt.Sprintf("Ollama at %s cannot reach its registry to pull %q (%s)", b.BaseURL(), b.model, msg)
		e.Fix = &llm.Fix{Do: "connect the machine Ollama runs on to the internet (behind a proxy, start Ollama with HTTPS_PROXY set)"}
	case strings.Contains(msg, "no space left"):
		e.Problem = fmt.Sprintf("Ollama ran out of disk space pulling %q (%s)", b.model, msg)
		e.Fix = &llm.Fix{Do: "free some space where Ollama keeps its models (OLLAMA_MODELS, by default ~/.ollama/models)"}
	default:
		e.Problem = fmt.Sprintf("Ollama could not pull %q: %s", b.model, msg)
		e.Fix = &llm.Fix{Do: "try again; Ollama's server log says more"}
	}
	return e
}

// notInRegistry reports a model the registry does not have.
func (b *Backend) notInRegistry(err error) error {
	return &llm.Error{Op: "pull", Problem: fmt.Sprintf("model %q was not found in Ollama's registry", b.model),
		Fix: &llm.Fix{Do: "check its name at https://ollama.com/search"}, Err: err}
}

// offline reports whether an error Ollama streamed says that it could not
// reach the registry, in Go's words for a network that fails.
func offline(msg string) bool {
	for _, sign := range []string{"dial tcp", "no such host", "network is unreachable", "i/o timeout",
		"connection refused", "connection reset", "server misbehaving", "TLS handshake timeout", "Client.Timeout"} {
		if strings.Contains(msg, sign) {
			return true
		}
	}
	return false
}
