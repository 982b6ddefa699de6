// Package eta estimates the time left of an iterative solve for the
// progress lines of the command line and the experiment runner.
package eta

import "time"

// Iter estimates a solve's time left from the mean time per iteration since
// the first iteration it saw; that first iteration's own time includes the
// solver's setup, so it is not counted. The zero value is ready to use.
type Iter struct {
	seen    bool
	first   time.Time
	firstIt int
}

// Left returns the estimated time left after iteration it of maxIter: 0 at
// the first iteration seen, or when maxIter is unknown (≤ 0).
func (c *Iter) Left(it, maxIter int) time.Duration {
	return c.at(time.Now(), it, maxIter)
}

func (c *Iter) at(now time.Time, it, maxIter int) time.Duration {
	if !c.seen {
		c.seen, c.first, c.firstIt = true, now, it
		return 0
	}
	if maxIter <= 0 || it <= c.firstIt {
		return 0
	}
	per := now.Sub(c.first) / time.Duration(it-c.firstIt)
	return per * time.Duration(max(maxIter-it, 0))
}
