package engine_test

import (
	"testing"

	"github.com/toolscope/toolscope/engine"
)

// A number's bounds are given in its JSON's unit, as a request sends it:
// milliseconds for a duration, rounded inward so that a bound given is
// one that holds.
func TestBoundsAreInTheUnitOfTheKey(t *testing.T) {
	for name, want := range map[engine.Setting][2]int64{
		engine.SettingMaxRounds:   {1, 50},
		engine.SettingToolDelay:   {0, 60000},
		engine.SettingToolTimeout: {1, 0}, // more than 0ns: at least 1ms
		engine.SettingToolsTopK:   {engine.ToolsTopKAuto, 0},
	} {
		f, _ := engine.FieldNamed(name)
		if low, high := f.Bounds(); !f.IsNumber() || low != want[0] || high != want[1] {
			t.Errorf("%s: number %v, bounds %d to %d, want %d to %d", name, f.IsNumber(), low, high, want[0], want[1])
		}
	}
	if f, _ := engine.FieldNamed(engine.SettingDialect); f.IsNumber() {
		t.Error("dialect is taken for a number")
	}
}

// The page offers a control for each labelled row, and only a request can
// change a setting for a run: a label on a server's setting would be a
// control that is always refused.
func TestOnlyRequestSettingsHaveALabel(t *testing.T) {
	for _, f := range engine.Fields() {
		if f.Label != "" && (!f.Request || f.Secret) {
			t.Errorf("%s has the page label %q but a request cannot change it", f.Name, f.Label)
		}
	}
}
