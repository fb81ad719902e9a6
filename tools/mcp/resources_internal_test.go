package mcp

import (
	"strings"
	"sync"
	"testing"
)

// An ask during a request from the side panel is refused, not handed to
// a run's call in flight, whose person or model has nothing to do with it.
func TestPanelRequestsAskNobody(t *testing.T) {
	opts := Options{}.withDefaults()
	s := newServer(t.Context(), ServerSpec{Name: "a", Command: "true"}, "a", opts, func() {})
	for _, method := range []string{"resources/read", "prompts/get"} {
		_, err := s.asker(askingRequest(t.Context(), method), "elicitation/create")
		if want := "not during " + method; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("an ask during %s: %v, want a refusal saying %q", method, err, want)
		}
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

// A server whose listing pages on and on is not listed to the end.
func TestCollectStopsAtTheLimit(t *testing.T) {
	endless := func(yield func(int, error) bool) {
		for i := 0; yield(i, nil); i++ {
		}
	}
	if _, err := collect(endless); err == nil || !strings.Contains(err.Error(), "lists more than 10000") {
		t.Errorf("collect of an endless listing: %v, want it refused", err)
	}
	two := func(yield func(int, error) bool) { _ = yield(7, nil) && yield(8, nil) }
	if got, err := collect(two); err != nil || len(got) != 2 {
		t.Errorf("collect of two items = %v, %v", got, err)
	}
}
