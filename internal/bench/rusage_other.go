//go:build !unix

package bench

import "os"

// selfMaxRSS is not measured on this system (no getrusage): ok is false.
func selfMaxRSS() (int64, bool) { return 0, false }

// childMaxRSS is not measured on this system: ok is false.
func childMaxRSS(*os.ProcessState) (int64, bool) { return 0, false }
