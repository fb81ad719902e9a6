package grade

import "encoding/json"

// Run is what one run of a case did, as grading needs it.
type Run struct {
	// Calls are every call the model wrote, across the loop, in order.
	Calls []Call
	// Answer is the final answer's text.
	Answer string
	Finish Finish
	// Error is the backend's error when Finish is FinishError.
	Error string
	// Tools are the parameters schemas of the tools offered, by name:
	// the types and required parameters calls are checked against. A
	// tool missing here is checked against its expectation alone.
	Tools map[string]json.RawMessage
}

// Call is one call the model wrote.
type Call struct {
	Name string
	// Arguments is the arguments object, when the call was parsed.
	Arguments json.RawMessage
	// Invalid is the parser's reason when it could not read the call.
	Invalid string
	// Cut: the reply stopped inside the call (a stop or the length limit).
	Cut bool
}

// Finish is how a run ended. The values are agent's reasons, and
// timeout, the eval's own limit on a case.
type Finish string

// The ways a run ends.
const (
	FinishAnswered  Finish = "answered"   // the model answered without calling a tool
	FinishMaxRounds Finish = "max_rounds" // the round limit came first
	FinishCutOff    Finish = "cut_off"    // the reply reached the context or token limit
	FinishError     Finish = "error"      // the backend failed
	FinishCancelled Finish = "cancelled"  // the eval was stopped
	FinishTimeout   Finish = "timeout"    // the case took longer than the eval allows
)

// Result is a run's grade.
type Result struct {
	Pass bool `json:"pass"`
	// Category is why it failed; "" when it passed.
	Category Category `json:"category,omitempty"`
	// Message says what was wrong in a line, naming the call and the
	// argument: `call 1 send_mail: argument "to": "jon@example.com", want "john@example.com"`.
	Message string `json:"message,omitempty"`
}

// Category is the one reason a run failed.
type Category string

// The categories, in the order Grade looks for them.
const (
	BackendError    Category = "backend_error"    // the backend failed: the run was not graded
	Timeout         Category = "timeout"          // the case ran out of time: not graded
	Cancelled       Category = "cancelled"        // the eval was stopped: not graded
	ParseError      Category = "parse_error"      // a call the parser could not read, or one cut off
	ForbiddenCall   Category = "forbidden_call"   // a call to a tool the case forbids
	NoCall          Category = "no_call"          // an expected call the model did not make
	WrongTool       Category = "wrong_tool"       // a call to another tool than expected
	MissingArgument Category = "missing_argument" // a required or expected argument left out
	ExtraArgument   Category = "extra_argument"   // an argument the schema or the case does not have
	WrongType       Category = "wrong_type"       // a value of another type than the schema's
	WrongValue      Category = "wrong_value"      // a value the case does not allow
	ExtraCall       Category = "extra_call"       // a call more than expected, or one where none was
	RoundLimit      Category = "round_limit"      // the run reached its round limit instead of answering
	WrongAnswer     Category = "wrong_answer"     // the answer lacks text the case wants
)

// Graded says whether the category is a verdict on the model, rather than
// a run that did not finish (backend error, timeout, cancelled).
func (c Category) Graded() bool {
	return c != BackendError && c != Timeout && c != Cancelled
}
