// Package runner runs an eval: each case of its suites, in each cell of
// a matrix of settings, each repeat, as a real run through engine and a
// runs.Hub (source "eval", so that it is kept in the history, watched and
// exported like any other run), its events folded with transcript and
// graded with eval/grade.
//
// # The matrix
//
// A [Matrix] multiplies the suites: models, dialects, modes, tools_top_k
// and retrievers are settings, applied over each case's own with
// engine.Settings.Apply; Distractors adds that many tools drawn from the
// bundled catalogue (tools/catalogue) to those a case offers. Each
// combination is a [Cell]; [Matrix.Cells] checks every one against the
// settings table before anything runs.
//
// # Running
//
// [Run] takes a [Config] and calls its Report function with each
// [Result] as the case ends, from one goroutine, so that memory does not
// grow with the number of cases: nothing of a case is kept once
// reported, and the [Summary] it returns is tallies ([Tally]) per cell,
// with the median latency read from a histogram of fixed size. At most
// Parallel cases run at once. When ctx ends (Ctrl-C), the cases under
// way end cancelled, none starts, and the Summary holds the results so
// far and how many cases did not run. A case whose backend fails is a
// "backend error", counted apart from the graded ones.
//
// Cases that offer the same tools share one engine (and its MCP servers
// and tool-retrieval index), started when the first of them runs, and
// those that also run with the same settings share one agent. A hub that
// runs as many runs as it may is waited for, not counted a failure.
//
// Each Result says what the run cost: the backend's token counters, and
// an estimate of the prompt tokens the tools block took (its share of the
// first prompt's characters times the prompt tokens reported for it).
package runner
