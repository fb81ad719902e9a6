package runs

import (
	"bytes"
	"encoding/json"
	"slices"

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

// withRegions gives the token events of a run recorded before token
// events carried a region theirs ([agent.WithRegions]), encoded anew. The
// events of a run whose token events have regions come back as they are,
// none decoded.
func withRegions(events []Encoded) []Encoded {
	if !slices.ContainsFunc(events, lacksRegion) {
		return events
	}
	decoded := make([]agent.Event, len(events))
	for i, enc := range events {
		decoded[i] = enc.Event()
	}
	regioned := agent.WithRegions(decoded)
	encoded := make([]Encoded, len(regioned))
	for i, e := range regioned {
		encoded[i] = encode(e)
	}
	return encoded
}

// regionKey is how a token event's JSON names its region. encode's JSON
// escapes every quote inside a string, so a token's text cannot hold it.
var regionKey = []byte(`"region":`)

func lacksRegion(enc Encoded) bool {
	return enc.Type == agent.Token && !bytes.Contains(enc.JSON, regionKey)
}
