package grade

import (
	"regexp"
)

// Expect is what a case wants a run to do. A case has calls, or NoCall,
// or at least text its answer must contain; Forbidden may go with any.
type Expect struct {
	// Calls are the calls the model must make across the loop, no more.
	Calls []ExpectedCall
	// Order says whether Calls must come in their order.
	Order Order
	// NoCall: the model must answer or ask without calling a tool.
	NoCall bool
	// Forbidden names tools the model must not call.
	Forbidden []string
	// AnswerContains is text the final answer must hold, each piece
	// compared without regard to case.
	AnswerContains []string
}

// Order is whether expected calls must come in the order written.
type Order string

// The orders. Any is BFCL's: parallel calls in whatever order.
const (
	OrderAny    Order = "any"
	OrderStrict Order = "strict"
)

// ExpectedCall is one call a case wants.
type ExpectedCall struct {
	Name string
	// Args are the expected arguments by name. Nil: any arguments the
	// tool's schema allows. Not nil: every argument the model gives must
	// be listed here, and every one listed must be given unless Optional.
	Args map[string]Value
}

// Value is what one argument may be: Any, a regular expression, a number
// within a tolerance, or one of the patterns in OneOf.
type Value struct {
	// Optional: the model may leave the argument out (BFCL writes "" among
	// the allowed values for it).
	Optional bool
	Any      bool
	// Regex must match a string value somewhere (it is not anchored: write
	// ^…$ for a whole match).
	Regex *regexp.Regexp
	// Near, when set, is a number the value must be within Tolerance of.
	Near      *float64
	Tolerance float64
	// OneOf are the values allowed.
	OneOf []Pattern
	// Normalize compares strings as BFCL's standardize_string does:
	// without case, spaces or any of ,./-_*^, and ' read as ".
	Normalize bool
}

// Pattern is one allowed value: a literal JSON value, or an object whose
// fields are each matched by a Value of their own (BFCL's dict answers),
// or an array matched element by element (BFCL's lists of dicts).
type Pattern struct {
	// Literal is a JSON value as encoding/json decodes it into any (with
	// numbers as float64 or json.Number): used when Fields and Elements
	// are nil.
	Literal any
	// Fields match an object: each field the object has must be listed,
	// and each listed must be there unless Optional.
	Fields map[string]Value
	// Elements match an array of as many elements.
	Elements []Pattern
}

// Exactly is the Value that allows only v, a JSON value decoded into any.
func Exactly(v any) Value { return Value{OneOf: []Pattern{{Literal: v}}} }
