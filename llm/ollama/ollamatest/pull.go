package ollamatest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ollama/ollama/api"
)

// Pull scripts how the server answers a pull of one model. It streams what
// Ollama 0.17.4 streams: "pulling manifest", then each layer's progress
// ("pulling 3e4cb1417446" with its digest, total and bytes completed),
// then "verifying sha256 digest", "writing manifest" and "success", after
// which the model is listed by /api/tags. A model with no Pull is not in
// the registry: the pull fails as Ollama's does.
type Pull struct {
	// Layers are the sizes in bytes of the model's blobs, pulled in turn.
	Layers []int64
	// Steps is how many progress lines each layer takes, the first with
	// nothing completed and the last with all of it; 0 means 4.
	Steps int
	// Model is what the server knows once the pull succeeds; the zero
	// value is a Qwen3 model like the one New knows.
	Model Model
	// Error, when set, takes the place of the line numbered FailAfter
	// (counting from 1, "pulling manifest" being the first; 0 means the
	// place of "writing manifest", as when a digest does not match): an
	// {"error": Error} line ends the stream, as when Ollama's download
	// fails.
	Error     string
	FailAfter int
	// WaitAfter, when more than 0, holds the stream after that many lines
	// until Release is closed or the client goes away; with Release nil,
	// until the client goes: a pull to cancel.
	WaitAfter int
	Release   <-chan struct{}
	// Pace is the wait between lines, as a download takes its time.
	Pace time.Duration
	// Ended, if non-nil, is closed when the request ends, by the client
	// going away or the stream's end: it lets a test see that a
	// cancellation reached Ollama.
	Ended chan struct{}
}

// NotInRegistry is what Ollama 0.17.4 streams when the registry has no
// such model: after "pulling manifest", this error.
const NotInRegistry = "pull model manifest: file does not exist"

// AddPull lets clients pull name as p scripts.
func (s *Server) AddPull(name string, p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pulls == nil {
		s.pulls = map[string]Pull{}
	}
	s.pulls[name] = p
}

// Pulled lists the models asked for on /api/pull so far, in order.
func (s *Server) Pulled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pulled)
}

func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	var req api.PullRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := cmp.Or(req.Model, req.Name)
	s.mu.Lock()
	s.pulled = append(s.pulled, name)
	p, known := s.pulls[name]
	s.mu.Unlock()
	if !known {
		p = Pull{Error: NotInRegistry, FailAfter: 2}
	}
	if p.Ended != nil {
		context.AfterFunc(r.Context(), func() { close(p.Ended) })
	}
	lines := p.lines(name)
	fail := len(lines) - 2 // the line before "writing manifest"
	if p.FailAfter > 0 {
		fail = min(p.FailAfter-1, fail)
	}
	st := stream{rc: http.NewResponseController(w), enc: json.NewEncoder(w)}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	for i, line := range lines {
		if !s.pause(r.Context(), p, i) {
			return
		}
		if p.Error != "" && i == fail {
			_ = st.send(map[string]string{"error": p.Error})
			return
		}
		if line.Status == "success" {
			s.AddModel(name, p.pulledModel())
		}
		if st.send(line) != nil {
			return // the client is gone
		}
	}
}

// pause waits before line i as p says: its pace, and its hold. It reports
// false when the client went away meanwhile.
func (s *Server) pause(ctx context.Context, p Pull, i int) bool {
	if i > 0 && p.Pace > 0 {
		select {
		case <-time.After(p.Pace):
		case <-ctx.Done():
			return false
		}
	}
	if p.WaitAfter > 0 && i == p.WaitAfter {
		select {
		case <-p.Release: // nil: never
		case <-ctx.Done():
			return false
		case <-s.closed:
			return false
		}
	}
	return true
}

// pulledModel is the model the server knows once the pull succeeds.
func (p Pull) pulledModel() Model {
	if p.Model.Template == "" && p.Model.Renderer == "" {
		return qwen3()
	}
	return p.Model
}

// lines are the progress lines of a whole pull of name.
func (p Pull) lines(name string) []api.ProgressResponse {
	steps := cmp.Or(p.Steps, 4)
	lines := []api.ProgressResponse{{Status: "pulling manifest"}}
	for i, size := range p.Layers {
		digest := layerDigest(name, i)
		for k := range steps {
			lines = append(lines, api.ProgressResponse{
				Status: "pulling " + digest[7:19], Digest: digest, Total: size, Completed: size * int64(k) / int64(max(steps-1, 1)),
			})
		}
	}
	return append(lines,
		api.ProgressResponse{Status: "verifying sha256 digest"},
		api.ProgressResponse{Status: "writing manifest"},
		api.ProgressResponse{Status: "success"})
}

// layerDigest is a made-up digest in Ollama's form, "sha256:" and 64 hex
// digits, the same for the same model and layer.
func layerDigest(model string, layer int) string {
	sum := sha256.Sum256([]byte(model + "\x00" + strconv.Itoa(layer)))
	return "sha256:" + hex.EncodeToString(sum[:])
}
