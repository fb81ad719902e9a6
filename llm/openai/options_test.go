package openai

import (
	"context"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
)

func ptr[T any](v T) *T { return &v }

var options = &llm.Sampling{Temperature: ptr(0.2), TopP: ptr(0.9), Stop: []string{"x", "<|im_end|>"}, Seed: ptr(int64(7)), MaxTokens: ptr(50)}

// checkSampling asserts that a request carries each of options' values,
// and want as its stop strings, in order.
func checkSampling(t *testing.T, r openaitest.Request, want []string) {
	t.Helper()
	if r.Temperature == nil || *r.Temperature != 0.2 || r.TopP == nil || *r.TopP != 0.9 || r.Seed == nil || *r.Seed != 7 || r.MaxTokens != "50" {
		t.Errorf("temperature %v, top_p %v, seed %v, max_tokens %q: want 0.2, 0.9, 7, 50", r.Temperature, r.TopP, r.Seed, r.MaxTokens)
	}
	if !slices.Equal(r.Stop, want) {
		t.Errorf("stop %q, want %q", r.Stop, want)
	}
}

func TestOptionsReachTheServer(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		t.Run(string(mode), func(t *testing.T) {
			server := openaitest.New(t)
			server.Reply(openaitest.Reply{Text: "4"})
			b := newBackend(t, Config{BaseURL: server.URL(), Mode: mode})
			req := conversation
			req.Options = options
			in, err := b.Prepare(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if in.Options != options {
				t.Errorf("Input.Options %+v, want the request's", in.Options)
			}
			if _, _, err := collect(t, b, in); err != nil {
				t.Fatal(err)
			}
			// Raw mode keeps the template's end of turn first, and sends
			// a stop string the request repeats once.
			want := []string{"x", "<|im_end|>"}
			if mode == llm.ModeRaw {
				tmpl, err := LoadTemplate("qwen3")
				if err != nil {
					t.Fatal(err)
				}
				want = append(slices.Clone(tmpl.Stop), "x")
			}
			checkSampling(t, server.Requests()[0], want)
		})
	}
}

func TestNoOptionsKeepTheServersDefaults(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		t.Run(string(mode), func(t *testing.T) {
			server := openaitest.New(t)
			server.Reply(openaitest.Reply{Text: "4"})
			b := newBackend(t, Config{BaseURL: server.URL(), Mode: mode})
			in, err := b.Prepare(context.Background(), conversation)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := collect(t, b, in); err != nil {
				t.Fatal(err)
			}
			r := server.Requests()[0]
			if r.Temperature != nil || r.TopP != nil || r.Seed != nil || in.Options != nil {
				t.Errorf("temperature %v, top_p %v, seed %v, Input.Options %+v: want none sent", r.Temperature, r.TopP, r.Seed, in.Options)
			}
			wantMax := map[llm.Mode]string{llm.ModeRaw: "null", llm.ModeChat: ""}[mode]
			if r.MaxTokens != wantMax {
				t.Errorf("max_tokens %q, want %q", r.MaxTokens, wantMax)
			}
		})
	}
}

func TestInfoNamesTheBaseURL(t *testing.T) {
	server := openaitest.New(t)
	b := newBackend(t, Config{BaseURL: server.URL(), Model: openaitest.DefaultModel})
	if got := b.Info().BaseURL; got != server.URL() {
		t.Errorf("Info().BaseURL %q, want %q", got, server.URL())
	}
}
