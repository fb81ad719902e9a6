package grade

import "math"

// z95 is the standard normal quantile for a two-sided 95% interval.
const z95 = 1.959963984540054

// Wilson returns the 95% Wilson score interval of a pass rate of passed
// out of total runs: unlike the normal approximation it stays inside
// [0, 1], and is not of zero width at 0 or total passes. With no runs it
// is [0, 1]: nothing is known. A count out of range is clamped into it.
func Wilson(passed, total int) (low, high float64) {
	if total <= 0 {
		return 0, 1
	}
	passed = min(max(passed, 0), total)
	n := float64(total)
	p := float64(passed) / n
	z2 := z95 * z95
	center := (p + z2/(2*n)) / (1 + z2/n)
	half := z95 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return max(center-half, 0), min(center+half, 1)
}
