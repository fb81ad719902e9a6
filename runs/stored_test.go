package runs

import (
	"slices"
	"sync"
	"testing"
)

// memArchive is an Archive in memory: it keeps each run as it finished.
type memArchive struct {
	mu   sync.Mutex
	runs []Stored // oldest first
}

func (a *memArchive) Started(*Run) {}

func (a *memArchive) Finished(r *Run) {
	res, ended, _ := r.Outcome()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs = append(a.runs, Stored{Summary: r.Summary(), ConversationID: r.ConversationID, Result: res, Ended: ended, Events: r.Log()})
}

func (a *memArchive) Load(id string) (*Run, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.runs {
		if s.ID == id {
			return Restore(s), nil
		}
	}
	return nil, ErrNoRun
}

func (a *memArchive) Find(string, int) ([]Summary, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var list []Summary
	for _, s := range slices.Backward(a.runs) {
		list = append(list, s.Summary)
	}
	return list, nil
}

func (a *memArchive) Status() History { return History{On: true} }

// TestStoredRunsSaySo: a run the Hub dropped, or that an earlier Hub ran,
// comes from the Archive and says so, in its Summary, in the Hub's list
// and in its Snapshot; a run the Hub keeps in memory does not, though
// the Archive holds it too.
func TestStoredRunsSaySo(t *testing.T) {
	archive := &memArchive{}
	h := NewHub(1)
	h.SetArchive(archive)
	a := newAgent(t)
	var ids []string
	for range 2 {
		r, err := h.Start(Spec{Message: request, Agent: a})
		if err != nil {
			t.Fatal(err)
		}
		all(r)
		ids = append(ids, r.ID)
	}
	h.Close() // every run has been retired, the first one dropped
	dropped, kept := ids[0], ids[1]

	check := func(h *Hub, stored map[string]bool) {
		t.Helper()
		list, err := h.Find("", 0)
		if err != nil || len(list) != 2 {
			t.Fatalf("Find = %v, %v; want the 2 runs", list, err)
		}
		for _, s := range list {
			if s.Stored != stored[s.ID] {
				t.Errorf("Find lists run %s with Stored %v, want %v", s.ID, s.Stored, stored[s.ID])
			}
		}
		for id, want := range stored {
			r, err := h.Get(id)
			if err != nil {
				t.Fatalf("Get(%s): %v", id, err)
			}
			if sum, snap := r.Summary(), r.Snapshot(); sum.Stored != want || snap.Stored != want || !snap.Started.Equal(sum.Started) {
				t.Errorf("run %s: Summary Stored %v, Snapshot Stored %v started %v (summary: %v); want Stored %v",
					id, sum.Stored, snap.Stored, snap.Started, sum.Started, want)
			}
		}
	}
	check(h, map[string]bool{dropped: true, kept: false})

	// A server started again holds nothing in memory.
	again := NewHub(1)
	defer again.Close()
	again.SetArchive(archive)
	check(again, map[string]bool{dropped: true, kept: true})
}

// A run the Hub keeps that the Archive finds by what only the Archive
// searches (an answer, a model, a tool) is listed once, as the Hub has
// it: not as stored.
func TestFindListsAKeptRunAsKept(t *testing.T) {
	archive := &memArchive{} // its Find finds every run
	h := NewHub(4)
	h.SetArchive(archive)
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	all(r)
	h.Close() // the Archive has been told the run finished
	list, err := h.Find("send_mail", 0)
	if err != nil || len(list) != 1 || list[0].ID != r.ID || list[0].Stored {
		t.Fatalf("Find(send_mail) = %+v, %v; want the kept run once, not stored", list, err)
	}
}
