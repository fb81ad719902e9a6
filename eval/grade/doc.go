// Package grade says whether one run of an eval case did what the case
// expects, and if not, why, in one category; and how sure a pass rate is.
// It is pure: it reads what a run did, never runs anything.
//
// # Expectations
//
// An [Expect] holds what a case wants: calls ([Expect.Calls], each a tool
// name and, per argument, a [Value]: an exact value, one of several, a
// regular expression, a number with a tolerance, or any), in strict or any
// order; no call at all ([Expect.NoCall], BFCL's irrelevance: the model
// must answer or ask); tools that must not be called ([Expect.Forbidden]);
// text the final answer must contain ([Expect.AnswerContains]).
//
// # What a run did
//
// A [Run] is the calls made across the loop, in order (each parsed, or
// invalid with the parser's reason, or cut off), the final answer, how the
// run finished ([Finish]), and the parameters schema of each tool offered.
// The runner fills it from the run's events.
//
// # Grading
//
// [Grade] checks in this order and stops at the first failure, so each
// failing run has one [Category]: how the run finished (backend error,
// timeout, cancelled); parse errors; forbidden calls; then the calls, as
// BFCL's AST checker does (berkeley-function-call-leaderboard,
// bfcl_eval/eval_checker/ast_eval/ast_checker.py): the tool's name, the
// schema's required parameters present, no parameter the schema or the
// expectation lacks, each value of the type the schema gives, each value
// allowed, an expected parameter absent only when it is optional; calls
// in any order matched greedily as its parallel_function_checker_no_order
// does, and the count equal. Then the round limit and the answer's text.
//
// Types follow BFCL's Python checker: an integer is a number written
// without a fraction or an exponent, and is accepted where a number
// ("float") is wanted, never the other way round; a boolean is neither;
// an array's items are checked against the schema's items type. A value
// of the same JSON type as the expected value passes the type check too
// (BFCL's "variable" rule; it is how null passes where null is allowed).
//
// # Pass rates
//
// [Wilson] gives the 95% Wilson score interval of a pass rate, which
// stays inside [0, 1] and is honest for few runs and rates near 0 or 1.
package grade
