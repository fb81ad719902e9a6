package engine

import (
	"fmt"
	"testing"
)

func TestBackendCacheSharesAndIsBounded(t *testing.T) {
	c := newBackendCache(3)
	key := func(model string) backendKey { return backendKey{backend: BackendOllama, model: model, mode: "raw"} }
	first, err := c.get(key("a"))
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.get(key("a")); again != first {
		t.Fatal("the same settings got a second backend")
	}
	if other, _ := c.get(key("b")); other == first {
		t.Fatal("another model got the same backend")
	}
	c.get(key("a")) // used last, so kept
	for i := range 5 {
		c.get(key(fmt.Sprint("m", i)))
		if len(c.byKey) > 3 || len(c.order) != len(c.byKey) {
			t.Fatalf("the cache holds %d backends (%d in order), more than its bound", len(c.byKey), len(c.order))
		}
	}
	if again, _ := c.get(key("a")); again == first {
		t.Fatal("the least recently used backend was never dropped")
	}
	if _, err := c.get(backendKey{backend: BackendAuto}); err == nil {
		t.Fatal("an unsettled backend was built")
	}
}

func TestDemoBackendIgnoresOllamaSettings(t *testing.T) {
	e := &Engine{backends: newBackendCache(maxBackends)}
	e.settled.Store(&settled{})
	a, _ := e.backend(Settings{Backend: BackendDemo, Model: "x", Mode: "raw"})
	b, _ := e.backend(Settings{Backend: BackendDemo, Model: "y", Mode: "chat"})
	if a != b {
		t.Fatal("the demo model, which has one model and one mode, was built twice")
	}
}
