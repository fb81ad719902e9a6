package runs

import "testing"

// TestLatestIsTheNewestRunStarted: none before the first run; then the
// newest started, though an older one is still going; and once that one
// is evicted, the newest kept.
func TestLatestIsTheNewestRunStarted(t *testing.T) {
	h := NewHub(1)
	defer h.Close()
	if r, ok := h.Latest(); ok || r != nil {
		t.Fatalf("Latest before any run = %v, %v", r, ok)
	}
	held, g := startHeld(t, h)
	quick, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	all(quick)
	if r, ok := h.Latest(); !ok || r != quick {
		t.Fatalf("Latest = %v, want the newer run %s, not %s", r, quick.ID, held.ID)
	}
	// Keeping one run, the hub evicts the first to finish once the last
	// has ended: it goes idle in the same step, under the lock Get takes.
	idle := make(chan struct{})
	h.OnIdle(func() { close(idle) })
	g.Release()
	<-idle
	if _, err := h.Get(quick.ID); err == nil {
		t.Fatalf("run %s was not evicted", quick.ID)
	}
	if r, ok := h.Latest(); !ok || r != held {
		t.Fatalf("Latest after eviction = %v, want the newest kept, %s", r, held.ID)
	}
}

// Latest with sources skips the runs that came from elsewhere: a viewer
// follows the page's runs, not an app's calls to the API.
func TestLatestFromASource(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	page, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	all(page)
	if _, ok := h.Latest(SourceAPI); ok {
		t.Fatal("Latest(SourceAPI) found a run before any came from the API")
	}
	api, err := h.Start(Spec{Message: request, Agent: newAgent(t), Source: SourceAPI})
	if err != nil {
		t.Fatal(err)
	}
	all(api)
	if r, ok := h.Latest(SourcePage); !ok || r != page {
		t.Errorf("Latest(SourcePage) = %v, want the page's run %s", r, page.ID)
	}
	if r, ok := h.Latest(); !ok || r != api {
		t.Errorf("Latest() = %v, want the newest run %s", r, api.ID)
	}
	if r, ok := h.Latest(SourcePage, SourceAPI); !ok || r != api {
		t.Errorf("Latest(SourcePage, SourceAPI) = %v, want the newest run %s", r, api.ID)
	}
}
