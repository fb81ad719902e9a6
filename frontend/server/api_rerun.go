package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/transcript"
)

// rerunRequest is the body of POST /api/runs/{id}/rerun: the round to
// start again from, the settings to change (as in POST /api/runs), and
// optionally that round's input messages, edited.
type rerunRequest struct {
	runRequest
	// Round is required: a pointer tells it left out, or null, from 0.
	Round    *int          `json:"round"`
	Messages []llm.Message `json:"messages"`
}

// rerunRun starts a new run from another's conversation as it stood
// before one of its rounds. The new run answers that history as it
// stands, without a new user turn, with the settings of the run it
// reruns and the request's in place of those it sends (rerunSettings).
func (s *Server) rerunRun(c *fiber.Ctx) error {
	old, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	var req rerunRequest
	values, err := decodeRequest(c.Body(), &req, "rerun request", `{"round": 2}`, nil)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	if req.Message != "" || req.ConversationID != "" || req.AfterRun != "" {
		return fiber.NewError(fiber.StatusBadRequest, `a rerun takes its conversation from the run: send "round" (and "messages" to edit it), not "message", "conversation_id" or "after_run"`)
	}
	if req.Round == nil {
		return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf(`"round" is required: the round of run %s to start again from, 1 for its request`, old.ID))
	}
	round := *req.Round
	history, err := historyBefore(old, round, req.Messages)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	// The original request names the run in lists, and tool retrieval
	// chooses the tools for it.
	req.Message = old.Message
	if req.Message == "" {
		req.Message = fmt.Sprintf("rerun of %s from round %d", old.ID, round)
	}
	settings, err := s.rerunSettings(old, values)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	run, err := s.launch(c, settings, engine.Toolset{}, runs.Spec{Message: req.Message, History: history, Step: req.Step,
		ForkedFrom: &runs.Fork{Run: old.ID, Round: round}, Source: old.Source})
	if err != nil {
		return err
	}
	out := started(run)
	out["message"], out["forked_from"] = run.Message, run.ForkedFrom
	return writeJSON(c, fiber.StatusCreated, out)
}

// rerunSettings are old's settings as its run_started recorded them, with
// the request's in their place where it sends them: a rerun asked for
// nothing else runs as old ran. Of old's settings it takes those a
// request may choose (its backend, model, dialect, rounds …) and its
// sampling; the rest are the server's, which a rerun cannot bring from
// another server, or from this one before a restart. A run recorded
// before runs kept their settings has none: the server's stand in.
func (s *Server) rerunSettings(old *runs.Run, request map[string]json.RawMessage) (engine.Settings, error) {
	recorded := recordedSettings(old)
	values := map[string]json.RawMessage{}
	for _, f := range engine.Fields() {
		if raw, ok := recorded[f.Key()]; ok && f.Request {
			values[f.Key()] = raw
		}
	}
	maps.Copy(values, request)
	settings, err := s.cfg.Engine.Settings().Apply(values)
	if err != nil {
		problems := spelling(nil).problems(err)
		if !sentAll(err, request) {
			problems = append(problems, fmt.Sprintf("a rerun starts from run %s's settings: send the ones to change", old.ID))
		}
		return settings, errors.New(strings.Join(problems, "; "))
	}
	if raw, ok := recorded[engine.KeySampling]; ok {
		if err := json.Unmarshal(raw, &settings.Sampling); err != nil {
			return settings, fmt.Errorf("run %s's recorded sampling cannot be read: %v", old.ID, err)
		}
	}
	return settings, nil
}

// sentAll says whether every setting Settings.Apply's err is about is one
// the request sent, not one the rerun run's record gave.
func sentAll(err error, request map[string]json.RawMessage) bool {
	bad, _ := engine.SettingErrors(err)
	for _, se := range bad {
		if _, sent := request[se.Key]; !sent {
			return false
		}
	}
	return true
}

// recordedSettings are the settings run r's run_started recorded, by
// key; nil for a run recorded before runs kept them.
func recordedSettings(r *runs.Run) map[string]json.RawMessage {
	for _, e := range r.Snapshot().Events {
		if e.Type != agent.RunStarted || e.Run == nil {
			continue
		}
		var values map[string]json.RawMessage
		if json.Unmarshal(e.Run.Settings, &values) != nil {
			return nil // recorded before the field existed: empty
		}
		return values
	}
	return nil
}

// historyBefore is the conversation run r had before its round: that
// round's input, or edited in its place, with the system prompt left for
// the new run's agent to write from its own settings.
func historyBefore(r *runs.Run, round int, edited []llm.Message) (*agent.Conversation, error) {
	snap := r.Snapshot()
	run := transcript.Fold(snap.Events)
	rounds := len(run.Rounds)
	var messages []llm.Message
	switch from := run.Round(round); {
	case from != nil && from.Input != nil:
		messages = from.Input.Messages
	case rounds > 0:
		return nil, fmt.Errorf(`"round" %d is not a round of run %s: it has rounds 1 to %d`, round, r.ID, rounds)
	case !snap.Done:
		return nil, fmt.Errorf(`"round" %d is not a round of run %s: it has no rounds yet`, round, r.ID)
	case !r.OpensConversation:
		return nil, fmt.Errorf(`run %s ended before its first round, and its conversation before it is not kept: send the request again`, r.ID)
	case round != 1:
		return nil, fmt.Errorf(`"round" %d is not a round of run %s: it ended before its first round; rerun it from round 1`, round, r.ID)
	default:
		// A run that failed before round 1, its backend down, is rerun
		// as it began: its request alone, on the backend the rerun names.
		messages = []llm.Message{{Role: llm.RoleUser, Content: r.Message}}
	}
	if edited != nil {
		messages = edited
	}
	messages = slices.DeleteFunc(slices.Clone(messages), func(m llm.Message) bool { return m.Role == llm.RoleSystem })
	for i, m := range messages {
		if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
			return nil, fmt.Errorf(`"messages"[%d] has role %q: use "user" or "assistant"`, i, m.Role)
		}
	}
	if len(messages) == 0 || messages[len(messages)-1].Role != llm.RoleUser {
		return nil, errors.New(`"messages" must end with a user turn, which the model answers`)
	}
	// Answer puts the system prompt in place of the first message.
	history := append([]llm.Message{{Role: llm.RoleSystem}}, messages...)
	return &agent.Conversation{Messages: history, Called: run.CalledBefore(round)}, nil
}
