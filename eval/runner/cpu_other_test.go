//go:build !unix

package runner_test

import "time"

// cpuTime is not measured here: the benchmark's cpu-ms/case reads 0.
func cpuTime() time.Duration { return 0 }
