package mcpbridge

import (
	"bytes"
	"slices"
	"testing"
)

// A stream holds at most maxQueued bytes for a client that does not read
// them: the oldest go, and the first drop is reported, once.
func TestAStreamDropsTheOldestPastItsBound(t *testing.T) {
	st := standingStream()
	var reports []bool
	for i := range 5 {
		reports = append(reports, st.push(bytes.Repeat([]byte{byte('a' + i)}, maxQueued/3), false)) // three fit
	}
	if want := []bool{false, false, false, true, false}; !slices.Equal(reports, want) {
		t.Errorf("drops reported = %v, want %v", reports, want)
	}
	var kept []byte
	for data, _ := st.next(); data != nil; data, _ = st.next() {
		kept = append(kept, data[0])
	}
	if string(kept) != "cde" {
		t.Errorf("kept the messages %q, want the newest, cde", kept)
	}
}
