package mcp

import (
	"sync"
	"testing"
)

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
