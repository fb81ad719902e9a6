package engine_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

func TestValidateReportsEveryProblem(t *testing.T) {
	s := engine.Defaults()
	s.Backend, s.Mode, s.MaxRounds, s.ToolDelay, s.ToolTimeout = "gpt", "fast", 99, -time.Second, -1
	s.Dialect = streamparser.Dialect(200)
	s.OllamaHost = "ftp://host"
	err := s.Validate()
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var se *engine.SettingError
		if !errors.As(e, &se) {
			t.Fatalf("%v is not a *SettingError", e)
		}
		got = append(got, string(se.Setting))
	}
	want := []string{"backend", "ollama_host", "mode", "dialect", "max_rounds", "tool_delay", "tool_timeout"} // the table's order
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("settings named = %v, want %v", got, want)
	}
	for _, text := range []string{
		`backend "gpt" is unknown: use ollama, demo, auto or openai`,
		`mode "fast" is unknown: use raw or chat`,
		"max_rounds 99 must be from 1 to 50",
		"tool_delay -1s must be from 0 to 60s",
	} {
		if !strings.Contains(err.Error(), text) {
			t.Errorf("%q lacks %q", err, text)
		}
	}
}

func TestDemoHasNoChatMode(t *testing.T) {
	err := engine.Settings{Backend: engine.BackendDemo, Mode: llm.ModeChat}.Validate()
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Setting != engine.SettingMode || !strings.Contains(se.Problem, "no chat mode") {
		t.Fatalf("demo with chat mode: %v, want a mode SettingError", err)
	}
}

func TestZeroSettingsAreValid(t *testing.T) {
	for _, s := range []engine.Settings{{}, engine.Defaults(), {Backend: engine.BackendOllama, Mode: llm.ModeChat, MaxRounds: 50, ToolDelay: time.Minute}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// A zero the command line was given is a value out of range; only left
// unset does it stand for the default.
func TestValidateAsWrittenRefusesZeros(t *testing.T) {
	s := engine.Defaults()
	s.MaxRounds, s.ToolTimeout = 0, 0
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v; zeros stand for the defaults", err)
	}
	err := s.ValidateAsWritten()
	for _, text := range []string{"max_rounds 0 must be from 1 to 50", "tool_timeout 0s must be more than 0"} {
		if err == nil || !strings.Contains(err.Error(), text) {
			t.Errorf("ValidateAsWritten = %v, want %q", err, text)
		}
	}
	if err := engine.Defaults().ValidateAsWritten(); err != nil {
		t.Errorf("the defaults as written: %v", err)
	}
}
