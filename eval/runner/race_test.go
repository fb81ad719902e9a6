//go:build race

package runner_test

// raceDetector: the race detector slows the memory test's 11,000 cases
// tenfold; test.sh runs it again without.
const raceDetector = true
