// Package retrievetest provides test doubles for tool retrieval: a
// deterministic stand-in embedder, a server that answers Ollama's
// /api/embed with it through the real client, an MCP server with a large
// catalogue, and readers for the catalogue and labelled requests kept in
// tools/retrieve/testdata.
package retrievetest

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"os"
	"strings"
	"unicode"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/catalogue"
)

// StandIn is a deterministic stand-in for an embedding model, NOT a
// language model: it hashes a text's words and their character trigrams
// into Dim buckets (the hashing trick), so texts that share words or
// word pieces come out close. It knows no synonyms. Recall measured with
// it says how the embedding path behaves, not how MiniLM would rank.
type StandIn struct{ Dim int }

// Model names the stand-in, so its vectors never mix with a real model's.
func (s StandIn) Model() string { return "stand-in-hashing" }

// Embed returns one vector per text; it never fails.
func (s StandIn) Embed(_ context.Context, texts []string) ([][]float32, error) {
	dim := s.Dim
	if dim <= 0 {
		dim = 384 // MiniLM's, so that benchmarks cost what MiniLM's vectors cost
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			bump(v, "w:"+w, 2)
			padded := "^" + w + "$"
			for j := 0; j+3 <= len(padded); j++ {
				bump(v, padded[j:j+3], 1)
			}
		}
		out[i] = v
	}
	return out, nil
}

func bump(v []float32, feature string, weight float32) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	sum := h.Sum64()
	if sum>>63 == 1 {
		weight = -weight // signed hashing: collisions cancel rather than pile up
	}
	v[sum%uint64(len(v))] += weight
}

// Request is a labelled request: the tool that should be offered for it.
type Request struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

// ReadCatalogue reads a catalogue file, a JSON array of tools in the
// shape of MCP's tools/list.
func ReadCatalogue(path string) ([]*catalogue.Tool, error) {
	var ts []*catalogue.Tool
	return ts, readJSON(path, &ts)
}

// ReadRequests reads a file of labelled requests.
func ReadRequests(path string) ([]Request, error) {
	var rs []Request
	return rs, readJSON(path, &rs)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// AsTools returns ts as tools.Tool values.
func AsTools(ts []*catalogue.Tool) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}
