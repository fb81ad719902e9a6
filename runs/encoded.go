package runs

import (
	"encoding/json"

	"github.com/toolscope/toolscope/agent"
)

// Encoded is a recorded event as JSON, the form a run keeps its events
// in: a token event takes about a third of the memory of an agent.Event,
// and a server sends the same bytes to every viewer without encoding them
// again.
type Encoded struct {
	Seq  int
	Type agent.Type
	JSON []byte // agent.Event's JSON; never changed once recorded
}

// Event decodes the event.
func (enc Encoded) Event() agent.Event {
	var e agent.Event
	_ = json.Unmarshal(enc.JSON, &e) // encode wrote it from an agent.Event
	return e
}

// encode records e as JSON. An event that cannot be encoded (a tool's
// arguments that are not JSON, which the parser should never let through)
// becomes an error event in its place, so that the sequence has no gap.
func encode(e agent.Event) Encoded {
	data, err := json.Marshal(e)
	if err != nil {
		e = agent.Event{Seq: e.Seq, Type: agent.Error, AtMS: e.AtMS, Round: e.Round, Error: "toolscope could not record a " + string(e.Type) + " event: " + err.Error()}
		data, _ = json.Marshal(e)
	}
	return Encoded{Seq: e.Seq, Type: e.Type, JSON: data}
}
