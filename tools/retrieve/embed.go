package retrieve

import (
	"context"
	"fmt"
	"math"
)

// Embedder turns texts into vectors whose cosine similarity says how close
// their meanings are.
type Embedder interface {
	// Model names the model, so that vectors of different models never
	// meet in the cache.
	Model() string
	// Embed returns one vector per text, in order. An error that a person
	// can fix should be an *EmbedError.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedError says why an embedder could not embed, and what would fix it.
type EmbedError struct {
	Model   string `json:"model"`
	Problem string `json:"problem"`      // what happened, in words
	Do      string `json:"do,omitempty"` // a step outside toolscope that fixes it, such as "run 'ollama pull all-minilm'"; "" when none is known
	Err     error  `json:"-"`            // the cause
}

func (e *EmbedError) Error() string {
	if e.Do == "" {
		return e.Problem
	}
	return e.Problem + ": " + e.Do
}

func (e *EmbedError) Unwrap() error { return e.Err }

// asEmbedError gives any error from an embedder the shape of an
// *EmbedError.
func asEmbedError(model string, err error) *EmbedError {
	if e, ok := err.(*EmbedError); ok {
		return e
	}
	return &EmbedError{Model: model, Problem: fmt.Sprintf("embedding with %q failed: %v", model, err), Err: err}
}

// vectors holds unit-length vectors one after another in one slice: the
// exact search below then reads memory in order, which is what makes it
// fast enough without an approximate index.
type vectors struct {
	dim  int
	data []float32
}

func (v *vectors) add(vec []float32) {
	if v.dim == 0 {
		v.dim = len(vec)
	}
	v.data = append(v.data, vec...)
}

// search returns the k vectors nearest to q (unit length) by cosine
// similarity, best first.
func (v *vectors) search(q []float32, k int) []hit {
	top := newTopK(k)
	if len(q) != v.dim {
		return nil
	}
	for i, off := 0, 0; off < len(v.data); i, off = i+1, off+v.dim {
		top.offer(i, float64(dot(q, v.data[off:off+v.dim])))
	}
	return top.sorted()
}

// dot is unrolled by four with separate sums, which lets the CPU run the
// multiplications side by side.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// normalize scales vec to unit length in place, so that a dot product is
// the cosine similarity.
func normalize(vec []float32) []float32 {
	var sum float64
	for _, x := range vec {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return vec
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range vec {
		vec[i] *= inv
	}
	return vec
}
