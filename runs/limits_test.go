package runs

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tools"
)

func TestLiveRunsAreCapped(t *testing.T) {
	h := NewHub(10, Limits{MaxLive: 2})
	defer h.Close()
	_, g1 := startHeld(t, h)
	_, g2 := startHeld(t, h)
	if _, err := h.Start(Spec{Message: request, Agent: newAgent(t)}); !errors.Is(err, ErrTooManyRuns) {
		t.Fatalf("a third live run: err = %v, want ErrTooManyRuns", err)
	}
	g1.Release()
	g2.Release()
	h.wg.Wait()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatalf("once the runs ended: %v", err)
	}
	all(r)
}

// A run that outgrows its limits is stopped, and says so in its events.
func TestRunsAreStoppedAtTheirLimits(t *testing.T) {
	for name, limits := range map[string]Limits{
		"events": {MaxRunEvents: 10},
		"bytes":  {MaxRunBytes: 2000},
	} {
		t.Run(name, func(t *testing.T) {
			h := NewHub(10, limits)
			defer h.Close()
			r, err := h.Start(Spec{Message: request + strings.Repeat(" and more", 50), Agent: newAgent(t)})
			if err != nil {
				t.Fatal(err)
			}
			events := all(r)
			n := len(events)
			if n > 10 && name == "events" {
				t.Errorf("%d events recorded, want at most 10", n)
			}
			for i, e := range events {
				if e.Seq != i+1 {
					t.Fatalf("event %d has seq %d: replay must be gapless", i, e.Seq)
				}
			}
			stop, last := events[n-2], events[n-1]
			var le *LimitError
			if stop.Type != agent.Error || !strings.Contains(stop.Error, "the run was stopped") || last.Type != agent.RunFinished {
				t.Fatalf("the run ends with %+v, %+v; want the limit's error, then run_finished", stop, last)
			}
			if snap := r.Snapshot(); !snap.Done || !errors.As(r.result.Err, &le) || le.Limit != name {
				t.Fatalf("snapshot %+v, error %v; want a *LimitError on %s", snap, r.result.Err, name)
			}
		})
	}
}

func TestKeptRunsAreBoundedInBytes(t *testing.T) {
	h := NewHub(100, Limits{KeepBytes: 250 << 10})
	defer h.Close()
	var kept []*Run
	for range 5 {
		r, err := h.Start(Spec{Message: "hello " + strings.Repeat("x", 50<<10), Agent: newAgent(t)})
		if err != nil {
			t.Fatal(err)
		}
		all(r)
		kept = append(kept, r)
	}
	h.wg.Wait()
	if h.keptBytes > 250<<10 {
		t.Errorf("%d bytes kept, more than the limit", h.keptBytes)
	}
	if _, err := h.Get(kept[4].ID); err != nil {
		t.Error("the newest run was dropped")
	}
	if _, err := h.Get(kept[0].ID); err == nil {
		t.Error("the oldest run was kept past the byte limit")
	}
}

func TestShutdownDoesNotWaitForeverForARun(t *testing.T) {
	started, stuck := make(chan struct{}), make(chan struct{})
	defer close(stuck)
	deaf := tools.Func("send_mail", "Ignores cancellation.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, struct{}) (string, error) { close(started); <-stuck; return "sent", nil })
	h := NewHub(10)
	if _, err := h.Start(Spec{Message: request, Agent: newAgent(t, deaf)}); err != nil {
		t.Fatal(err)
	}
	// Cancelled before the tool, the run would end at once, as it should.
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown = %v, want the context's error", err)
	}
}

func TestOnIdleWhenTheLastRunEnds(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	idle := make(chan struct{}, 10)
	h.OnIdle(func() { idle <- struct{}{} })
	_, g1 := startHeld(t, h)
	_, g2 := startHeld(t, h)
	g1.Release()
	for h.Live() > 1 {
		runtime.Gosched()
	}
	select {
	case <-idle:
		t.Fatal("OnIdle ran while a run was still in progress")
	default:
	}
	g2.Release()
	<-idle // the test times out if it never comes
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Minute: "30m", 2 * time.Hour: "2h", 90 * time.Minute: "1h30m",
		90 * time.Second: "1m30s", 20 * time.Second: "20s", 20 * time.Millisecond: "20ms",
	} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// Build runs only for an admitted run; a run whose Build fails gives its
// place and its new conversation back.
func TestBuildRunsOnceTheRunIsAdmitted(t *testing.T) {
	h := NewHub(10, Limits{MaxLive: 1})
	defer h.Close()
	_, g := startHeld(t, h)
	built := false
	build := func() (*agent.Agent, error) { built = true; return newAgent(t), nil }
	if _, err := h.Start(Spec{Message: request, Build: build}); !errors.Is(err, ErrTooManyRuns) || built {
		t.Fatalf("with the one place taken: err = %v, built = %v; want ErrTooManyRuns before any building", err, built)
	}
	g.Release()
	h.wg.Wait()

	broken := errors.New("the tools do not compile")
	convs := len(h.convs)
	if _, err := h.Start(Spec{Message: request, Build: func() (*agent.Agent, error) { return nil, broken }}); err != broken {
		t.Fatalf("a failed Build: err = %v, want its own", err)
	}
	if h.Live() != 0 || len(h.convs) != convs {
		t.Fatalf("a run that never started holds %d places and left %d conversations, want 0 and %d", h.Live(), len(h.convs), convs)
	}
	r, err := h.Start(Spec{Message: request, Build: build})
	if err != nil || !built {
		t.Fatalf("once admitted: err = %v, built = %v", err, built)
	}
	all(r)
}
