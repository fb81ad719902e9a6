package mcp

import (
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/tools"
)

// A request from the side panel carries an Asker that refuses every ask,
// so that asks.go finds it before any run's call in flight.
func TestPanelRequestsAskNobody(t *testing.T) {
	opts := Options{}.withDefaults()
	s := newServer(t.Context(), ServerSpec{Name: "a", Command: "true"}, "a", opts, func() {})
	ctx, cancel := s.requestContext(t.Context(), "resources/read")
	defer cancel()
	a, err := s.asker(ctx, "elicitation/create")
	if err != nil {
		t.Fatal(err)
	}
	want := "toolscope asks nobody during a resources/read from the side panel"
	if _, err := a.Elicit(ctx, tools.Elicitation{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Elicit = %v, want %q", err, want)
	}
	if _, err := a.Sample(ctx, tools.SamplingRequest{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Sample = %v, want %q", err, want)
	}
}

// A sign-in from the page swaps a server's entry under h.mu while the
// side panel lists resources and prompts: with -race, this fails if the
// listings read h.servers without the lock, or hand it out.
func TestCatalogListingsWhileAServerIsReplaced(t *testing.T) {
	opts := Options{}.withDefaults()
	h := &Hub{opts: opts, logger: opts.Logger}
	for _, name := range []string{"a", "b"} {
		h.servers = append(h.servers, newServer(t.Context(), ServerSpec{Name: name, Command: "true"}, name, opts, func() {}))
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			s := newServer(t.Context(), ServerSpec{Name: "b", Command: "true"}, "b", opts, func() {})
			h.mu.Lock()
			h.servers[1] = s
			h.mu.Unlock()
		}
	})
	for range 200 {
		all, err := h.Resources("")
		if err != nil || len(all) != 2 || all[1].Server != "b" {
			t.Fatalf("Resources() = %+v, %v", all, err)
		}
		if _, err := h.Prompts("b"); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Resources("nowhere"); err == nil {
			t.Fatal("Resources(nowhere) found a server")
		}
	}
	close(done)
	wg.Wait()
}
